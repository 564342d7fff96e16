package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// addCLICommands adds the command line's commands for scripts (issue 24) to the dashboard's
// tree, and an example to every command's --help that has none yet.
func addCLICommands(root *cobra.Command, stdout, stderr io.Writer) {
	root.AddCommand(cliCommands(stdout, stderr)...)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" {
			c.Example = commandExamples[strings.TrimPrefix(c.CommandPath(), "pixdash ")]
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// commandExamples are the --help examples of the commands built before the command line.
var commandExamples = map[string]string{
	"version":      "  pixdash version",
	"sandbox":      "  pixdash sandbox --addr 127.0.0.1:8080 --state sandbox.db",
	"config init":  "  pixdash config init --lang pt-BR",
	"config check": "  pixdash config check --config ~/.config/pixdash/config.toml",
	"events prune": "  pixdash events prune --before 2025-01-01 --dry-run\n  pixdash events prune --before 2025-01-01 --yes --profile loja",
	"export":       "  pixdash export --from 2025-01-01 --to 2025-01-31 --format csv --output janeiro.csv",
	"close":        "  pixdash close --date 2025-01-31 --width 48 --print",
	"db check":     "  pixdash db check --profile loja",
	"db repair":    "  pixdash db repair --profile loja",
	"training":     "  pixdash training",
}

// cliCommands are the command line's commands for scripts, beside the dashboard's.
func cliCommands(stdout, stderr io.Writer) []*cobra.Command {
	return []*cobra.Command{
		newChargeCmd(stdout, stderr), newRefundCmd(stdout, stderr), newWithdrawCmd(stdout, stderr),
		newWalletsCmd(stdout, stderr), newSubAccountCmd(stdout, stderr), newProjectsCmd(stdout, stderr), newBlocksCmd(stdout, stderr), newWhoamiCmd(stdout, stderr), newTriggerCmd(stdout, stderr), newListenCmd(stdout, stderr),
		newCompletionCmd(stdout), newManCmd(stderr), newLoginCmd(stdout, stderr),
	}
}
