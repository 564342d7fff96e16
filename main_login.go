package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"pixdash/api"
	"pixdash/config"
)

// readSecret reads a secret: without echo from a terminal, else one line of standard input
// (e.g. piped from a password manager). Never from a flag.
// in is standard input as the command reads it (one reader for every line it reads).
func readSecret(prompt string, stderr io.Writer, in *bufio.Reader) (string, error) {
	if stdinTerminal() {
		fmt.Fprint(stderr, prompt)
		b, err := term.ReadPassword(int(os.Stdin.Fd()))
		fmt.Fprintln(stderr)
		return string(b), err
	}
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New("nothing on standard input: pipe the secret in, or run pixdash login on a terminal")
	}
	return line, nil
}

func newLoginCmd(stdout, stderr io.Writer) *cobra.Command {
	var o commonFlags
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store a profile's client secret (and webhook secret) in the OS keyring, read without echo",
		Long: `Read the profile's client secret without echo (or one line of standard input, e.g. piped
from a password manager), sign in with it to check it, and store it in the OS keyring (the
Secret Service on Linux, the Keychain on macOS, the Credential Manager on Windows), where a
profile with client_secret_keyring = true reads it. A profile whose [webhook] has
secret_keyring = true is asked its signing secret next (a second line on a pipe). Secrets are never flags. A machine
without a keyring (a server without a desktop session) gets an error naming the
alternatives: client_secret_env and client_secret_cmd.`,
		Example: `  pixdash login --profile loja
  pass show pixdash/loja | pixdash login --profile loja`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, o, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			p := c.p
			in := bufio.NewReader(promptIn)
			secret, err := readSecret(fmt.Sprintf("Client secret of %s (profile %s): ", p.ClientID, p.Name), stderr, in)
			if err != nil {
				return cliError(exitFailure, err)
			}
			secret = strings.TrimSpace(secret)
			if secret == "" {
				return cliErrorf(exitValidation, "the secret is empty: nothing stored")
			}
			client, err := api.NewClient(p.BaseURL, p.ClientID, api.Secret(secret))
			if err != nil {
				return cliError(exitFailure, err)
			}
			defer client.Close()
			ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
			defer cancel()
			if err := client.Authenticate(ctx); err != nil {
				code := exitCodeOf(err)
				var ae *api.Error
				if errors.As(err, &ae) && ae.HTTPStatus < 500 {
					code = exitAuth
				}
				return cliError(code, fmt.Errorf("profile %s: the service refused this secret (nothing stored): %w", p.Name, err))
			}
			if err := config.KeyringSet(config.KeyringService, config.KeyringUser(p.Name), secret); err != nil {
				return cliError(exitFailure, fmt.Errorf("profile %s: %w", p.Name, config.KeyringUnavailable{Err: err}))
			}
			fmt.Fprintf(stdout, "Signed in as %s and stored its secret in the OS keyring (profile %s).\n", p.ClientID, p.Name)
			if p.Webhook != nil && strings.HasPrefix(p.Webhook.SecretSource(), "OS keyring") {
				// The receiver's signing secret (webhook.secret_keyring): the endpoint's, as registered.
				ws, err := readSecret(fmt.Sprintf("Webhook signing secret of profile %s: ", p.Name), stderr, in)
				if err != nil {
					return cliError(exitFailure, err)
				}
				if ws = strings.TrimSpace(ws); len(ws) < 16 {
					return cliErrorf(exitValidation, "the webhook signing secret must have at least 16 characters: not stored")
				}
				if err := config.KeyringSet(config.KeyringService, config.KeyringWebhookUser(p.Name), ws); err != nil {
					return cliError(exitFailure, fmt.Errorf("profile %s: %w", p.Name, config.KeyringUnavailable{Err: err}))
				}
				fmt.Fprintf(stdout, "Stored the webhook signing secret in the OS keyring (profile %s).\n", p.Name)
			}
			if !strings.HasPrefix(p.SecretSource(), "OS keyring") {
				fmt.Fprintf(stderr, "Profile %s reads its secret from %s: to use the keyring, set client_secret_keyring = true in [profiles.%s] instead.\n", p.Name, p.SecretSource(), p.Name)
			}
			return nil
		},
	}
	o.add(cmd, false)
	return cmd
}
