package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/api/i18n"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
	"pixdash/ui/refund"
	"pixdash/ui/withdrawal"
)

// Issue 21 #14: confirmations answer to the language's yes: in pt-BR "(s/N)" and s (or y) is
// yes; in English "(y/N)" and s is no.
func TestConfirmYesKeyPerLanguage(t *testing.T) {
	for _, tc := range []struct {
		lang    common.Lang
		key     string
		discard bool
		shows   string
	}{
		{common.LangPT, "s", true, "(s/N)"},
		{common.LangPT, "S", true, "(s/N)"},
		{common.LangPT, "y", true, "(s/N)"},
		{common.LangPT, "n", false, "(s/N)"},
		{common.LangEN, "y", true, "(y/N)"},
		{common.LangEN, "s", false, "(y/N)"},
	} {
		t.Run(fmt.Sprintf("%s_%s", tc.lang, tc.key), func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), tc.lang)
			walletsType(m, "12,34")
			keyPress(t, m, tea.KeyMsg{Type: tea.KeyEsc})
			screen := ansi.Strip(m.View())
			if !strings.Contains(screen, tc.shows) {
				t.Fatalf("the question does not say %s:\n%s", tc.shows, screen)
			}
			if tc.lang == common.LangPT && (strings.Contains(screen, "(y/N)") || !strings.Contains(screen, "s confirma") || !strings.Contains(screen, "s sim")) {
				t.Fatalf("pt-BR question speaks of y:\n%s", screen)
			}
			keyPress(t, m, runeKey(tc.key))
			if discarded := formOf(m) == nil; discarded != tc.discard {
				t.Fatalf("%q: discarded = %v, want %v", tc.key, discarded, tc.discard)
			}
		})
	}
	// Every pt-BR question of the catalog says (s/N).
	ptTable := i18n.IDs(common.LangPT)
	for id, en := range i18n.IDs(common.LangEN) {
		if pt := ptTable[id]; strings.Contains(en.Other, "(y/N)") && !strings.Contains(pt.Other, "(s/N)") {
			t.Errorf("%s: %q → %q: not (s/N)", id, en.Other, pt.Other)
		}
	}
}

// Issue 21 #14: the service's English messages are translated when known, quoted after a
// Portuguese sentence when not; its Portuguese ones are kept; the trace id stays.
func TestServiceMessagesInPortuguese(t *testing.T) {
	pt, en := common.Catalog{Lang: common.LangPT}, common.Catalog{Lang: common.LangEN}
	for _, tc := range []struct{ in, want string }{
		{"amount must not be greater than 9999999999.99", "O valor não pode ser maior que 9.999.999.999,99"},
		{"amount must not be less than 1", "O valor não pode ser menor que 1"},
		{"description should not be empty", "A descrição não pode ficar em branco"},
		{"description must be shorter than or equal to 255 characters", "A descrição deve ter no máximo 255 caracteres"},
		{"expiresIn must not be less than 300", "A validade (expiresIn) não pode ser menor que 300"},
		{"split.1.amount must not be less than 0.01", "O valor da parte 2 do split não pode ser menor que 0,01"},
		{"Transaction already refunded", "A transação já foi estornada"},
		{"Insufficient balance: spendable 52.53, required 89.90", "Saldo insuficiente: disponível 52,53, necessário 89,90"},
		{"Transaction not found", "Transação não encontrada"},
		{"amount is required; description should not be empty", "Falta o valor; A descrição não pode ficar em branco"},
		// Already Portuguese (the real service writes some so): kept.
		{"reference 'loja-centro' ja usado nesta conta", "reference 'loja-centro' ja usado nesta conta"},
		{"A soma do split (R$ 95,00) excede o valor líquido", "A soma do split (R$ 95,00) excede o valor líquido"},
		// Unknown English: quoted after a Portuguese sentence.
		{"Something unexpected about the PSP", "O serviço respondeu: Something unexpected about the PSP"},
	} {
		if got := common.ServiceMessage(pt, tc.in); got != tc.want {
			t.Errorf("pt %q = %q, want %q", tc.in, got, tc.want)
		}
		if got := common.ServiceMessage(en, tc.in); got != tc.in {
			t.Errorf("en %q = %q, want it unchanged", tc.in, got)
		}
	}
	err := &api.Error{HTTPStatus: 400, Kind: "BadRequest", Message: "amount must not be greater than 9999999999.99", TraceID: "0123456789abcdef0123456789abcdef"}
	got := common.DescribeErr(pt, "Criar cobrança", err)
	if !strings.Contains(got, "O valor não pode ser maior que 9.999.999.999,99") || !strings.Contains(got, "[trace 0123456789abcdef0123456789abcdef]") || strings.Contains(got, "must not") {
		t.Errorf("describeErr in pt-BR = %q", got)
	}
	err.Message = "Weird new failure"
	if got := common.DescribeErr(pt, "Criar cobrança", err); !strings.Contains(got, "O serviço respondeu: Weird new failure [trace 0123456789abcdef0123456789abcdef]") {
		t.Errorf("unknown message in pt-BR = %q", got)
	}
	if got := common.DescribeErr(en, "create charge", err); !strings.Contains(got, "create charge: Weird new failure [trace") || strings.Contains(got, "respondeu") {
		t.Errorf("unknown message in English = %q", got)
	}
}

// Issue 21 #14: an amount the form cannot read is explained in Portuguese, next to the field.
func TestAmountErrorsInPortuguese(t *testing.T) {
	m := formModel(t, goldenSession(t, api.Sandbox), common.LangPT)
	walletsType(m, "1,234")
	keyPress(t, m, tea.KeyMsg{Type: tea.KeyCtrlS})
	line := formLine(t, ansi.Strip(m.View()), "Valor")
	if !strings.Contains(line, `"1,234" tem mais de 2 casas decimais`) || strings.Contains(line, "decimal places") {
		t.Fatalf("amount error: %q", line)
	}
}

// englishRE finds English words that have no business on a Portuguese screen.
var englishRE = regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}_])(the|and|of|with|receives|online|offline|token|must|should|greater|required|nothing|wallet|wallets|charge|charges|payment|refund|refunded|withdrawal|press|yes|quit|another|kept|fee|amount|type|events?|places|than|has)($|[^\p{L}\p{N}_])`)

// hexIDRE matches an id or the start of one (a UUID, or its first 8 digits before "…").
var hexIDRE = regexp.MustCompile(`(?i)[0-9a-f]{8}(-[0-9a-f]{4}){0,3}(-[0-9a-f]{1,12})?`)

// Issue 21 #14: no English on Portuguese screens: every view, the forms, the questions, the
// header and the light; and no event kind by its wire name.
func TestPortugueseScreensShowNoEnglish(t *testing.T) {
	sc := newPtbrScene(t)
	sc.s.Notice = "Another pixdash receives this profile's webhooks; this window shows the events it saves, and takes over when that one quits."
	m := New(Options{Session: sc.s, Lang: common.LangPT, CustomerLang: common.LangPT, Bell: func() {}, Clipboard: func(string) {}, Location: time.UTC})
	drive(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	runCmds(t, m, m.Init())
	m.link.status = linkOnline
	m.link.token = api.TokenState{Cached: true, Expiry: time.Now().Add(297 * time.Second)}
	screens := map[string]string{}
	shot := func(name string) { screens[name] = ansi.Strip(m.View()) }
	key := func(k tea.KeyMsg) { drive(t, m, k) }
	typed := func(s string) {
		for _, r := range s {
			key(runeKey(string(r)))
		}
	}
	esc := tea.KeyMsg{Type: tea.KeyEsc}

	shot("charges")
	key(runeKey("2"))
	drive(t, m, common.InspectMsg{Query: sc.splitChargeRef, Wallet: api.WalletPrincipal})
	shot("inspector")
	key(tea.KeyMsg{Type: tea.KeyEnd})
	shot("inspector_end")
	key(runeKey("R")) // the scene's charge went back in part: R says why not, in Portuguese
	shot("refund_refused")
	whole := sc.paid // the form and its question on a charge whose money is all still there
	whole.Refunded, whole.RefundedAt, whole.Block = 0, nil, nil
	m.push(refund.NewRefundForm(m.c, whole))
	shot("refund_form")
	key(tea.KeyMsg{Type: tea.KeyCtrlS})
	shot("refund_question")
	key(esc)
	key(esc)
	key(runeKey("3"))
	shot("wallets")
	key(runeKey("c"))
	typed("ab")
	shot("sub_account_form")
	key(esc)
	shot("sub_account_discard")
	key(runeKey("n"))
	key(esc)
	key(runeKey("s")) // yes: the sub-account form goes
	key(runeKey("s")) // the withdrawal form
	typed("maria@example.com")
	key(tea.KeyMsg{Type: tea.KeyCtrlS})
	shot("withdrawal_form")
	key(esc)
	shot("withdrawal_discard")
	key(runeKey("s"))
	key(runeKey("4"))
	shot("blocks")
	key(runeKey("5"))
	drive(t, m, common.StoreChangedMsg{Gen: m.app.Gen, Charges: true, Events: true})
	shot("events")
	key(runeKey("t"))
	shot("events_kind_filter")
	key(esc)
	key(runeKey("6"))
	shot("sales")
	key(runeKey("C"))
	shot("close")
	key(esc)
	key(runeKey("?"))
	shot("help")
	key(esc)
	key(runeKey("w"))
	shot("wallet_picker")
	key(esc)
	key(runeKey("1"))
	key(runeKey("n"))
	typed("1,234")
	key(tea.KeyMsg{Type: tea.KeyCtrlS})
	shot("new_charge_error")
	key(esc)
	shot("new_charge_discard")
	key(runeKey("s"))
	drive(t, m, common.OpenChargeMsg{Charge: sc.pending})
	key(tea.KeyMsg{Type: tea.KeyCtrlC})
	shot("quit_question")

	if testing.Verbose() {
		for name, out := range screens {
			t.Logf("===== %s\n%s", name, out)
		}
	}
	rawKinds := make([]*regexp.Regexp, 0, len(api.EventKinds))
	for _, k := range api.EventKinds {
		rawKinds = append(rawKinds, wordRE(string(k)))
	}
	for name, out := range screens {
		// The sandbox's own texts (descriptions, payer names, the receiver's URL) are data.
		// Ids are random hex: "32fee5e2-…" is not the English "fee".
		clean := strings.NewReplacer("Coffee break", "", "/webhook", "").Replace(out)
		clean = hexIDRE.ReplaceAllString(clean, "")
		for _, line := range strings.Split(clean, "\n") {
			if loc := englishRE.FindStringIndex(line); loc != nil {
				t.Errorf("%s shows English %q in: %s", name, strings.TrimSpace(line[loc[0]:loc[1]]), strings.TrimSpace(line))
			}
		}
		for _, re := range rawKinds {
			if re.MatchString(out) {
				t.Errorf("%s shows an event kind by its wire name %s", name, re)
			}
		}
	}
	for name, want := range map[string]string{
		"charges": "● conectado", "events": "pagamento recebido", "events_kind_filter": "tipo: pagamento recebido",
		"inspector": "recebimento", "inspector_end": "Estornos", "refund_question": "(s/N)", "refund_refused": "estornada", "quit_question": "(s/N)",
	} {
		if !strings.Contains(screens[name], want) {
			t.Errorf("%s lacks %q:\n%s", name, want, screens[name])
		}
	}
}

// Issue 21 #14: every event kind and transaction type has a human label in both languages.
// The English finder catches a word beside a digit-free edge, and not the same letters inside
// a random id (CI once failed on "32fee5e2-…").
func TestEnglishFinderIgnoresIds(t *testing.T) {
	for line, want := range map[string]bool{
		"tarifa fee R$ 1,00": true, "(fee)": true, "32fee5e2-9cf8-44fa-bd47-71149b609edc": false,
		"32fee5e2…  pago": false, "a-fee0-b": false, "fee-5": true,
	} {
		got := englishRE.MatchString(hexIDRE.ReplaceAllString(line, ""))
		if got != want {
			t.Errorf("%q: English found = %v, want %v", line, got, want)
		}
	}
}

func TestEventKindsHaveLabels(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		tr := common.Catalog{Lang: lang}
		seen := map[string]api.EventKind{}
		for _, k := range api.EventKinds {
			got := tr.Enum(k)
			if got == string(k) || strings.Contains(got, "_") {
				t.Errorf("%s: %s is shown as %q", lang, k, got)
			}
			if other, dup := seen[got]; dup {
				t.Errorf("%s: %s and %s share the label %q", lang, k, other, got)
			}
			seen[got] = k
		}
	}
	if got := (common.Catalog{Lang: common.LangEN}).Enum(api.TypePayment); got == string(api.TypePayment) {
		t.Errorf("English type payment is the wire value %q", got)
	}
	// A kind the spec does not name is shown as it came.
	if got := (common.Catalog{Lang: common.LangPT}).Enum(api.EventKind("pix_refund_partial")); got != "pix_refund_partial" {
		t.Errorf("unknown kind = %q", got)
	}
}

// keys presses each key and hands every message its commands return back to m (status
// messages included, which press drops).
func keys(t *testing.T, m *Model, ks ...string) {
	t.Helper()
	for _, k := range ks {
		keyPress(t, m, keyMsg(k))
	}
}

// Issue 21 #15: a key's answer ("Only paid charges can be refunded…", "already refunded") goes
// when the merchant moves on: another form opens, another view, or its lifetime ends.
func TestStatusAnswersGoWhenTheMerchantMovesOn(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	now := goldenNow
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return now }, Location: time.UTC})
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	settle(t, m, m.focusActive())

	// Every wallet: the pending charge first, then the paid one (loja-sul).
	keys(t, m, "a")
	// R on the pending charge says why not; R on the paid one opens its form, and the answer
	// about the other charge goes.
	keys(t, m, "R")
	if !strings.Contains(m.status.Text, "Only paid charges can be refunded") {
		t.Fatalf("status after R on a pending charge = %q", m.status.Text)
	}
	keys(t, m, "j", "R")
	if _, open := common.Find[*refund.Form](m.overlays); !open {
		t.Fatal("R on the paid charge did not open the form")
	}
	if m.status.Text != "" {
		t.Fatalf("the answer about another charge stays over the form: %q", m.status.Text)
	}
	keys(t, m, "esc")

	// Refunded from pixdash: R says so, and the answer goes with a view switch…
	ch := paidGoldenCharge(t, m)
	if _, err := s.Store.PutRefund(t.Context(), state.Refund{ChargeID: ch.ID, Wallet: ch.Wallet, Key: "k", Amount: ch.Amount, State: state.RefundPending}); err != nil {
		t.Fatal(err)
	}
	keys(t, m, "R")
	if !strings.Contains(m.status.Text, "already refunded") {
		t.Fatalf("status after R on a refunded charge = %q", m.status.Text)
	}
	keys(t, m, "2")
	if m.status.Text != "" {
		t.Fatalf("the answer followed the merchant to the inspector: %q", m.status.Text)
	}
	// …or by itself after statusLifetime, though it is a warning.
	keys(t, m, "1", "R")
	if m.status.Text == "" {
		t.Fatal("no answer")
	}
	now = now.Add(common.StatusLifetime + time.Second)
	m.onTick(now)
	if m.status.Text != "" {
		t.Fatalf("the answer outlived its lifetime: %q", m.status.Text)
	}
	// A real problem (an error without an owner) still stays until replaced.
	m.setStatus("the service is down", common.StatusError)
	keys(t, m, "2")
	now = now.Add(time.Hour)
	m.onTick(now)
	if m.status.Text == "" {
		t.Fatal("an error went with a view switch")
	}
}

// Issue 21 #19: esc on a filled sub-account form asks (the charge form's guard); n keeps it,
// y discards it; an empty one closes at once.
func TestEscAsksOnAFilledSubAccountForm(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		t.Run(string(lang), func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			press(t, m, "3", "c")
			wv := m.wallets()
			if wv.Form == nil {
				t.Fatal("c did not open the form")
			}
			press(t, m, "esc")
			if wv.Form != nil {
				t.Fatal("esc on an empty form did not close it")
			}
			press(t, m, "c")
			walletsType(m, "loja-nova")
			press(t, m, "esc")
			if wv.Form == nil {
				t.Fatal("esc threw a filled sub-account form away without asking")
			}
			discard := map[common.Lang]string{common.LangEN: "Discard this sub-account?", common.LangPT: "Descartar esta subconta?"}[lang]
			if !strings.Contains(ansi.Strip(m.View()), discard) {
				t.Fatalf("no question:\n%s", ansi.Strip(m.View()))
			}
			press(t, m, "n")
			if wv.Form == nil || wv.Form.Ref.Value() != "loja-nova" {
				t.Fatal("n did not keep the form as typed")
			}
			yes := map[common.Lang]string{common.LangEN: "y", common.LangPT: "s"}[lang]
			press(t, m, "esc", yes)
			if wv.Form != nil {
				t.Fatal("yes did not discard the form")
			}
		})
	}
}

// Issue 21 #19: esc on a filled withdrawal form asks too; an empty one closes at once.
func TestEscAsksOnAFilledWithdrawalForm(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	open := func() *withdrawal.Form {
		bal := api.Money(10000)
		settle(t, m, m.push(withdrawal.NewWithdrawalForm(m.c, api.WalletPrincipal, &bal, goldenNow)))
		f, ok := common.Find[*withdrawal.Form](m.overlays)
		if !ok {
			t.Fatal("no withdrawal form")
		}
		return f
	}
	open()
	press(t, m, "esc")
	if _, ok := common.Find[*withdrawal.Form](m.overlays); ok {
		t.Fatal("esc on an empty withdrawal form did not close it")
	}
	f := open()
	walletsType(m, "maria@example.com")
	press(t, m, "esc")
	if _, ok := common.Find[*withdrawal.Form](m.overlays); !ok {
		t.Fatal("esc threw a filled withdrawal form away without asking")
	}
	if !strings.Contains(ansi.Strip(m.View()), "Discard this withdrawal?") {
		t.Fatalf("no question:\n%s", ansi.Strip(m.View()))
	}
	press(t, m, "n")
	if f.Inputs[withdrawal.WfKey].Value() != "maria@example.com" {
		t.Fatal("n did not keep the form as typed")
	}
	press(t, m, "esc", "y")
	if _, ok := common.Find[*withdrawal.Form](m.overlays); ok {
		t.Fatal("y did not discard the form")
	}
}

// Issue 21 #19: the refund form shows the amount as fixed text: typing goes to the reason and
// never changes the amount.
func TestRefundAmountIsFixed(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	settle(t, m, m.push(refund.NewRefundForm(m.c, paidGoldenCharge(t, m))))
	f := topRefundForm(t, m)
	press(t, m, "backspace", "backspace", "tab", "shift+tab", "up", "backspace")
	walletsType(m, "troca")
	if got := f.Inputs[refund.RfAmount].Value(); got != "89,90" {
		t.Fatalf("the amount changed to %q", got)
	}
	if got := f.Inputs[refund.RfReason].Value(); got != "troca" {
		t.Fatalf("reason = %q, want what was typed", got)
	}
	if line := formLine(t, ansi.Strip(m.View()), "Amount"); !strings.Contains(line, "R$ 89,90 (the whole amount)") {
		t.Fatalf("amount line: %q", line)
	}
}

// Issue 21 #19: a read-only profile says so in the header and its empty lists do not invite
// to create.
func TestReadOnlyProfileSaysSo(t *testing.T) {
	for _, tc := range []struct {
		lang         common.Lang
		badge, empty string
	}{
		{common.LangEN, "READ-ONLY", "This profile is read-only"},
		{common.LangPT, "SÓ LEITURA", "Este perfil é somente leitura"},
	} {
		s := goldenSession(t, api.Sandbox)
		s.ReadOnly = true
		m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
		send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		settle(t, m, m.focusActive())
		out := ansi.Strip(m.View())
		header := strings.SplitN(out, "\n", 2)[0]
		if !strings.Contains(header, tc.badge) || !strings.Contains(header, "principal") {
			t.Errorf("%s: header without %q or the whole wallet: %q", tc.lang, tc.badge, header)
		}
		if strings.Contains(out, "Press n") || strings.Contains(out, "Pressione n") || !strings.Contains(out, tc.empty) {
			t.Errorf("%s: empty list:\n%s", tc.lang, out)
		}
		press(t, m, "3")
		wv := m.wallets()
		wv.Loading, wv.Loaded, wv.Subs = false, true, nil
		if out := ansi.Strip(m.View()); strings.Contains(out, "Press c") || strings.Contains(out, "Pressione c") || !strings.Contains(out, tc.empty) {
			t.Errorf("%s: empty sub-account list:\n%s", tc.lang, out)
		}
	}
	// A profile that may write keeps the invitation and no badge.
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 80, 24)
	if out := ansi.Strip(m.View()); strings.Contains(out, "READ-ONLY") || !strings.Contains(out, "Press n to create one") {
		t.Errorf("writable profile:\n%s", out)
	}
}

// Issue 21 #19: demo mode tells the truth: quitting stops the built-in emulator, so a pending
// charge cannot be paid afterwards, and the header does not claim that nothing is kept (w on
// the day's close and E write files).
func TestDemoQuitAndBadgeTellTheTruth(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		s := goldenSession(t, api.Sandbox)
		goldenCharges(t, s)
		s.Demo = true
		m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
		send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		header := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
		if strings.Contains(header, "nothing is kept") || strings.Contains(header, "nada é guardado") || !strings.Contains(header, "DEMO") || !strings.Contains(header, "carteira principal") && !strings.Contains(header, "wallet principal") {
			t.Errorf("%s: header %q", lang, header)
		}
		send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		ch, _ := chargeByID(t, s.Store, "3f6c1a2e-0000-4000-8000-000000000001")
		send(t, m, common.OpenChargeMsg{Charge: ch})
		qr, ok := m.qrScreen()
		if !ok {
			t.Fatal("no QR screen")
		}
		q := qr.QuitQuestion()
		bad := map[common.Lang]string{common.LangEN: "can still be paid", common.LangPT: "ainda pode ser paga"}[lang]
		good := map[common.Lang]string{common.LangEN: "cannot be paid after quitting", common.LangPT: "não poderá ser paga depois de sair"}[lang]
		if strings.Contains(q, bad) || !strings.Contains(q, good) {
			t.Errorf("%s: demo quit question %q", lang, q)
		}
	}
	// Outside the demo the charge stays payable, and the question says so.
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	ch, _ := chargeByID(t, s.Store, "3f6c1a2e-0000-4000-8000-000000000001")
	send(t, m, common.OpenChargeMsg{Charge: ch})
	if qr, ok := m.qrScreen(); !ok || !strings.Contains(qr.QuitQuestion(), "can still be paid after pixdash quits") {
		t.Error("the sandbox quit question changed")
	}
}

// Issue 21 #20: enter in the metadata field starts a new line (pairs may be separated by new
// lines), drawn under the field; enter elsewhere still moves on, and the pairs on every line
// are sent.
func TestMetadataEnterInsertsANewLine(t *testing.T) {
	m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	walletsType(m, "12,34")
	keyPress(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if f := formOf(m); f.Field != newcharge.FDescription {
		t.Fatalf("enter on the amount moved to field %d", f.Field)
	}
	for formOf(m).Field != newcharge.FMetadata {
		keyPress(t, m, tea.KeyMsg{Type: tea.KeyTab})
	}
	walletsType(m, "mesa=4")
	keyPress(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	walletsType(m, "garcom=João")
	keyPress(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	walletsType(m, "turno=noite")
	f := formOf(m)
	if got := f.Meta.Value(); got != "mesa=4\ngarcom=João\nturno=noite" || f.Field != newcharge.FMetadata {
		t.Fatalf("metadata = %q (field %d)", got, f.Field)
	}
	// Every line is drawn, each in the field's column.
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	col := -1
	for _, want := range []string{"mesa=4", "garcom=João", "turno=noite"} {
		found := false
		for _, l := range lines {
			if i := strings.Index(l, want); i >= 0 && !strings.Contains(l, "sends") {
				i = lipgloss.Width(l[:i])
				if col >= 0 && i != col {
					t.Errorf("%q starts at column %d, the field at %d:\n%s", want, i, col, strings.Join(lines, "\n"))
				}
				col, found = i, true
				break
			}
		}
		if !found {
			t.Errorf("%q is not drawn:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	d, status := submitted(t, m)
	if d == nil {
		t.Fatalf("not submitted: %s", status)
	}
	if got := d.Req.Metadata; got["mesa"] != "4" || got["garcom"] != "João" || got["turno"] != "noite" {
		t.Fatalf("metadata sent = %v", got)
	}
}
