package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/api/safetext"
	"pixdash/config"
	"pixdash/state"
	"pixdash/state/workflow"
)

// forwardRoute is one --forward-to: the URL, the kinds it takes (nil: every kind) and the
// wallets (nil: every wallet).
type forwardRoute struct {
	URL     string
	Kinds   []api.EventKind
	Wallets []string
}

// parseForwardTo reads --forward-to URL or --forward-to kind1,wallet:ref,…=URL.
func parseForwardTo(v string) (forwardRoute, error) {
	var r forwardRoute
	raw := v
	if i := strings.Index(v, "="); i >= 0 && !strings.Contains(v[:i], "://") {
		for k := range strings.SplitSeq(v[:i], ",") {
			k = strings.TrimSpace(k)
			if ref, ok := strings.CutPrefix(k, "wallet:"); ok {
				if err := api.ValidateWallet(ref); err != nil {
					return r, usageError("--forward-to %q: wallet %q: %v", v, ref, err)
				}
				r.Wallets = append(r.Wallets, state.NormalizeWallet(ref))
				continue
			}
			if !api.EventKind(k).Known() {
				return r, usageError("--forward-to %q: %q is not an event kind the service sends", v, k)
			}
			r.Kinds = append(r.Kinds, api.EventKind(k))
		}
		raw = v[i+1:]
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return r, usageError("--forward-to %q: say an http(s) URL, optionally after kind1,kind2,wallet:ref=", v)
	}
	r.URL = raw
	return r, nil
}

// forwarder re-signs verified events and posts them to the merchant's own app, retrying with
// backoff, and logs every attempt (events deliveries reads the log).
type forwarder struct {
	routes   []forwardRoute
	secret   api.Secret
	attempts int
	backoff  time.Duration
	client   *http.Client
	log      *deliveryLog
	wg       sync.WaitGroup
}

// deliveryJSON is one attempt of a forwarded delivery (the delivery log's lines, and events
// deliveries --json).
type deliveryJSON struct {
	At       string `json:"at"`
	EventID  string `json:"eventId"`
	Kind     string `json:"kind"`
	URL      string `json:"url"`
	Attempt  int    `json:"attempt"`
	Status   int    `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
	Outcome  string `json:"outcome"` // delivered, retrying, failed
	Duration int64  `json:"durationMs"`
}

// deliveryLog appends one JSON line per attempt to the profile's delivery log (mode 0600).
type deliveryLog struct {
	mu   sync.Mutex
	path string
}

func deliveryLogPath(p *config.Profile) string {
	return filepath.Join(config.StateDir(os.Getenv), "pixdash", p.Name+".deliveries.jsonl")
}

func (l *deliveryLog) add(d deliveryJSON) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(d)
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// wants reports whether route r takes event e: its kind and its wallet.
func (r forwardRoute) wants(e *api.Event) bool {
	return (r.Kinds == nil || slices.Contains(r.Kinds, e.Kind)) &&
		(r.Wallets == nil || slices.Contains(r.Wallets, state.NormalizeWallet(e.SubAccount)))
}

// forward sends e to every route that takes it, each in its own goroutine (Wait drains them).
func (f *forwarder) forward(ctx context.Context, e *api.Event, verdict string, report func(deliveryJSON)) {
	for _, r := range f.routes {
		if !r.wants(e) {
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.deliver(ctx, r.URL, e, verdict, report)
		}()
	}
}

// deliver posts e's payload, as received, to url with the service's headers, re-signed with
// the local secret; a network failure or a 5xx/429 is retried with doubling backoff up to
// f.attempts. ctx ending stops the retries, not an attempt in flight.
func (f *forwarder) deliver(ctx context.Context, url string, e *api.Event, verdict string, report func(deliveryJSON)) bool {
	body := []byte(e.Raw)
	if len(body) == 0 {
		body, _ = json.Marshal(e)
	}
	wait := f.backoff
	for attempt := 1; ; attempt++ {
		start := time.Now()
		d := deliveryJSON{At: rfc3339(start), EventID: e.EventID, Kind: string(e.Kind), URL: url, Attempt: attempt}
		status, err := f.post(context.WithoutCancel(ctx), url, body, e, verdict)
		d.Status, d.Duration = status, time.Since(start).Milliseconds()
		retry := err != nil || status >= 500 || status == http.StatusTooManyRequests
		switch {
		case err != nil:
			d.Error = err.Error()
		case status < 200 || status > 299:
			d.Error = http.StatusText(status)
		}
		d.Outcome = "delivered"
		if d.Error != "" {
			d.Outcome = "failed"
			if retry && attempt < f.attempts && ctx.Err() == nil {
				d.Outcome = "retrying"
			}
		}
		if f.log != nil {
			_ = f.log.add(d)
		}
		report(d)
		if d.Outcome != "retrying" {
			return d.Outcome == "delivered"
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// post sends one attempt and returns the app's status code.
func (f *forwarder) post(ctx context.Context, url string, body []byte, e *api.Event, verdict string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	sig := api.Sign(body, f.secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.PagueSignatureHeader, sig)
	req.Header.Set(api.SignatureHeader, sig)
	req.Header.Set(api.TimestampHeader, strconv.FormatInt(time.Now().UnixMilli(), 10))
	req.Header.Set(api.EventHeader, string(e.Kind))
	req.Header.Set(api.EventIDHeader, e.EventID)
	req.Header.Set(api.WebhookIDHeader, "pixdash-listen")
	if verdict != "" {
		req.Header.Set("X-Pixdash-Verdict", verdict) // informative, as the service's other headers
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// forwardFlags are the options shared by listen and events resend.
type forwardFlags struct {
	secretEnv string
	attempts  int
	backoff   time.Duration
}

func (o *forwardFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.secretEnv, "forward-secret-env", "", "environment variable holding the secret forwarded deliveries are signed with (default: a new one, printed at start)")
	f.IntVar(&o.attempts, "forward-attempts", 6, "attempts per delivery (a network failure, 5xx or 429 is retried)")
	f.DurationVar(&o.backoff, "forward-backoff", time.Second, "wait before the first retry; doubles each time")
}

// forwardSecret reads the forwarding secret from --forward-secret-env, else mints one and says
// it on stderr (the merchant's app needs it to check the signatures).
func (o forwardFlags) forwardSecret(stderr io.Writer) (api.Secret, error) {
	if o.secretEnv != "" {
		v := os.Getenv(o.secretEnv)
		if len(v) < 16 {
			return "", usageError("--forward-secret-env %s: the variable must hold a secret of at least 16 characters", o.secretEnv)
		}
		return api.Secret(v), nil
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	s := "whsec_" + hex.EncodeToString(b)
	// Printed on purpose: a secret made for this run, which the merchant's app must be given.
	fmt.Fprintf(stderr, "Forwarding secret (sign check: HMAC-SHA256 of the body, header %s): %s\n", api.PagueSignatureHeader, s)
	return api.Secret(s), nil
}

func (o forwardFlags) check() error {
	if o.attempts < 1 || o.backoff <= 0 {
		return usageError("--forward-attempts must be at least 1 and --forward-backoff positive")
	}
	return nil
}

// listenFlags are the options of pixdash listen.
type listenFlags struct {
	commonFlags
	forwardFlags
	forwardTo []string
	events    string
	wallet    string
}

// listenJSON is one line of pixdash listen --json: the event and the service's verdict.
type listenJSON struct {
	eventJSON
	Charge *chargeJSON `json:"charge,omitempty"`
}

func newListenCmd(stdout, stderr io.Writer) *cobra.Command {
	var o listenFlags
	cmd := &cobra.Command{
		Use:   "listen",
		Short: "Run the profile's webhook receiver without the dashboard, printing each event with its verdict",
		Long: `Run the profile's webhook receiver ([profiles.NAME.webhook]) without the dashboard: the same
signature check, timestamp window, dedupe and durable commit before 200; every payment,
refund, withdrawal and block event is read back from the service (a webhook is only a hint),
on_paid runs once per payment the service confirms, and one line (or, with --json, one JSON
object) per event says the verdict: confirmed, disputed or unknown.

--forward-to URL sends each verified event to your own app, re-signed with HMAC-SHA256 (hex,
"sha256=" prefix) of the body in the X-Pague-Signature and X-Service-Signature headers, with
X-Pague-Timestamp, X-Pague-Event and X-Service-Event-Id, as the service sends them; the secret
is printed at start, or read from --forward-secret-env. --forward-to kind1,kind2=URL takes only
those kinds; a wallet:REF item (--forward-to wallet:loja-centro=URL) takes only that
wallet's events; --events and --wallet filter every route. A delivery the app answers 5xx or 429,
or does not answer, is retried with backoff; every attempt goes to the delivery log (pixdash
events deliveries). SIGTERM or Ctrl+C stops receiving and drains the deliveries in flight.`,
		Example: `  pixdash listen --forward-to http://localhost:3000/webhooks/pix
  pixdash listen --json --forward-to payment_completed,refund_completed=http://localhost:3000/pix --forward-secret-env APP_WEBHOOK_SECRET`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runListen(cmd, o, stdout, stderr) },
	}
	o.commonFlags.add(cmd, true)
	o.forwardFlags.add(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.forwardTo, "forward-to", nil, "URL (or kind1,kind2=URL) to forward each verified event to (repeatable)")
	f.StringVar(&o.events, "events", "", "only these kinds, comma-separated (printed and forwarded)")
	f.StringVar(&o.wallet, "wallet", "", "only events of this wallet")
	return cmd
}

func runListen(cmd *cobra.Command, o listenFlags, stdout, stderr io.Writer) error {
	var routes []forwardRoute
	for _, v := range o.forwardTo {
		r, err := parseForwardTo(v)
		if err != nil {
			return err
		}
		routes = append(routes, r)
	}
	var only []api.EventKind
	for k := range strings.SplitSeq(o.events, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		if !api.EventKind(k).Known() {
			return usageError("--events: %q is not an event kind the service sends", k)
		}
		only = append(only, api.EventKind(k))
	}
	if o.wallet != "" {
		if err := api.ValidateWallet(o.wallet); err != nil {
			return usageError("--wallet: %v", err)
		}
	}
	if err := o.check(); err != nil {
		return err
	}
	// Events are printed from this goroutine and deliveries reported from theirs: one lock.
	var wmu sync.Mutex
	stdout, stderr = &lockedWriter{mu: &wmu, w: stdout}, &lockedWriter{mu: &wmu, w: stderr}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if !c.p.Webhook.Enabled() {
		return usageError("profile %s has no webhook receiver: add [profiles.%s.webhook] with listen and secret_env (pixdash config init shows one)", c.p.Name, c.p.Name)
	}
	var fw *forwarder
	if len(routes) > 0 {
		secret, err := o.forwardSecret(stderr)
		if err != nil {
			return err
		}
		fw = &forwarder{routes: routes, secret: secret, attempts: o.attempts, backoff: o.backoff,
			client: &http.Client{}, log: &deliveryLog{path: deliveryLogPath(c.p)}}
	}
	// Where the recorded events end before the receiver starts: every event it records is printed.
	store, err := c.Store()
	if err != nil {
		return err
	}
	after, err := store.LastEventSeq(c.ctx)
	if err != nil {
		return cliError(exitFailure, err)
	}
	sess, err := openProfile(c.ctx, c.p, config.StateDir(os.Getenv), slog.New(slog.DiscardHandler))
	if err != nil {
		return cliError(exitFailure, fmt.Errorf("profile %s: %w", c.p.Name, err))
	}
	defer sess.Close()
	switch {
	case sess.WebhookURL != "":
		c.note("Receiving the webhooks of profile %s at %s (Ctrl+C or SIGTERM stops)", c.p.Name, sess.WebhookURL)
	case sess.ReceiverElsewhere:
		c.note("Another pixdash receives the webhooks of profile %s; printing the events it records", c.p.Name)
	default:
		c.note("%s", sess.Notice)
	}
	if sess.Notice != "" && sess.WebhookURL != "" {
		c.note("%s", sess.Notice)
	}
	var outMu sync.Mutex
	report := func(d deliveryJSON) {
		outMu.Lock()
		defer outMu.Unlock()
		msg := fmt.Sprintf("  → %s %s attempt %d: %s", d.URL, d.EventID, d.Attempt, d.Outcome)
		if d.Status != 0 {
			msg += fmt.Sprintf(" (%d)", d.Status)
		}
		if d.Error != "" {
			msg += ": " + d.Error
		}
		fmt.Fprintln(stderr, safetext.Clean(msg))
	}
	eng := workflow.NewEngine(sess, workflow.EngineOptions{})
	defer eng.Close()
	eng.StartAfter(after)
	l := &listener{c: c, sess: sess, fw: fw, only: only, wallet: o.wallet, outMu: &outMu, report: report,
		pending: map[string]*api.Event{}, early: map[string]bool{}}
	l.run(eng)
	eng.Close() // an on_paid run in progress finishes first
	if fw != nil {
		c.note("Stopping: draining the deliveries in flight…")
		fw.wg.Wait()
	}
	return nil
}

// listenGrace is how long listen, told to stop, still waits for the read-backs of the events
// it was told of (each is printed and forwarded); those still open then are printed unchecked
// and read back at the next start.
var listenGrace = 15 * time.Second

// listener prints the reports of the session's engine (workflow.Engine, the dashboard's): one
// line or JSON object per event, once the service's answer to its read-back is in.
type listener struct {
	c      *cli
	sess   *workflow.Session
	fw     *forwarder
	only   []api.EventKind
	wallet string
	outMu  *sync.Mutex
	report func(deliveryJSON)

	// pending are the events reported by the feed whose read-back is not in yet, in order.
	pending map[string]*api.Event
	order   []string
	// early are the events printed on a failed read-back while stopping, which the engine may
	// still read back: not printed twice.
	early    map[string]bool
	stopping bool
}

// run handles the engine's reports until the command is told to stop (SIGTERM, Ctrl+C) and the
// read-backs under way are in (or listenGrace ran out).
func (l *listener) run(eng *workflow.Engine) {
	done := l.c.ctx.Done()
	var grace <-chan time.Time
	for !l.stopping || len(l.pending) > 0 {
		select {
		case <-done:
			l.stopping, done = true, nil
			grace = time.After(listenGrace)
		case <-grace:
			for _, id := range l.order {
				if ev, ok := l.pending[id]; ok {
					l.print(ev, nil, errors.New("stopped before the service answered"))
				}
			}
			l.pending, l.order = nil, nil
		case r := <-eng.Reports():
			l.handle(r)
		}
	}
}

// wants reports whether --events and --wallet let ev through.
func (l *listener) wants(ev *api.Event) bool {
	return ev != nil && (len(l.only) == 0 || slices.Contains(l.only, ev.Kind)) &&
		(l.wallet == "" || state.NormalizeWallet(ev.SubAccount) == l.wallet)
}

// handle turns one engine report into output: an event is printed (and forwarded) when it
// needs no read-back, else once its read-back is final; on_paid failures, recoveries and
// charges the polling moved are said on stderr.
func (l *listener) handle(r workflow.Report) {
	c := l.c
	switch r := r.(type) {
	case workflow.Events:
		if r.Err != nil {
			c.note("warning: reading the recorded events: %v", r.Err)
			return
		}
		for _, ev := range r.Events {
			if !l.wants(ev) {
				continue
			}
			if !ev.Kind.ReadBack() {
				l.print(ev, nil, nil)
				continue
			}
			if _, ok := l.pending[ev.EventID]; !ok {
				l.pending[ev.EventID] = ev
				l.order = append(l.order, ev.EventID)
			}
		}
	case workflow.EventConfirmed:
		id := r.Event.EventID
		last := r.Err == nil || r.Attempt+1 >= workflow.MaxConfirmAttempts
		if !last && !l.stopping {
			if l.wants(r.Event) {
				c.note("warning: reading event %s back: %s (trying again)", safetext.Clean(id), workflow.BalanceErrText(r.Err))
			}
			return
		}
		if l.early[id] {
			delete(l.early, id)
			return
		}
		if !last {
			l.early[id] = true // the engine reads it back again: that answer is not printed twice
		}
		if _, ok := l.pending[id]; ok {
			delete(l.pending, id)
			l.order = slices.DeleteFunc(l.order, func(x string) bool { return x == id })
		}
		// An event not in pending is one an earlier run left unchecked, read back at start.
		if l.wants(r.Event) {
			conf := r.Conf
			l.print(r.Event, &conf, r.Err)
		}
	case workflow.OnPaidDone:
		if r.Result.Failed() {
			c.note("on_paid for %s failed: %v", r.Result.ChargeID, r.Result.Err)
		}
	case workflow.ChargeChanged:
		if r.Err == nil && r.Before.ID != "" && r.Before.State() != r.After.State() {
			c.note("charge %s: %s → %s (read from the service)", safetext.Clean(r.ID), r.Before.State(), r.After.State())
		}
	case workflow.RecoveryDone:
		if n := len(r.Charges.Resolved); n > 0 {
			c.note("recovered %d charge creation(s) an earlier session left unconfirmed", n)
		}
		if r.Charges.Err != nil {
			c.note("warning: recovering the unconfirmed charge creations: %v", r.Charges.Err)
		}
	}
}

// print prints event ev with the service's verdict (conf; nil when it needs no read-back),
// or with why it is still unchecked (err), and forwards it unless the service disputes it.
func (l *listener) print(ev *api.Event, conf *state.Confirmation, err error) {
	c := l.c
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 10*time.Second)
	defer cancel()
	e, found, ferr := l.sess.Store.Event(ctx, ev.EventID)
	if ferr != nil || !found {
		e = state.EventEntry{Event: ev, ReceivedAt: time.Now(), Count: 1}
	}
	e.Event = ev
	out := listenJSON{eventJSON: eventOut(e)}
	switch {
	case err != nil:
		out.Verdict, out.VerdictReason = "", "not read back yet: "+workflow.BalanceErrText(err)
	case conf != nil:
		out.Verdict, out.VerdictReason = string(conf.Verdict), conf.Reason
		if conf.After.ID != "" {
			ch := chargeOut(conf.After)
			out.Charge = &ch
		}
	}
	l.outMu.Lock()
	if c.json {
		_ = writeJSON(c.stdout, out)
	} else {
		verdict := out.Verdict
		if verdict == "" {
			verdict = "unchecked"
		}
		line := fmt.Sprintf("%s  %-24s %-12s %s", e.ReceivedAt.Local().Format("15:04:05"), out.Kind, out.Wallet, verdict)
		if out.Amount != nil {
			line += "  " + ev.Amount.BRL()
		}
		line += "  " + out.EventID
		if id := out.TransactionID + out.WithdrawalID; id != "" {
			line += "  " + id
		}
		if out.VerdictReason != "" {
			line += "  (" + out.VerdictReason + ")"
		}
		fmt.Fprintln(c.stdout, safetext.Clean(line))
	}
	l.outMu.Unlock()
	if l.fw != nil && out.Verdict != string(state.VerdictDisputed) && !e.Damaged {
		l.fw.forward(c.ctx, ev, out.Verdict, l.report)
	}
}

// eventsResendFlags are the options of pixdash events resend.
type eventsResendFlags struct {
	commonFlags
	forwardFlags
	to string
}

func newEventsResendCmd(stdout, stderr io.Writer) *cobra.Command {
	var o eventsResendFlags
	cmd := &cobra.Command{
		Use:     "resend EVENT_ID --to URL",
		Short:   "Send a recorded event again to your app, re-signed as listen --forward-to does",
		Example: `  pixdash events resend evt_123 --to http://localhost:3000/webhooks/pix --forward-secret-env APP_WEBHOOK_SECRET`,
		Args:    exactArgs(1, "the event's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := parseForwardTo(o.to)
			if err != nil || r.Kinds != nil || r.Wallets != nil {
				return usageError("--to %q: say the http(s) URL to send the event to", o.to)
			}
			if err := o.check(); err != nil {
				return err
			}
			c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			e, err := c.StoredEvent(args[0])
			if err != nil {
				return err
			}
			if e.Damaged {
				return cliErrorf(exitFailure, "event %s: its stored payload no longer decodes; nothing sent", e.Event.EventID)
			}
			secret, err := o.forwardSecret(stderr)
			if err != nil {
				return err
			}
			fw := &forwarder{secret: secret, attempts: o.attempts, backoff: o.backoff, client: &http.Client{}, log: &deliveryLog{path: deliveryLogPath(c.p)}}
			var last deliveryJSON
			okd := fw.deliver(c.ctx, r.URL, e.Event, string(e.Verdict), func(d deliveryJSON) {
				last = d
				if !c.json {
					fmt.Fprintf(stderr, "attempt %d: %s %s\n", d.Attempt, d.Outcome, strings.TrimSpace(strconv.Itoa(d.Status)+" "+d.Error))
				}
			})
			if err := c.emit(last, func(w io.Writer) {
				fmt.Fprintf(w, "%s %s to %s: %s after %d attempt(s)\n", last.Kind, last.EventID, last.URL, last.Outcome, last.Attempt)
			}); err != nil {
				return err
			}
			if !okd {
				return cliErrorf(exitFailure, "the app did not take event %s (%s)", e.Event.EventID, last.Error)
			}
			return nil
		},
	}
	o.commonFlags.add(cmd, true)
	o.forwardFlags.add(cmd)
	cmd.Flags().StringVar(&o.to, "to", "", "the URL to send the event to")
	return cmd
}

func newEventsDeliveriesCmd(stdout, stderr io.Writer) *cobra.Command {
	var o commonFlags
	var limit int
	cmd := &cobra.Command{
		Use:     "deliveries",
		Short:   "Print the log of forwarded deliveries (listen --forward-to, events resend), newest last",
		Example: `  pixdash events deliveries --json | jq 'select(.outcome!="delivered")'`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, o, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			data, err := os.ReadFile(deliveryLogPath(c.p))
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			if err != nil {
				return cliError(exitFailure, err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if limit > 0 && len(lines) > limit {
				lines = lines[len(lines)-limit:]
			}
			for _, l := range lines {
				var d deliveryJSON
				if json.Unmarshal([]byte(l), &d) != nil {
					continue
				}
				if c.json {
					if err := writeJSON(stdout, d); err != nil {
						return err
					}
					continue
				}
				st := ""
				if d.Status != 0 {
					st = strconv.Itoa(d.Status)
				}
				fmt.Fprintf(stdout, "%s  %-9s %-3s %-24s %s attempt %d  %s %s\n", d.At, d.Outcome, st, d.Kind, d.EventID, d.Attempt, d.URL, d.Error)
			}
			return nil
		},
	}
	o.add(cmd, true)
	cmd.Flags().IntVar(&limit, "limit", 100, "the last this many attempts (0: all)")
	return cmd
}

// lockedWriter serializes writes to w under mu (shared by the writers of one command).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
