package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/blocks"
	"pixdash/ui/common"
	"pixdash/ui/events"
	"pixdash/ui/inspector"
	"pixdash/ui/newcharge"
	"pixdash/ui/wallets"
)

// evilParts are what an attacker puts in a text field: OSC title and clipboard writes, SGR,
// a one-byte CSI, a bidi override, NUL, CR LF, zero-width and isolate characters and a byte
// that is not UTF-8.
var evilParts = []string{"\x1b]2;PWNED\x07", "\x1b[5;41mBLINK", "\x1b]52;c;ZXZpbA==\x07", "\u009b31m", "\u202Egnp.exe",
	"\x00", "\r\n", "\u2066", "\u200b", "\ufeff", "\u061c", "\xff"}

// evil is a field value carrying every attack, after a readable label.
func evil(label string) string { return label + strings.Join(evilParts, "") }

// forbiddenIn reports the first rune in s that must never reach the terminal (with the
// Ascii profile lipgloss draws no escape of its own, so any ESC came from the data).
func forbiddenIn(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return r, true
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
			r >= 0x200b && r <= 0x200d, r == 0xfeff, r == 0x2028, r == 0x2029:
			return r, true
		}
	}
	if !utf8.ValidString(s) {
		return utf8.RuneError, true // a byte that is not UTF-8
	}
	return 0, false
}

func TestSanitize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"Café e pão de queijo", "Café e pão de queijo"},
		{"Açaí 🍇 👍🏽 ❤️ São João", "Açaí 🍇 👍🏽 ❤️ São João"},
		{"\x1b]2;PWNED\x07", " ]2;PWNED "},
		{"\x1b[5;41mBLINK", " [5;41mBLINK"},
		{"\x1b]52;c;ZXZpbA==\x07", " ]52;c;ZXZpbA== "},
		{"\u009b31m", " 31m"},
		{"\u202Egnp.exe", "gnp.exe"},
		{"a\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061cb", "ab"},
		{"zero\u200b\u200c\u200dwidth\ufeff", "zerowidth"},
		{"nul\x00", "nul "},
		{"two\r\nlines\tand\x7fdel", "two  lines and del"},
		{"line\u2028sep\u2029para", "line sep para"},
		{"soft\u00adhyphen\u3164filler", "softhyphenfiller"},
		{"bad\xffutf8\xc3", "bad\ufffdutf8\ufffd"},
		{"\u0085next line", " next line"},
	}
	for _, c := range cases {
		if got := common.Sanitize(c.in); got != c.want {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSanitizeLinesKeepsOnlyTheLineBreaks(t *testing.T) {
	got := common.SanitizeLines("{\r\n  \"a\": \"\x1b]2;x\x07\u202e\"\n}")
	if want := "{\n  \"a\": \" ]2;x \"\n}"; got != want {
		t.Errorf("sanitizeLines = %q, want %q", got, want)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, p := range evilParts {
		f.Add(p)
	}
	f.Add(evil("all"))
	f.Add("Pão de queijo 🧀 ✓")
	f.Fuzz(func(t *testing.T, s string) {
		out := common.Sanitize(s)
		if r, bad := forbiddenIn(strings.ReplaceAll(out, "\n", "")); bad || strings.Contains(out, "\n") {
			t.Fatalf("sanitize(%q) = %q keeps %U", s, out, r)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("sanitize(%q) = %q is not UTF-8", s, out)
		}
		if again := common.Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
		if lines := common.SanitizeLines(s); strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("sanitizeLines(%q) = %q changed the line count", s, lines)
		}
	})
}

// evilStringer and evilStruct reach the log through fmt.Stringer and JSON.
type evilStringer struct{}

func (evilStringer) String() string { return evil("stringer") }

type evilStruct struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags"`
	Extra map[string]string `json:"extra"`
}

func TestSafeLogHandlerWritesNoControlText(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(common.SafeLogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log = log.With("profile", evil("profile")).WithGroup(evil("group"))
	log.Error(evil("status"),
		"text", evil("text"),
		evil("key"), 1,
		"err", fmt.Errorf("create charge: %w", &api.Error{HTTPStatus: 400, Message: evil("message"), TraceID: evil("trace")}),
		"plain", errors.New(evil("plain error")),
		"stringer", evilStringer{},
		"struct", evilStruct{Name: evil("name"), Tags: []string{evil("tag")}, Extra: map[string]string{evil("k"): evil("v")}},
		"bytes", []byte(evil("bytes")),
		slog.Group("nested", "payer", evil("payer"), slog.Group("deeper", "reason", evil("reason"))),
		"when", goldenNow, "n", 42,
	)
	out := buf.String()
	if r, bad := forbiddenIn(strings.TrimSuffix(out, "\n")); bad {
		t.Fatalf("the debug log carries %U:\n%q", r, out)
	}
	// JSON escapes control characters itself; a reader (jq -r) would turn them back: none may be there.
	for _, esc := range []string{`\u001b`, `\u0007`, `\u0000`, `\r`, `\u009b`, `\u202e`} {
		if strings.Contains(strings.ToLower(out), strings.ToLower(esc)) {
			t.Errorf("the debug log carries the escaped control %s:\n%s", esc, out)
		}
	}
	for _, want := range []string{`"msg":"status ]2;PWNED`, `"text":"text ]2;PWNED`, "message ]2;PWNED", "trace ]2;PWNED",
		"stringer ]2;PWNED", `"name":"name ]2;PWNED`, "payer ]2;PWNED", "reason ]2;PWNED", `"n":42`, "2026-11-21T14:30:00Z"} {
		if !strings.Contains(out, want) {
			t.Errorf("the debug log lost %q:\n%s", want, out)
		}
	}
	// The wrapper keeps the level filter of the handler it wraps.
	if common.SafeLogHandler(slog.NewJSONHandler(&buf, nil)).Enabled(context.Background(), slog.LevelDebug) {
		t.Error("a debug record passes an info handler")
	}
}

// evilSession is a session whose profile, wallet and notice, and whose stored charges,
// lookups and events carry escape sequences in every text field.
func evilSession(t *testing.T) (*Session, *evClock) {
	t.Helper()
	s, clk := evSession(t, true, api.ReceiverStats{Accepted: 3, Rejected: 1})
	s.Profile = evil("profile")
	s.Wallet = evil("wallet")
	s.Notice = evil("notice")
	s.WebhookURL = evil("http://127.0.0.1:8787/webhook")
	s.DefaultDescription = evil("Venda")
	wallet := s.Wallet
	paid := goldenNow.Add(-10 * time.Minute)
	e2e := evil("E2E")
	legs := []api.SplitItem{{SubAccount: evil("leg"), Amount: 100}}
	charges := []state.Charge{
		{ID: "evil-pending", Amount: 1234, Description: evil("desc"), ExternalReference: evil("ref"), Status: api.StatusPending,
			CreatedAt: goldenNow.Add(-time.Minute), ExpiresAt: goldenNow.Add(time.Hour), PixCopyPaste: goldenCode(t, 1234),
			Wallet: wallet, SplitRequested: legs, IdempotencyKey: evil("key")},
		{ID: "evil-badcode", Amount: 1234, Description: evil("desc"), Status: api.StatusPending, CreatedAt: goldenNow.Add(-2 * time.Minute),
			ExpiresAt: goldenNow.Add(time.Hour), PixCopyPaste: evil("000201"), Wallet: wallet},
		{ID: "evil-paid", Amount: 8990, Description: evil("desc"), ExternalReference: evil("ref"), Status: api.StatusCompleted,
			CreatedAt: goldenNow.Add(-20 * time.Minute), PaidAt: &paid, PayerName: evil("payer"), E2EID: evil("e2e"), Wallet: wallet,
			SplitRequested: legs, SplitDistributed: []api.SplitItem{{SubAccount: evil("leg"), Amount: 50}}, HasDistributed: true},
		{ID: "evil-failed", Amount: 2500, Description: evil("desc"), Status: api.StatusFailed, CreatedAt: goldenNow.Add(-30 * time.Minute),
			FailureReason: evil("failure"), Wallet: wallet, BlockedDeposit: &api.BlockedDeposit{Reason: evil("blocked"),
				Refund: &api.Refund{Status: api.RefundStatus(evil("refund")), E2EID: &e2e, SettledAt: &paid}}},
		{ID: "evil-status", Amount: 100, Description: evil("desc"), Status: api.TxStatus(evil("status")), CreatedAt: goldenNow.Add(-40 * time.Minute), Wallet: wallet},
	}
	for _, ch := range charges {
		ch.UpdatedAt = ch.CreatedAt
		if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Store.AddLookup(context.Background(), state.Lookup{Query: evil("query"), Wallet: evil("wallet"), Found: true, TxID: "evil-paid", At: goldenNow.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	j := func(label string) string { b, _ := json.Marshal(evil(label)); return string(b) } // C0 escaped, C1 and bidi raw
	payloads := []string{
		`{"eventId":` + j("evt-1") + `,"event":"payment_completed","subAccount":` + j("wallet") + `,"data":{"id":"evil-paid","transactionId":"evil-paid","externalReference":` + j("ref") +
			`,"status":"completed","amount":89.90,"feeAmount":0.99,"e2eId":` + j("e2e") + `,"counterpartName":` + j("payer") + `,"counterpartDocument":"52998224725","split":[{"subAccount":` + j("leg") + `,"amount":0.5}]}}`,
		`{"eventId":` + j("evt-2") + `,"event":"payment_failed","data":{"transactionId":"evil-failed","failureReason":` + j("failure") +
			`,"blockedDeposit":{"reason":` + j("blocked") + `,"refund":{"status":` + j("refund") + `,"e2eId":` + j("e2e") + `}}}}`,
		`{"eventId":` + j("evt-3") + `,"event":` + j("kind") + `,"data":{"note":` + j("note") + `,` + j("key") + `:1}}`,
		`{"eventId":` + j("evt-4") + `,"event":"withdrawal_failed","data":{"id":` + j("wd") + `,"status":` + j("status") + `,"failureReason":` + j("failure") + `}}`,
		`{"eventId":` + j("evt-5") + `,"event":"balance_block_created","data":{"id":` + j("blk") + `,"blockType":` + j("type") + `,"status":` + j("status") + `,"referenceNumber":` + j("ref") + `}}`,
		`{"eventId":` + j("evt-6") + `,"event":"withdrawal_completed","data":{"id":` + j("wd") + `,"counterpartName":` + j("payee") + `,"e2eId":` + j("e2e") + `}}`,
		`{"eventId":` + j("evt-7") + `,"event":"payment_expired","data":{"id":"evil-pending","externalReference":` + j("ref") + `,"amount":"bad` + strings.Repeat("\\u001b", 2) + `"}}`,
		`{"eventId":` + j("evt-8") + `,"event":"refund_completed","data":{"id":` + j("rf") + `,"transactionId":"evil-paid","amount":1}}`,
		`{"eventId":"evt-9\u202e","event":"payment_completed","data":{"transactionId":"evil-paid","counterpartName":"\u009b2J\u202eLiar"}}`,
	}
	for i, p := range payloads {
		clk.t = goldenNow.Add(time.Duration(i-len(payloads)) * time.Minute)
		if _, err := s.Store.ApplyEvent(context.Background(), decoded(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = goldenNow
	if err := s.Store.SetEventVerdict(context.Background(), strings.ToValidUTF8(evil("evt-1"), "\ufffd"), state.VerdictDisputed, evil("the service says pending")); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetEventVerdict(context.Background(), "evt-9\u202e", state.VerdictUnknown, evil("the service does not know it")); err != nil {
		t.Fatal(err)
	}
	return s, clk
}

// evilError is a refusal of the service whose every text carries escape sequences.
func evilError() error {
	return &api.Error{HTTPStatus: 403, Kind: api.KindForbidden, Code: evil("CODE"), Message: evil("message"), TraceID: evil("trace"), Path: evil("/path")}
}

// evilTx is a transaction whose every text field carries escape sequences.
func evilTx() *api.Transaction {
	at := goldenNow.Add(-time.Hour)
	e2e := evil("refund e2e")
	return &api.Transaction{
		ID: "evil-paid", Status: api.TxStatus(evil("status")), Type: api.TxType(evil("type")), PaymentMethod: api.PaymentMethod(evil("method")),
		Amount: 8990, Currency: evil("BRL"), Description: evil("description"), ExternalReference: evil("ref"), CustomerID: evil("customer"),
		ProjectID: evil("project"), Metadata: map[string]any{evil("key"): evil("value"), "nested": map[string]any{evil("k"): []any{evil("v"), 1.5}}},
		PixCopyPaste: evil("000201"), ExpiresAt: &at, PaidAt: &at, E2EID: evil("e2e"), CounterpartName: evil("counterpart"),
		CounterpartDocument: evil("529.982.247-25"), FailureReason: evil("failure"),
		BlockedDeposit: &api.BlockedDeposit{Reason: evil("blocked"), Refund: &api.Refund{Status: api.RefundStatus(evil("refund")), E2EID: &e2e, SettledAt: &at}},
		CreatedAt:      at, UpdatedAt: &at,
	}
}

// evilScreens drives a dashboard on the evil session through every view and returns each frame.
func evilScreens(t *testing.T, lang common.Lang, w, h int) map[string]string {
	t.Helper()
	s, _ := evilSession(t)
	profiles := []ProfileInfo{{Name: evil("loja"), Env: api.Sandbox}, {Name: evil("prod"), Env: api.Production}}
	open := func(context.Context, string) (*Session, error) { return nil, errors.New(evil("open")) }
	m := New(Options{Session: s, Lang: lang, CustomerLang: lang, Now: func() time.Time { return goldenNow }, Location: time.UTC,
		Profiles: profiles, OpenProfile: open})
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	settle(t, m, m.focusActive())
	frames := map[string]string{}
	shot := func(name string) { frames[name] = m.View() }
	keys := func(ks ...string) {
		for _, k := range ks {
			send(t, m, keyMsg(k))
		}
	}

	// Charges list, the status line (notice, then a service error) and the help.
	shot("charges")
	m.Update(common.StatusMsg{Text: m.describeError(evil("what"), evilError()), Kind: common.StatusError})
	shot("status_service_error")
	m.Update(common.StatusMsg{Text: m.describeError("load", errors.New(evil("transport"))), Kind: common.StatusError})
	shot("status_transport_error")
	keys("?")
	shot("help")
	keys("esc")

	// The customer screens: pending (valid code and refused code), paid, failed, unknown status.
	for _, id := range []string{"evil-pending", "evil-badcode", "evil-paid", "evil-failed", "evil-status"} {
		ch, ok := chargeByID(t, s.Store, id)
		if !ok {
			t.Fatalf("%s is not tracked", id)
		}
		m.Update(common.OpenChargeMsg{Charge: ch})
		m.Update(txMsg{gen: m.app.Gen, id: id, err: evilError()})
		shot("qr_" + id)
		keys("esc")
	}

	// Inspector: a found transaction (masked and revealed, scrolled), a refusal, the history.
	keys("2")
	shot("inspector_history")
	iv := m.panes[viewInspector].(*inspector.View)
	ch, _ := chargeByID(t, s.Store, "evil-pending")
	m.Update(reply(m, inspector.LookupMsg{Tag: m.app.Tag(), Seq: iv.Seq, Query: evil("query"), Wallet: evil("wallet"), Tx: evilTx(), Charge: ch, Tracked: true}))
	shot("inspector_tx")
	keys("v")
	shot("inspector_tx_revealed")
	for range 4 {
		m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	}
	shot("inspector_tx_end")
	m.Update(reply(m, inspector.LookupMsg{Tag: m.app.Tag(), Seq: iv.Seq, Query: evil("query"), Wallet: evil("wallet"), Err: evilError()}))
	shot("inspector_error")

	// Wallets: the list, balances, refusals, the picker and the create form refused.
	keys("3")
	wv := m.wallets()
	money := func(v api.Money) *api.Money { return &v }
	subs := []api.SubAccount{
		{ID: evil("id"), Reference: evil("loja"), Name: evil("name"), Status: api.SubAccountStatus(evil("status")), CreatedAt: goldenNow},
		{ID: "ok", Reference: "loja-ok", Name: evil("name ok"), Status: api.SubAccountActive, CreatedAt: goldenNow},
	}
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: subs}))
	for ref, r := range map[string]wallets.BalanceMsg{
		api.WalletPrincipal: {Acc: &api.Account{Status: api.AccountStatus(evil("acct")), Balance: api.AccountBalance{Available: money(100), Currency: evil("USD")}}},
		evil("loja"):        {Err: evilError()},
		"loja-ok":           {Err: &api.ValidationError{Problems: []api.FieldProblem{{Field: evil("field"), Msg: evil("invalid")}}}},
		evil("wallet"):      {Acc: &api.Account{Status: api.AccountApproved, Balance: api.AccountBalance{Total: money(1), Currency: evil("EUR")}}},
	} {
		r.Tag, r.Ref, r.Req = m.tagNow(), ref, wv.Bals[ref].Req
		m.Update(reply(m, r))
	}
	shot("wallets")
	for range len(wv.Rows) {
		keys("j")
		shot(fmt.Sprintf("wallets_row_%d", wv.Cursor))
	}
	keys("w")
	shot("wallet_picker")
	keys("esc")
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Err: evilError()}))
	shot("wallets_error")
	keys("c")
	m.Update(reply(m, wallets.CreatedMsg{Tag: m.tagNow(), Ref: evil("loja"), Err: evilError()}))
	shot("wallets_create_refused")
	keys("esc")

	// Balance blocks, then a refusal.
	keys("4")
	bv := blocksOf(m)
	resolved := goldenNow
	blockList := []api.BalanceBlock{{ID: evil("b1"), TransactionID: evil("tx"), Amount: 100, Status: api.BlockStatus(evil("status")),
		BlockType: evil("type"), ReferenceNumber: evil("ref"), Reason: evil("reason"), ExternalReference: evil("ext"), E2EID: evil("e2e"),
		ResolutionReason: evil("resolution"), ResolvedAt: &resolved, CreatedAt: goldenNow}}
	m.Update(reply(m, blocks.Msg{Tag: m.app.Tag(), Seq: bv.Seq, Status: bv.FilterStatus(), List: &api.BalanceBlockList{Items: blockList, Total: 1}}))
	shot("blocks")
	m.Update(reply(m, blocks.Msg{Tag: m.app.Tag(), Seq: bv.Seq, Status: bv.FilterStatus(), Err: evilError()}))
	shot("blocks_error")

	// Events: the list, filtered, and every payload (masked, then revealed).
	keys("5")
	shot("events")
	keys("t", "W")
	shot("events_filtered")
	keys("esc")
	ev := m.panes[viewEvents].(*events.View)
	if ev.Win.Len() != 9 {
		t.Fatalf("the events view lists %d events, want the 9 stored", ev.Win.Len())
	}
	for i := range ev.Win.Len() {
		ev.Cursor = i
		keys("enter")
		shot(fmt.Sprintf("event_%d_payload", i))
		keys("v", "G")
		shot(fmt.Sprintf("event_%d_payload_revealed", i))
		keys("esc")
	}

	// The new-charge form: projects, a refusal, the split builder with the service's refusal.
	keys("1", "n")
	m.Update(reply(m, common.ProjectsMsg{Tag: m.tagNow(), Items: []api.Project{{ID: evil("p1"), Name: evil("project")}, {ID: "p2", Name: evil("other")}}}))
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyRight})
	shot("form_project")
	if formOf(m) != nil {
		m.Update(chargeCreatedMsg{tag: m.tagNow(), draft: newcharge.ChargeDraft{Key: formOf(m).Key}, err: evilError()})
	}
	shot("form_refused")
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlP})
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlN})
	m.Update(tea.KeyMsg{Type: tea.KeyRight})
	shot("split_builder")
	if formOf(m) != nil {
		m.Update(chargeCreatedMsg{tag: m.tagNow(), draft: newcharge.ChargeDraft{Key: formOf(m).Key}, err: &api.Error{HTTPStatus: 400, Kind: api.KindBadRequest,
			Message: evil("split refused"), TraceID: evil("trace")}})
	}
	shot("split_refused")
	keys("esc")
	keys("esc")

	// The profile picker, and a profile that fails to open.
	keys("P")
	shot("profile_picker")
	keys("esc")
	m.Update(profileOpenedMsg{name: evil("loja"), err: errors.New(evil("open"))})
	shot("profile_failed")
	return frames
}

// TestNoEscapeSequenceReachesTheScreen feeds escape sequences, C1 controls and bidi overrides
// through every text field of every view (service replies, webhooks, the local store, the
// config) and finds none of them in what is drawn.
func TestNoEscapeSequenceReachesTheScreen(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, size[0], size[1]), func(t *testing.T) {
				frames := evilScreens(t, lang, size[0], size[1])
				if len(frames) < 40 {
					t.Fatalf("only %d frames rendered", len(frames))
				}
				for name, f := range frames {
					if name != "wallet_picker" && name != "profile_picker" && strings.Contains(f, "enter chooses") {
						t.Errorf("%s: a picker left open hides the view:\n%s", name, f)
					}
					if r, bad := forbiddenIn(withoutSelection(f)); bad {
						i := strings.IndexRune(f, r)
						t.Errorf("%s: %U reaches the terminal near %q", name, r, f[max(i-40, 0):min(i+40, len(f))])
					}
					if lines := strings.Split(f, "\n"); len(lines) > size[1] {
						t.Errorf("%s: %d lines > %d", name, len(lines), size[1])
					}
				}
				// The texts are still there, flattened: the attack is shown, not obeyed.
				for name, want := range map[string]string{
					"qr_evil-paid":   "payer ]2;PWNED  [5;41mBLINK ]52;c;ZXZpbA==  31mgnp.exe",
					"qr_evil-failed": "failure ]2;PWNED",
					"charges":        "desc ]2;PWNED",
				} {
					if !strings.Contains(frames[name], want) {
						t.Errorf("%s lacks %q:\n%s", name, want, frames[name])
					}
				}
			})
		}
	}
}
