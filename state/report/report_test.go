package report

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func money(m api.Money) *api.Money { return &m }

// sample is a close of two wallets and their total, as state.CloseDay would make it, with the
// principal's balance read and the sub-account's refused.
func sample(t *testing.T) state.CloseReport {
	t.Helper()
	loc := time.FixedZone("BRT", -3*3600)
	day := state.Days(time.Date(2026, 11, 23, 15, 0, 0, 0, loc), 1, loc)
	principal := state.CloseLine{
		Totals: state.Totals{Wallet: "principal", Created: 14, Paid: 11, Gross: 1234567, Fees: 1089, FeesEstimated: 11,
			Pending: 1, Expired: 2, Failed: 0, Cancelled: 0, Refunded: 1, RefundedAmount: 5000, RefundFees: 0},
		Withdrawals: 2, WithdrawalsCompleted: 1, WithdrawalsFailed: 1, WithdrawnGross: 50099, WithdrawalFees: 99,
		BlocksOpened: 1, BlocksResolved: 0, SplitSentN: 3, SplitSent: 15000,
	}
	sub := state.CloseLine{
		Totals:       state.Totals{Wallet: "loja-sul", Created: 3, Paid: 2, Gross: 4590, Fees: 198, Pending: 1, Unknown: 0},
		BlocksOpened: 0, BlocksResolved: 1, SplitReceivedN: 3, SplitReceived: 15000,
	}
	r := state.CloseReport{
		Profile: "loja", Day: day, Made: time.Date(2026, 11, 23, 18, 30, 0, 0, loc), Partial: true,
		Wallets:     []state.CloseLine{principal, sub},
		FeeEstimate: 99, HasFeeEstimate: true,
	}
	r.Total = sumLines(r.Wallets)
	r.SetBalance("principal", &api.AccountBalance{Available: money(1184468), Held: money(5000), Total: money(1189468)}, "")
	r.SetBalance("loja-sul", nil, "Forbidden: sub-account access is disabled (trace 0af7651916cd43dd8448eb211c80319c)")
	return r
}

// sumLines adds the wallets' figures as state.CloseDay does for the total.
func sumLines(ls []state.CloseLine) state.CloseLine {
	var t state.CloseLine
	for _, l := range ls {
		t.Created += l.Created
		t.Paid += l.Paid
		t.Gross += l.Gross
		t.Fees += l.Fees
		t.FeesEstimated += l.FeesEstimated
		t.Pending += l.Pending
		t.Expired += l.Expired
		t.Failed += l.Failed
		t.Cancelled += l.Cancelled
		t.Unknown += l.Unknown
		t.Refunded += l.Refunded
		t.RefundedAmount += l.RefundedAmount
		t.RefundFees += l.RefundFees
		t.Withdrawals += l.Withdrawals
		t.WithdrawalsCompleted += l.WithdrawalsCompleted
		t.WithdrawalsFailed += l.WithdrawalsFailed
		t.WithdrawnGross += l.WithdrawnGross
		t.WithdrawalFees += l.WithdrawalFees
		t.BlocksOpened += l.BlocksOpened
		t.BlocksResolved += l.BlocksResolved
		t.SplitSentN += l.SplitSentN
		t.SplitSent += l.SplitSent
		t.SplitReceivedN += l.SplitReceivedN
		t.SplitReceived += l.SplitReceived
	}
	return t
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./state/report/ -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./state/report/ -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestTextGolden(t *testing.T) {
	r := sample(t)
	loc := r.Day.From.Location()
	for _, lang := range []string{LangEN, LangPT} {
		for _, w := range []int{DefaultWidth, ReceiptWidth} {
			name := "text-" + lang + "-" + strconv.Itoa(w) + ".golden"
			t.Run(name, func(t *testing.T) {
				golden(t, name, []byte(Text(r, Options{Width: w, Lang: lang, Loc: loc})))
			})
		}
	}
}

func TestTextContent(t *testing.T) {
	r := sample(t)
	loc := r.Day.From.Location()
	pt := Text(r, Options{Width: 48, Lang: LangPT, Loc: loc})
	for _, want := range []string{"FECHAMENTO DE CAIXA", "Perfil: loja", "Dia: 23/11/2026", "Emitido às 18:30",
		"PARCIAL — o dia ainda não terminou", "Carteira: principal", "Carteira: loja-sul", "TOTAL (2 carteiras)",
		"R$ 12.345,67", "Tarifas (estimativa)", "11 de 13 com tarifa estimada (R$ 0,99)", "R$ 0,99", "Disponível", "R$ 11.844,68",
		"Bloqueado", "não lido: Forbidden", "(trace", "0af7651916cd43dd8448eb211c80319c)", "não lido: falta o saldo",
		"Bloqueios MED abertos/resolvidos", "Split enviado (3)", "Split recebido (3)", "Líquido após estornos"} {
		if !strings.Contains(pt, want) {
			t.Errorf("pt-BR report lacks %q:\n%s", want, pt)
		}
	}
	en := Text(r, Options{Width: 80, Lang: LangEN, Loc: loc})
	for _, want := range []string{"DAY CLOSE", "Day: 23/11/2026", "Made at 18:30", "PARTIAL — the day has not ended",
		"R$ 12.345,67", "Fees (estimate)", "11 of 13 at the estimated fee (R$ 0,99)", "not read: Forbidden", "Available", "R$ 11.844,68"} {
		if !strings.Contains(en, want) {
			t.Errorf("en report lacks %q:\n%s", want, en)
		}
	}
	// With every balance read, the total has one; a day that ended is not partial.
	r.SetBalance("loja-sul", &api.AccountBalance{Available: money(100), Held: money(0), Total: money(100)}, "")
	r.Partial = false
	en = Text(r, Options{Width: 80, Lang: LangEN, Loc: loc})
	if strings.Contains(en, "PARTIAL") || strings.Contains(en, "not read") || !strings.Contains(en, "R$ 11.845,68") {
		t.Errorf("report with every balance:\n%s", en)
	}
	// No service: nothing read, no reason given.
	r.SetBalance("principal", nil, "")
	r.SetBalance("loja-sul", nil, "")
	if got := Text(r, Options{Lang: LangPT, Loc: loc}); !strings.Contains(got, "não lido") {
		t.Errorf("report without balances:\n%s", got)
	}
}

func TestTextFitsEveryWidth(t *testing.T) {
	r := sample(t)
	r.Wallets[1].Wallet = "uma-subconta-com-um-nome-muito-comprido-" + strings.Repeat("x", 90)
	r.Profile = "perfil_com_nome_de_32_caracteres"
	r.Total.Gross = 922337203685477580 // the largest amounts still fit
	for _, lang := range []string{LangEN, LangPT} {
		for w := 40; w <= 100; w++ {
			out := Text(r, Options{Width: w, Lang: lang, Loc: time.UTC})
			for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if got := ansi.StringWidth(line); got > w {
					t.Fatalf("%s width %d: line %d is %d cells: %q", lang, w, i+1, got, line)
				}
			}
		}
	}
	// Below the minimum, the report is laid out at MinWidth.
	for _, line := range strings.Split(Text(r, Options{Width: 10}), "\n") {
		if ansi.StringWidth(line) > MinWidth {
			t.Fatalf("line wider than MinWidth: %q", line)
		}
	}
}

func TestHostileNamesAreSanitized(t *testing.T) {
	r := sample(t)
	r.Profile = "lo\x1b[31mja\u202e"
	r.Wallets[0].Wallet = "x\x1b]52;c;AAAA\x07y"
	r.Wallets[1].BalanceErr = "bad\u009b2Jnews\r\nline\x1bPdcs\x1b\\end\x00"
	for _, lang := range []string{LangEN, LangPT} {
		out := Text(r, Options{Width: 48, Lang: lang})
		if strings.ContainsAny(out, "\x1b\x07\x00\r\u202e\u009b") {
			t.Errorf("control characters left in:\n%q", out)
		}
		// The names read as the dashboard shows them: the one gate, safetext.Clean (controls
		// become spaces, bidi overrides go, the inert rest stays visible).
		for _, want := range []string{"lo [31mja", "x ]52;c;AAAA y", "bad 2Jnews"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q missing from:\n%s", want, out)
			}
		}
	}
	var b bytes.Buffer
	if err := CSV(&b, r, false); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("control characters left in the CSV: %q", b.String())
	}
}

func TestCSVGolden(t *testing.T) {
	r := sample(t)
	for _, br := range []bool{false, true} {
		name := "close-csv.golden"
		if br {
			name = "close-br.golden"
		}
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := CSV(&b, r, br); err != nil {
				t.Fatal(err)
			}
			golden(t, name, b.Bytes())
		})
	}
}

func TestCSVParsesBack(t *testing.T) {
	r := sample(t)
	r.Wallets[1].Wallet = "=HYPERLINK(\"x\")"
	for _, br := range []bool{false, true} {
		var b bytes.Buffer
		if err := CSV(&b, r, br); err != nil {
			t.Fatal(err)
		}
		data := b.String()
		if br != strings.HasPrefix(data, "\uFEFF") {
			t.Fatalf("brazilian %t: BOM present %t", br, !br)
		}
		cr := csv.NewReader(strings.NewReader(strings.TrimPrefix(data, "\uFEFF")))
		if br {
			cr.Comma = ';'
		}
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 4 {
			t.Fatalf("%d records, want header + 2 wallets + total", len(recs))
		}
		header := CSVHeader(br)
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		if strings.Join(recs[0], ",") != strings.Join(header, ",") || len(header) != 28 {
			t.Fatalf("header %q", recs[0])
		}
		name := func(en, ptName string) int {
			if br {
				return col[ptName]
			}
			return col[en]
		}
		dec := func(s string) string {
			if br {
				return strings.Replace(s, ".", ",", 1)
			}
			return s
		}
		p, sub, tot := recs[1], recs[2], recs[3]
		checks := []struct {
			rec          []string
			en, pt, want string
		}{
			{p, "date", "data", map[bool]string{false: "2026-11-23", true: "23/11/2026"}[br]},
			{p, "wallet", "carteira", "principal"},
			{sub, "wallet", "carteira", "'=HYPERLINK(\"x\")"},
			{tot, "wallet", "carteira", "TOTAL"},
			{p, "created", "criadas", "14"},
			{p, "paid", "pagas", "11"},
			{p, "gross", "bruto", dec("12345.67")},
			{p, "fees", "tarifas", dec("10.89")},
			{p, "fees_estimated", "tarifas_estimadas", "11"},
			{p, "net", "liquido", dec("12334.78")},
			{p, "refunded", "estornos", "1"},
			{p, "refunded_amount", "valor_estornado", dec("50.00")},
			{p, "refund_fees", "tarifas_estorno", dec("0.00")},
			{p, "net_after_refunds", "liquido_apos_estornos", dec("12284.78")},
			{p, "pending", "pendentes", "1"},
			{p, "expired", "expiradas", "2"},
			{p, "withdrawals", "saques", "2"},
			{p, "withdrawals_completed", "saques_concluidos", "1"},
			{p, "withdrawn_gross", "sacado_bruto", dec("500.99")},
			{p, "blocks_opened", "bloqueios_abertos", "1"},
			{sub, "blocks_resolved", "bloqueios_resolvidos", "1"},
			{p, "split_sent_n", "split_enviado_qtd", "3"},
			{p, "split_sent", "split_enviado", dec("150.00")},
			{sub, "split_received_n", "split_recebido_qtd", "3"},
			{sub, "split_received", "split_recebido", dec("150.00")},
			{p, "balance_available", "saldo_disponivel", dec("11844.68")},
			{p, "balance_held", "saldo_bloqueado", dec("50.00")},
			{p, "balance_total", "saldo_total", dec("11894.68")},
			{sub, "balance_available", "saldo_disponivel", ""},
			{tot, "balance_total", "saldo_total", ""},
			{tot, "created", "criadas", "17"},
			{tot, "gross", "bruto", dec("12391.57")},
		}
		for _, c := range checks {
			if got := c.rec[name(c.en, c.pt)]; got != c.want {
				t.Errorf("brazilian %t: %s of %s = %q, want %q", br, c.en, c.rec[1], got, c.want)
			}
		}
	}
}
