package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/state"
)

// withEventsCommands adds list, show, resend and deliveries to the events command (prune is its own).
func withEventsCommands(cmd *cobra.Command, stdout, stderr io.Writer) *cobra.Command {
	cmd.RunE = func(*cobra.Command, []string) error { return usageError("say list, show, resend, deliveries or prune") }
	cmd.AddCommand(newEventsListCmd(stdout, stderr), newEventsShowCmd(stdout, stderr), newEventsResendCmd(stdout, stderr), newEventsDeliveriesCmd(stdout, stderr))
	return cmd
}

// eventJSON is a recorded webhook event in --json output. Verdict is what the service
// answered when it was read back (a webhook is only a hint).
type eventJSON struct {
	EventID       string     `json:"eventId"`
	Kind          string     `json:"kind"`
	Wallet        string     `json:"wallet"`
	TransactionID string     `json:"transactionId,omitempty"`
	WithdrawalID  string     `json:"withdrawalId,omitempty"`
	Amount        *moneyJSON `json:"amount,omitempty"`
	CreatedAt     string     `json:"createdAt,omitempty"`
	ReceivedAt    string     `json:"receivedAt"`
	Copies        int        `json:"copies"`
	Verdict       string     `json:"verdict,omitempty"`
	VerdictReason string     `json:"verdictReason,omitempty"`
	Damaged       bool       `json:"damaged,omitempty"`
	// Payload is the event as received, documents masked unless --reveal (events show only).
	Payload json.RawMessage `json:"payload,omitempty"`
}

func eventOut(e state.EventEntry) eventJSON {
	ev := e.Event
	out := eventJSON{EventID: ev.EventID, Kind: string(ev.Kind), Wallet: state.NormalizeWallet(ev.SubAccount),
		TransactionID: ev.TransactionID, WithdrawalID: ev.WithdrawalID, CreatedAt: rfc3339(ev.CreatedAt),
		ReceivedAt: rfc3339(e.ReceivedAt), Copies: e.Count, Verdict: string(e.Verdict), VerdictReason: e.VerdictReason, Damaged: e.Damaged}
	if ev.Amount != 0 {
		m := jsonMoney(ev.Amount)
		out.Amount = &m
	}
	return out
}

func eventLine(w io.Writer, e state.EventEntry) {
	o := eventOut(e)
	amount := ""
	if e.Event.Amount != 0 {
		amount = e.Event.Amount.BRL()
	}
	verdict := o.Verdict
	if verdict == "" {
		verdict = "-"
	}
	fmt.Fprintf(w, "%s  %-24s %-12s %14s  %-10s %s  %s\n", e.ReceivedAt.Local().Format("2006-01-02 15:04:05"), o.Kind, o.Wallet, amount, verdict, o.EventID, o.TransactionID+o.WithdrawalID)
}

// eventsListFlags are the options of pixdash events list.
type eventsListFlags struct {
	commonFlags
	kind, since, wallet string
	limit               int
}

func newEventsListCmd(stdout, stderr io.Writer) *cobra.Command {
	var o eventsListFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profile's recorded webhook events, newest first",
		Example: `  pixdash events list --kind payment_completed --since 2025-01-31
  pixdash events list --json | jq -r 'select(.verdict=="confirmed") | .transactionId'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			since, err := parseSince(o.since)
			if err != nil {
				return err
			}
			if o.limit < 0 {
				return usageError("--limit must be 0 (all) or more")
			}
			if o.kind != "" && !api.EventKind(o.kind).Known() {
				return usageError("--kind %q: not an event kind the service sends", o.kind)
			}
			c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			q := state.EventQuery{Kind: api.EventKind(o.kind)}
			if o.wallet != "" {
				if err := api.ValidateWallet(o.wallet); err != nil {
					return usageError("--wallet: %v", err)
				}
				q.Wallet = o.wallet
			}
			store, err := c.Store()
			if err != nil {
				return err
			}
			if q.Wallet != "" {
				if err := knownWallet(c.ctx, store, c.p, q.Wallet); err != nil {
					return err // a typo is an error, not an empty list
				}
			}
			const page = 500
			n := 0
			for offset := 0; ; offset += page {
				pg, err := store.EventWindow(c.ctx, q, offset, page)
				if err != nil {
					return cliError(exitFailure, err)
				}
				for _, e := range pg.Entries {
					if !since.IsZero() && e.ReceivedAt.Before(since) {
						return nil
					}
					if c.json {
						if err := writeJSON(stdout, eventOut(e)); err != nil {
							return err
						}
					} else {
						eventLine(stdout, e)
					}
					if n++; o.limit > 0 && n >= o.limit {
						return nil
					}
				}
				if len(pg.Entries) < page {
					return nil
				}
			}
		},
	}
	o.add(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", "", "only this kind, e.g. payment_completed")
	f.StringVar(&o.since, "since", "", "only events received on or after this day (YYYY-MM-DD) or time (RFC 3339)")
	f.StringVar(&o.wallet, "wallet", "", "only this wallet (principal or a sub-account reference)")
	f.IntVar(&o.limit, "limit", 100, "at most this many events (0: all)")
	return cmd
}

func newEventsShowCmd(stdout, stderr io.Writer) *cobra.Command {
	var o commonFlags
	var reveal bool
	cmd := &cobra.Command{
		Use:     "show EVENT_ID",
		Short:   "Print one recorded webhook event with its payload (documents masked unless --reveal)",
		Example: `  pixdash events show evt_123 --json | jq .payload`,
		Args:    exactArgs(1, "the event's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := openCLI(cmd, o, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			e, err := c.StoredEvent(args[0])
			if err != nil {
				return err
			}
			out := eventOut(e)
			payload := []byte(e.Event.Raw)
			if !reveal {
				payload = maskDocumentMembers(payload)
			}
			out.Payload = payload
			return c.emit(out, func(w io.Writer) {
				eventLine(w, e)
				if out.VerdictReason != "" {
					fmt.Fprintf(w, "verdict reason: %s\n", out.VerdictReason)
				}
				var pretty strings.Builder
				var v any
				if json.Unmarshal(payload, &v) == nil {
					b, _ := json.MarshalIndent(v, "", "  ")
					pretty.Write(b)
				} else {
					pretty.Write(payload)
				}
				fmt.Fprintln(w, pretty.String())
			})
		},
	}
	o.add(cmd, true)
	cmd.Flags().BoolVar(&reveal, "reveal", false, "show the payer's and holder's documents unmasked")
	return cmd
}

// maskDocumentMembers masks, with state.MaskDocument, the string value of every JSON member
// whose name says it holds a personal document (document, cpf, cnpj, taxId). A payload that
// does not decode is shown as stars.
func maskDocumentMembers(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []byte(`"***"`)
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if s, ok := val.(string); ok && isDocumentKey(k) && s != "" {
					t[k] = state.MaskDocument(s)
					continue
				}
				t[k] = walk(val)
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		}
		return x
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return []byte(`"***"`)
	}
	return b
}

func isDocumentKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"document", "cpf", "cnpj", "taxid", "tax_id"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// pruneTakesEverything reports whether removing n events leaves the profile with none.
func pruneTakesEverything(ctx context.Context, store *state.Store, n int) (bool, error) {
	if n == 0 {
		return false, nil
	}
	total, err := store.CountEventsBefore(ctx, time.Now().AddDate(100, 0, 0))
	return n >= total, err
}

// confirmEverything asks, on a terminal, for the number of events a prune that removes every
// event would remove (--yes is not enough); an other answer removes nothing (false). Without a
// terminal it is a usage error asking for --all.
func confirmEverything(what string, n int, stdout io.Writer) (bool, error) {
	if !stdinTerminal() {
		return false, usageError("this would remove %s, every event of the profile: add --all to confirm that, or --dry-run to only count them", what)
	}
	fmt.Fprintf(stdout, "This removes %s: EVERY event of the profile (charges are kept). Type %d to confirm: ", what, n)
	answer, _ := bufio.NewReader(promptIn).ReadString('\n')
	if strings.TrimSpace(answer) != strconv.Itoa(n) {
		fmt.Fprintln(stdout, "Nothing removed.")
		return false, nil
	}
	return true, nil
}
