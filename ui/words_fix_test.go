package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/refund"
	"pixdash/ui/wallets"
	"pixdash/ui/withdrawal"
)

// noEnglish fails the test for every line of out with an English word (englishRE).
func noEnglish(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if loc := englishRE.FindStringIndex(line); loc != nil {
			t.Errorf("%s shows English %q in: %s", name, strings.TrimSpace(line[loc[0]:loc[1]]), strings.TrimSpace(line))
		}
	}
}

// The errors raised on this side reach a Portuguese screen in Portuguese: a request the api
// package refused before sending it (the Wallets view's balance line), the workflows' local
// refusals quoted by the withdrawal and refund forms, the database check's findings, and every
// refusal of api.ParseBRL.
func TestPortugueseLocalErrorsShowNoEnglish(t *testing.T) {
	pt := common.Catalog{Lang: common.LangPT}

	// The Wallets view: a reference the client refuses to put in X-Sub-Account.
	s := goldenSession(t, api.Sandbox)
	m := New(Options{Session: s, Lang: common.LangPT, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(runeKey("3"))
	wv := m.wallets()
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{{Reference: "loja-centro", Name: "Loja Centro", Status: api.SubAccountApproved}}}))
	bad := api.ValidateWallet("Loja Centro")
	ve := &api.ValidationError{Problems: []api.FieldProblem{{Field: api.FieldSubAccountHeader, Msg: api.FieldSubAccountHeader + ": " + bad.Error()}}}
	b := wv.Bals["loja-centro"]
	if b == nil {
		t.Fatal("no balance request for loja-centro")
	}
	m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: "loja-centro", Req: b.Req, Err: ve}))
	for i := 0; i < len(wv.Rows); i++ {
		if r, ok := wv.SelectedLine(); ok && r.Ref == "loja-centro" {
			break
		}
		m.Update(runeKey("j"))
	}
	screen := ansi.Strip(m.View())
	if !strings.Contains(screen, "só pode ter letras minúsculas") {
		t.Errorf("the balance line does not explain the reference in Portuguese:\n%s", screen)
	}
	noEnglish(t, "wallets", strings.NewReplacer("Loja Centro", "", "X-Sub-Account", "").Replace(screen))

	// The withdrawal form's "Not sent" and the refund form's refusals.
	short := workflow.BalanceShort{Need: 5000, Spendable: 1200}
	badReq := workflow.CheckWithdrawal(workflow.WithdrawalOrder{Req: api.CreateWithdrawalRequest{}})
	diskFull := fmt.Errorf("recording the withdrawal before sending it (nothing was sent): %w", state.ErrDiskFull)
	damage := &state.DamageError{File: "/home/loja/.local/state/pixdash/loja.db", Problems: []string{
		"index charges_paid lists 8 paid charges where there are 36",
		"table events cannot be read (database disk image is malformed)",
	}}
	for name, err := range map[string]error{
		"withdrawal read-only":   workflow.ErrWithdrawalReadOnly,
		"withdrawal no balance":  workflow.ErrWithdrawalNoBalance,
		"withdrawal no key":      workflow.ErrWithdrawalNoKey,
		"withdrawal short":       short,
		"withdrawal bad request": badReq,
		"withdrawal disk full":   diskFull,
		"refund partial":         workflow.ErrRefundPartial,
		"refund long reason":     workflow.ErrRefundLongReason,
		"refund no key":          workflow.ErrRefundNoKey,
		"validation":             ve,
	} {
		wf := withdrawal.NewWithdrawalForm(m.c, api.WalletPrincipal, nil, goldenNow)
		wf.OnDone(workflow.WithdrawalOutcome{Kind: workflow.WithdrawalRefused, Err: err})
		if !strings.HasPrefix(wf.Result, "Não enviado: ") {
			t.Errorf("%s: %q", name, wf.Result)
		}
		noEnglish(t, "withdrawal form, "+name, strings.ReplaceAll(wf.Result, "X-Sub-Account", ""))
		why := refund.WhyNot(pt, state.Charge{ID: "c1", Amount: 1000, Status: api.StatusCompleted}, err)
		noEnglish(t, "refund, "+name, strings.ReplaceAll(why, "X-Sub-Account", ""))
	}
	if got := common.LocalError(pt, short); got != "o saque leva R$ 50,00 e o saldo disponível é R$ 12,00" {
		t.Errorf("short: %q", got)
	}

	// The database check's findings, inside the Portuguese warning.
	d := common.LocalError(pt, damage)
	for _, want := range []string{"o índice charges_paid lista 8 cobranças pagas, mas há 36", "a tabela events não pode ser lida"} {
		if !strings.Contains(d, want) {
			t.Errorf("damage detail %q lacks %q", d, want)
		}
	}
	noEnglish(t, "damage", strings.ReplaceAll(d, "tabela events", "")) // a table's name
	if en := common.LocalError(common.Catalog{Lang: common.LangEN}, damage); en != damage.Error() {
		t.Errorf("English damage detail changed: %q", en)
	}

	// Every refusal of api.ParseBRL.
	for _, in := range []string{"", "abc", "R$", ",", ".", "1,234.56", ".,", "1.", "-", "1.234.56", "1,2,3", "12.34.567", "1,234", "99999999999999999999", "1.2.3,4", "R$ 1,2x"} {
		_, err := api.ParseBRL(in)
		if err == nil {
			continue
		}
		msg := common.AmountError(pt, err).Error()
		t.Logf("%q: %s", in, msg)
		noEnglish(t, fmt.Sprintf("amount %q", in), msg)
		if errors.Is(err, api.ErrMoneyFormat) && msg == err.Error() && !strings.ContainsAny(msg, "ãçé") {
			t.Errorf("amount %q: untranslated %q", in, msg)
		}
	}
}
