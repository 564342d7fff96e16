package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/sales"
)

// dayCharges seeds the golden store with a shop's day (goldenNow is 21/11/2026 14:30 UTC):
// payments in three wallets with and without the service's fee, yesterday's sales before and
// after 14:30 (only the first counts in the comparison) and a refund received today.
//
// Today, by hand: principal 25,00 + 12,50 + 89,90 = 127,40 (3 paid, fees 0,99 + est. + 0,99);
// loja-sul 150,00 + 40,00 = 190,00 (2 paid, fee 0,99 + est.); loja-norte 60,00 (1 paid, fee
// 0,99). Total 377,40 in 6 payments; with pix_fee 0,99 the fees are 6 × 0,99 = 5,94 (2 of
// them estimated), net 371,46, average ticket 62,90. Yesterday until 14:30: 100,00.
// Refunded today: principal's 25,00.
func dayCharges(t testing.TB, s *Session) {
	t.Helper()
	at := func(h, m int) *time.Time {
		x := time.Date(2026, 11, 21, h, m, 0, 0, time.UTC)
		return &x
	}
	yday := func(h int) *time.Time {
		x := time.Date(2026, 11, 20, h, 0, 0, 0, time.UTC)
		return &x
	}
	fee := api.Money(99)
	paid := func(id, wallet, desc string, amount api.Money, when *time.Time, reported bool) state.Charge {
		c := state.Charge{ID: id, Wallet: wallet, Amount: amount, Description: desc, Status: api.StatusCompleted,
			CreatedAt: when.Add(-3 * time.Minute), PaidAt: when, UpdatedAt: *when}
		if reported {
			c.Fee = &fee
		}
		return c
	}
	rows := []state.Charge{
		paid("day-0001", api.WalletPrincipal, "Café da manhã", 2500, at(9, 10), true),
		paid("day-0002", api.WalletPrincipal, "Pão de queijo", 1250, at(11, 40), false),
		paid("day-0003", api.WalletPrincipal, "Bolo de fubá", 8990, at(13, 5), true),
		paid("day-0004", "loja-sul", "Encomenda", 15000, at(10, 20), true),
		paid("day-0005", "loja-sul", "Salgados", 4000, at(12, 30), false),
		paid("day-0006", "loja-norte", "Torta", 6000, at(8, 5), true),
		paid("day-0007", api.WalletPrincipal, "Ontem cedo", 10000, yday(10), true),
		paid("day-0008", api.WalletPrincipal, "Ontem tarde", 5000, yday(16), true),
		{ID: "day-0009", Wallet: api.WalletPrincipal, Amount: 1500, Description: "Pendente", Status: api.StatusPending,
			CreatedAt: *at(14, 20), ExpiresAt: *at(15, 20), UpdatedAt: *at(14, 20)},
		{ID: "day-0010", Wallet: "loja-sul", Amount: 700, Description: "Expirou", Status: api.StatusCancelled, Expired: true,
			CreatedAt: *at(7, 0), ExpiresAt: *at(8, 0), UpdatedAt: *at(8, 0)},
	}
	ctx := context.Background()
	for _, ch := range rows {
		if _, err := s.Store.UpsertCharge(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := api.DecodeEvent([]byte(`{"event":"refund_completed","eventId":"evt-refund-1","createdAt":"2026-11-21T13:30:00Z",` +
		`"data":{"id":"ref-1","transactionId":"day-0001","amount":25.00,"netAmount":25.00,"feeAmount":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.ApplyEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	// The service confirmed the refund line (the read-back the dashboard does).
	if err := s.Store.SetEventVerdict(ctx, "evt-refund-1", state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	s.PixFee, s.HasPixFee = 99, true
}

// dayModel is the dashboard on the day view with the seeded day.
func dayModel(t *testing.T, lang common.Lang, w, h int) *Model {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	dayCharges(t, s)
	m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	settle(t, m, m.focusActive())
	send(t, m, runeKey("6"))
	return m
}

func TestDayTotalsOnScreen(t *testing.T) {
	m := dayModel(t, common.LangEN, 120, 40)
	v := m.panes[viewDay].(*sales.DayView)
	if !v.Loaded {
		t.Fatal("the day view did not read its figures")
	}
	// The active wallet (principal): 127,40 in 3 payments, fees 2 × 0,99 reported + 1 estimated.
	got := v.Report.Total
	if got.Gross != 12740 || got.Paid != 3 || got.Fees != 297 || got.FeesEstimated != 1 || got.Refunded != 1 || got.RefundedAmount != 2500 {
		t.Fatalf("principal today = %+v", got)
	}
	if v.Report.Previous.Gross != 10000 {
		t.Fatalf("yesterday until 14:30 = %v, want R$ 100,00 (the 16:00 sale does not count)", v.Report.Previous.Gross)
	}
	screen := m.View()
	for _, want := range []string{"Today · 21/11/2026", "Received R$ 127,40", "fees R$ 2,97 (1 estimated)", "net R$ 99,43", // after the refund of R$ 25,00
		"payments 3", "avg ticket R$ 42,46", "vs yesterday until 14:30: R$ 100,00 +27%", "refunded 1 (R$ 25,00)", "charges known to this profile"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the day view lacks %q:\n%s", want, screen)
		}
	}

	// a: every wallet, with the per-wallet table.
	send(t, m, runeKey("a"))
	got = v.Report.Total
	if got.Gross != 37740 || got.Paid != 6 || got.Fees != 594 || got.FeesEstimated != 2 || got.AverageTicket() != 6290 {
		t.Fatalf("all wallets today = %+v", got)
	}
	screen = m.View()
	for _, want := range []string{"all wallets", "Received R$ 377,40", "net R$ 346,46", "WALLET", "loja-norte", "loja-sul", "R$ 190,00", "total"} {
		if !strings.Contains(screen, want) {
			t.Errorf("all wallets lacks %q:\n%s", want, screen)
		}
	}
	if !strings.Contains(m.status.Text, "new charges still go to wallet principal") {
		t.Errorf("status after a = %q", m.status.Text)
	}
	// The charges list follows the scope, and a new charge still goes to the active wallet.
	send(t, m, runeKey("1"))
	if q := m.charges.Query(); q.Wallet != "" {
		t.Fatalf("charges query in all-wallets scope = %+v", q)
	}
	if !strings.Contains(m.View(), "all wallets") {
		t.Errorf("the charges list does not say it shows all wallets:\n%s", m.View())
	}
	send(t, m, runeKey("n"))
	if f := formOf(m); f == nil || f.Wallet != api.WalletPrincipal {
		t.Fatalf("the new-charge form in all-wallets scope writes to %v, want principal", f)
	}
}

func TestDayPeriods(t *testing.T) {
	m := dayModel(t, common.LangEN, 120, 40)
	v := m.panes[viewDay].(*sales.DayView)
	send(t, m, runeKey("["))
	if !strings.Contains(m.View(), "Yesterday · 20/11/2026") || v.Report.Total.Gross != 15000 {
		t.Fatalf("[ did not show yesterday (gross %v):\n%s", v.Report.Total.Gross, m.View())
	}
	send(t, m, runeKey("]"))
	if !strings.Contains(m.View(), "Today · 21/11/2026") {
		t.Fatalf("] did not come back to today:\n%s", m.View())
	}
	// p, down twice (7 days), enter.
	send(t, m, runeKey("p"))
	send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if v.Days != 7 || v.Report.Step != 24*time.Hour || len(v.Report.Buckets) != 7 {
		t.Fatalf("7 days: days=%d step=%v buckets=%d", v.Days, v.Report.Step, len(v.Report.Buckets))
	}
	if v.Report.Total.Gross != 12740+15000 {
		t.Fatalf("7 days of principal = %v", v.Report.Total.Gross)
	}
	if !strings.Contains(m.View(), "Last 7 days · 15/11–21/11/2026") {
		t.Fatalf("7-day label:\n%s", m.View())
	}
	// Custom range: a wrong day is named next to its field and nothing changes.
	send(t, m, runeKey("p"))
	for range 4 {
		send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	f, ok := common.Find[*sales.RangeForm](m.overlays)
	if !ok {
		t.Fatal("Custom range… did not open the form")
	}
	f.From.SetValue("31/02/2026")
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(m.View(), "not a day: write it as dd/mm/yyyy") || v.Custom != nil {
		t.Fatalf("a wrong day was not refused:\n%s", m.View())
	}
	f.From.SetValue("20/11/2026")
	f.To.SetValue("19/11/2026")
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(m.View(), "the last day comes before the first") {
		t.Fatalf("a reversed range was not refused:\n%s", m.View())
	}
	f.To.SetValue("21/11/2026")
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if v.Custom == nil || v.Report.Total.Gross != 12740+10000+5000 {
		t.Fatalf("custom 20–21/11: custom=%v gross=%v", v.Custom, v.Report.Total.Gross)
	}
	if !strings.Contains(m.View(), "Custom · 20/11–21/11/2026") {
		t.Fatalf("custom label:\n%s", m.View())
	}
}

func TestDayStripOnCharges(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	dayCharges(t, s)
	m := goldenModel(t, s, 80, 24)
	line := strings.Split(m.View(), "\n")[2]
	// The strip's net is the Sales view's: after the day's refund of R$ 25,00 (not R$ 124,43).
	if !strings.Contains(line, "Today R$ 127,40 · payments 3 · net R$ 99,43 · refunded R$ 25,00") {
		t.Fatalf("strip = %q", line)
	}
	net, ok := m.panes[viewDay].(*sales.DayView).Report.Total.DayNet()
	if m.panes[viewDay].(*sales.DayView).Loaded && (!ok || net != 9943) {
		t.Fatalf("the Sales view's net %v %v differs from the strip's", net, ok)
	}
	// A payment arriving moves the strip.
	now := goldenNow.Add(-time.Minute)
	if _, err := s.Store.UpsertCharge(context.Background(), state.Charge{ID: "day-0100", Wallet: api.WalletPrincipal, Amount: 1000,
		Status: api.StatusCompleted, CreatedAt: now, PaidAt: &now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	if line := strings.Split(m.View(), "\n")[2]; !strings.Contains(line, "Today R$ 137,40 · payments 4") {
		t.Fatalf("strip after a payment = %q", line)
	}
	// A MED block the service lists on it: the strip and the Sales view say what it holds.
	if _, err := s.Store.RecordBlocks(context.Background(), []api.BalanceBlock{{ID: "b-day", TransactionID: "day-0100",
		Amount: 1000, Status: api.BlockDefended, CreatedAt: goldenNow}}); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	if line := strings.Split(m.View(), "\n")[2]; !strings.Contains(line, "held by MED R$ 10,00") {
		t.Fatalf("strip after a MED block = %q", line)
	}
	send(t, m, runeKey("6"))
	storeChanged(t, m)
	if !strings.Contains(m.View(), "held by MED 1 (R$ 10,00)") {
		t.Fatalf("the Sales view does not say what MED holds:\n%s", m.View())
	}
}

func TestDayCloseReport(t *testing.T) {
	m := dayModel(t, common.LangEN, 120, 40)
	dir := t.TempDir()
	m.c.Export.Dir = dir
	out := filepath.Join(dir, "printed.txt")
	m.app.Sess.PrintCommand = []string{"sh", "-c", "cat > " + out}
	send(t, m, runeKey("C"))
	o, ok := common.Find[*sales.CloseOverlay](m.overlays)
	if !ok {
		t.Fatal("C did not open the day's close")
	}
	if !o.Loaded {
		t.Fatalf("the close did not load: %q", o.ErrText)
	}
	screen := m.View()
	for _, want := range []string{"Day's close · 21/11/2026", "the day has not ended", "Profile: loja-centro", "Wallet: principal", "R$ 127,40"} {
		if !strings.Contains(screen, want) {
			t.Errorf("close screen lacks %q:\n%s", want, screen)
		}
	}
	var names []string
	for _, l := range o.Rep.Wallets {
		names = append(names, l.Wallet)
	}
	if strings.Join(names, ",") != "principal,loja-norte,loja-sul" || o.Rep.Total.Gross != 37740 {
		t.Errorf("close wallets %v, total gross %v; want every wallet of the day and R$ 377,40", names, o.Rep.Total.Gross)
	}
	// The service is not reachable in this test: the balance says it was not read.
	if o.Rep.Wallets[0].Balance != nil || o.Rep.Wallets[0].BalanceErr == "" {
		t.Errorf("balance of an unreachable service = %+v / %q", o.Rep.Wallets[0].Balance, o.Rep.Wallets[0].BalanceErr)
	}
	send(t, m, runeKey("t"))
	for _, l := range strings.Split(o.Vp.View(), "\n") {
		if w := len([]rune(strings.TrimRight(l, " "))); w > 48 {
			t.Fatalf("receipt line wider than 48: %q", l)
		}
	}
	send(t, m, runeKey("w"))
	for _, name := range []string{"loja-centro-close-20261121.txt", "loja-centro-close-20261121-48.txt", "loja-centro-close-20261121.csv"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("w did not write %s with mode 0600: %v", name, err)
		}
	}
	if !strings.Contains(m.status.Text, "Day's close written to") {
		t.Errorf("status after w = %q", m.status.Text)
	}
	send(t, m, runeKey("p"))
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "R$ 377,40") {
		t.Fatalf("print_command got %q (%v)", b, err)
	}
	if !strings.Contains(m.status.Text, "Day's close sent to sh") {
		t.Errorf("status after p = %q", m.status.Text)
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEsc})
	if _, ok := common.Find[*sales.CloseOverlay](m.overlays); ok {
		t.Fatal("esc did not close the report")
	}
}

func TestDayCloseWithoutPrintCommand(t *testing.T) {
	m := dayModel(t, common.LangEN, 80, 24)
	send(t, m, runeKey("C"))
	send(t, m, runeKey("p"))
	if !strings.Contains(m.status.Text, "No print_command in this profile") {
		t.Fatalf("status = %q", m.status.Text)
	}
}

func TestGoldenDay(t *testing.T) {
	cases := []struct {
		name string
		lang common.Lang
		keys string
	}{
		{"today", common.LangEN, ""},
		{"today_pt", common.LangPT, ""},
		{"all_wallets", common.LangEN, "a"},
		{"all_wallets_pt", common.LangPT, "a"},
		{"side_by_side", common.LangEN, "ab"},
		{"week", common.LangEN, "p\x1a\x1a\r"},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m := dayModel(t, tc.lang, size[0], size[1])
				for _, r := range tc.keys {
					switch r {
					case '\x1a':
						send(t, m, tea.KeyMsg{Type: tea.KeyDown})
					case '\r':
						send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
					default:
						send(t, m, runeKey(string(r)))
					}
				}
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

// TestGoldenClose draws the close with balances read (a report as the service answers it).
func TestGoldenClose(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, size[0], size[1]), func(t *testing.T) {
				m := dayModel(t, lang, size[0], size[1])
				send(t, m, runeKey("a"))
				send(t, m, runeKey("C"))
				o, _ := common.Find[*sales.CloseOverlay](m.overlays)
				rep := o.Rep
				avail, held, total := api.Money(123456), api.Money(0), api.Money(123456)
				for _, w := range []string{api.WalletPrincipal, "loja-norte", "loja-sul"} {
					rep.SetBalance(w, &api.AccountBalance{Available: &avail, Held: &held, Total: &total}, "")
				}
				send(t, m, sales.CloseMsg{Seq: o.Seq, Gen: m.app.Gen, Rep: rep})
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

// End to end against the emulator: a payment confirmed by the service counts in the day's
// figures with the estimated fee (the fee its event reports is kept as reported, unconfirmed:
// the service's answer carries none), and a refund made from the dashboard shows in them.
func TestFlowDayFollowsPaymentsAndRefunds(t *testing.T) {
	s, _ := demo(t, DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.05)}})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	today := func() state.Totals {
		t.Helper()
		r, err := s.Store.DayReport(context.Background(), state.DayQuery{Period: state.Days(time.Now(), 1, time.Local), Wallet: api.WalletPrincipal})
		if err != nil {
			t.Fatal(err)
		}
		return r.Total
	}
	before := today()
	f.newCharge("77,70", "dia de venda")
	f.waitFor("Pague com PIX")
	f.keys("$")
	f.waitFor("PAGO")
	f.keys("esc")
	// The payment_completed is read back; its fee lands on the charge as reported only.
	deadline := time.Now().Add(10 * time.Second)
	var ch state.Charge
	for time.Now().Before(deadline) {
		cs := allCharges(t, s.Store, state.ChargeQuery{Text: "dia de venda"})
		if len(cs) == 1 && cs[0].FeeReported != nil {
			ch = cs[0]
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ch.FeeReported == nil || *ch.FeeReported != s.PixFee || ch.Fee != nil {
		t.Fatalf("the confirmed payment's fee = %v, reported %v, want R$ 0,99 reported only (%v)", ch.Fee, ch.FeeReported, s.PixFee)
	}
	after := today()
	if after.Paid != before.Paid+1 || after.Gross != before.Gross+7770 || after.FeesEstimated != before.FeesEstimated+1 {
		t.Fatalf("today before %+v, after %+v: want one more payment of R$ 77,70 at the estimated fee", before, after)
	}
	f.keys("6")
	f.waitFor("Received " + after.Gross.BRL())
	// Refund it from the list: the day counts it once refund_completed arrives. The list hears
	// of the payment from the store's change notice (closing the QR screen reads nothing).
	f.keys("1")
	f.waitForAll(regexp.MustCompile(`paid +R\$ 77,70  dia de venda`))
	f.keys("g", "R")
	f.waitFor("Refund a charge")
	f.keys("ctrl+s")
	f.waitFor("Refund R$ 77,70 of charge dia de venda")
	f.keys("y")
	f.waitFor("taken by the service (pending)")
	deadline = time.Now().Add(10 * time.Second)
	for today().Refunded == before.Refunded && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := today(); got.Refunded != before.Refunded+1 || got.RefundedAmount != before.RefundedAmount+7770 {
		t.Fatalf("after the refund: %+v (before %+v)", got, before)
	}
	f.keys("6")
	f.waitFor("refunded " + fmt.Sprint(before.Refunded+1))
}

// A payment of another day says its day in the list; today's only the time.
func TestChargesListDatesOldPayments(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	dayCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	out := m.View()
	if row := rowOf(out, "Ontem cedo"); !strings.Contains(row, "paid 20/11") {
		t.Errorf("yesterday's payment row = %q", row)
	}
	if row := rowOf(out, "Bolo de fubá"); !strings.Contains(row, "paid 13:05") || strings.Contains(row, "21/11 13:05") {
		t.Errorf("today's payment row = %q", row)
	}
}

// NET in the Sales table is after fees and refunds: at 80 columns as at 120, in both
// languages, the table keeps GROSS, FEES and REFUNDED beside NET, so each row adds up
// (GROSS − FEES − REFUNDED = NET); the average and pending counts go first.
func TestSalesTableKeepsWhatExplainsNet(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		tr := common.Catalog{Lang: lang}
		for _, w := range []int{80, 120} {
			t.Run(fmt.Sprintf("%s_%d", lang, w), func(t *testing.T) {
				m := dayModel(t, lang, w, 40)
				send(t, m, runeKey("a"))
				v := m.panes[viewDay].(*sales.DayView)
				if v.Width > w || v.Width < w-2 {
					t.Fatalf("the Sales view is %d columns wide on a %d-column terminal", v.Width, w)
				}
				lines := v.TableLines(v.Width)
				head := ansi.Strip(lines[0])
				for _, col := range []string{"day.gross_caps", "day.fees_caps", "day.net_caps", "day.refunded_caps"} {
					if !strings.Contains(head, tr.T(col)) {
						t.Errorf("the table at %d columns has no %s: %q", w, tr.T(col), head)
					}
				}
				var row string
				for _, l := range lines[1:] {
					if l := ansi.Strip(l); strings.Contains(l, "principal") {
						row = l
					}
				}
				// principal: R$ 127,40 received, R$ 2,97 fees, R$ 25,00 refunded, R$ 99,43 net.
				for _, cell := range []string{"R$ 127,40", "R$ 2,97", "R$ 25,00", "R$ 99,43"} {
					if !strings.Contains(row, cell) {
						t.Errorf("principal's row at %d columns lacks %s: %q", w, cell, row)
					}
				}
				for _, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Errorf("a line of %d columns at %d: %q", n, w, ansi.Strip(l))
					}
				}
			})
		}
	}
}
