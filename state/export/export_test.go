package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// brt is São Paulo's offset, fixed so the goldens do not depend on the machine's zone.
var brt = time.FixedZone("BRT", -3*3600)

// day is 2026-11-20 09:00 in BRT: the fixed clock of the seeded charges.
var day = time.Date(2026, 11, 20, 9, 0, 0, 0, brt)

func at(d time.Duration) time.Time { return day.Add(d) }

func ptr[T any](v T) *T { return &v }

// seedCharges are charges with every field an export writes, and the texts that try to break a
// spreadsheet: separators, quotes, line breaks, formulas, a document.
func seedCharges() []state.Charge {
	return []state.Charge{
		{ // oldest: paid, split, payer with a CPF
			ID: "tx_paid_1", Wallet: "principal", Amount: 12345, Description: "Pedido 42; mesa 4, \"balcão\"",
			ExternalReference: "ref-42", Status: api.StatusCompleted, CreatedAt: at(0), ExpiresAt: at(time.Hour),
			PaidAt: ptr(at(5 * time.Minute)), E2EID: "E12345678202611201205abcdefghijk", PayerName: "João da Silva",
			PayerDocument: "123.456.789-09", SplitRequested: []api.SplitItem{{SubAccount: "loja-centro", Amount: 1000}, {SubAccount: "loja-sul", Amount: 250}},
			Fee: ptr(api.Money(150)), // the service reported this payment's fee
		},
		{ // pending, formula injection and a line break in outside text
			ID: "tx_pending_2", Wallet: "loja-centro", Amount: 1, Description: "=HYPERLINK(\"http://evil\",\"x\")\nsecond line",
			ExternalReference: "+55 11 9999", Status: api.StatusPending, CreatedAt: at(time.Hour), ExpiresAt: at(2 * time.Hour),
			PayerName: "@attacker", PayerDocument: "",
		},
		{ // expired
			ID: "tx_expired_3", Wallet: "loja-centro", Amount: 99, Description: "-2+3", ExternalReference: "\tTAB",
			Status: api.StatusCancelled, Expired: true, CreatedAt: at(2 * time.Hour), ExpiresAt: at(3 * time.Hour),
		},
		{ // failed, CNPJ payer
			ID: "tx_failed_4", Wallet: "principal", Amount: 100, Description: "ok", Status: api.StatusFailed,
			CreatedAt: at(3 * time.Hour), ExpiresAt: at(4 * time.Hour), FailureReason: "Pagamento de CNPJ não permitido",
			PayerName: "ACME Ltda", PayerDocument: "12345678000195",
			BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundConfirmed}},
		},
		{ // newest: paid, large
			ID: "tx_paid_5", Wallet: "loja-sul", Amount: 123456789012, Description: "Atacado", Status: api.StatusCompleted,
			CreatedAt: at(4 * time.Hour), ExpiresAt: at(5 * time.Hour), PaidAt: ptr(at(4*time.Hour + 30*time.Second)),
			PayerName: "Maria", PayerDocument: "98765432100",
		},
	}
}

func seededStore(t *testing.T, cs []state.Charge) *state.Store {
	t.Helper()
	s := state.OpenMemory(state.WithClock(func() time.Time { return day }), state.WithLocation(brt))
	t.Cleanup(func() { _ = s.Close() })
	for _, c := range cs {
		if _, err := s.UpsertCharge(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./state/export -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	s := seededStore(t, seedCharges())
	for _, f := range []Format{CSV, BR} {
		var b bytes.Buffer
		n, err := Write(context.Background(), &b, s, Options{Format: f, Location: brt, PixFee: 99, HasPixFee: true, PageSize: 2})
		if err != nil || n != 5 {
			t.Fatalf("%s: wrote %d charges, err %v; want 5", f, n, err)
		}
		golden(t, "charges_"+string(f)+".csv", b.Bytes())
	}
}

// read parses an export back as a spreadsheet would: BOM and ";" for BR.
func read(t *testing.T, data []byte, f Format) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	if f == BR {
		if !bytes.HasPrefix(data, []byte(bom)) {
			t.Fatal("the BR dialect does not start with a UTF-8 BOM")
		}
		r = csv.NewReader(bytes.NewReader(data[len(bom):]))
		r.Comma = ';'
	} else if bytes.HasPrefix(data, []byte(bom)) {
		t.Fatal("CSV starts with a BOM")
	}
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRoundTrip(t *testing.T) {
	cs := seedCharges()
	s := seededStore(t, cs)
	byID := map[string]state.Charge{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	for _, f := range []Format{CSV, BR} {
		var b bytes.Buffer
		if _, err := Write(context.Background(), &b, s, Options{Format: f, Location: brt, PixFee: 99, HasPixFee: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b.Bytes(), []byte("\r\n")) {
			t.Errorf("%s: records do not end in CRLF (RFC 4180)", f)
		}
		recs := read(t, b.Bytes(), f)
		if len(recs) != len(cs)+1 {
			t.Fatalf("%s: %d records, want %d", f, len(recs), len(cs)+1)
		}
		head := recs[0]
		col := func(rec []string, en string) string {
			for i, c := range columns {
				if c.en == en {
					if head[i] != map[Format]string{CSV: c.en, BR: c.pt}[f] {
						t.Fatalf("%s: header %d is %q", f, i, head[i])
					}
					return rec[i]
				}
			}
			t.Fatalf("no column %s", en)
			return ""
		}
		// newest first
		if got := []string{col(recs[1], "id"), col(recs[5], "id")}; got[0] != "tx_paid_5" || got[1] != "tx_paid_1" {
			t.Errorf("%s: order %v", f, got)
		}
		for _, rec := range recs[1:] {
			if len(rec) != len(head) {
				t.Fatalf("%s: record of %d fields, header %d", f, len(rec), len(head))
			}
			c := byID[col(rec, "id")]
			amount := col(rec, "amount")
			if f == BR {
				amount = strings.Replace(amount, ",", ".", 1)
			}
			if got, err := api.ParseDecimal(amount); err != nil || got != c.Amount {
				t.Errorf("%s %s: amount %q reads %v (%v), want %v", f, c.ID, col(rec, "amount"), got, err, c.Amount)
			}
			wantDesc := c.Description
			if strings.HasPrefix(wantDesc, "=") || strings.HasPrefix(wantDesc, "-") {
				wantDesc = "'" + wantDesc
			}
			if got := col(rec, "description"); got != wantDesc {
				t.Errorf("%s %s: description %q, want %q", f, c.ID, got, wantDesc)
			}
			if got := col(rec, "wallet"); got != c.Wallet {
				t.Errorf("%s %s: wallet %q", f, c.ID, got)
			}
			doc := col(rec, "payer_document")
			if c.PayerDocument != "" && (doc != state.MaskDocument(c.PayerDocument) || strings.Contains(doc, "123456789") || strings.Contains(doc, "0001")) {
				t.Errorf("%s %s: document %q is not masked", f, c.ID, doc)
			}
			if refunded := c.BlockedDeposit != nil && c.BlockedDeposit.Refund != nil; refunded != (col(rec, "refund_status") != "") || refunded != (col(rec, "refund_amount") != "") {
				t.Errorf("%s %s: refund %q %q", f, c.ID, col(rec, "refund_status"), col(rec, "refund_amount"))
			}
			paid := c.State() == state.StatePaid
			if fee, net, est := col(rec, "fee"), col(rec, "net"), col(rec, "fee_estimated"); paid != (fee != "") || paid != (net != "") || paid != (est != "") {
				t.Errorf("%s %s: fee %q net %q estimated %q for a charge paid=%t", f, c.ID, fee, net, est, paid)
			}
			if paid {
				net := col(rec, "net")
				if f == BR {
					net = strings.Replace(net, ",", ".", 1)
				}
				fee, estimated := api.Money(99), true
				if c.Fee != nil {
					fee, estimated = *c.Fee, false
				}
				if got, _ := api.ParseDecimal(net); got != c.Amount-fee {
					t.Errorf("%s %s: net %q, want %v", f, c.ID, col(rec, "net"), c.Amount-fee)
				}
				if want := map[bool]map[Format]string{true: {CSV: "yes", BR: "sim"}, false: {CSV: "no", BR: "não"}}[estimated][f]; col(rec, "fee_estimated") != want {
					t.Errorf("%s %s: fee_estimated %q, want %q", f, c.ID, col(rec, "fee_estimated"), want)
				}
			}
			created := col(rec, "created_at")
			var got time.Time
			var err error
			if f == BR {
				got, err = time.ParseInLocation("02/01/2006 15:04", created, brt)
			} else {
				got, err = time.Parse(time.RFC3339, created)
			}
			if err != nil || !got.Equal(c.CreatedAt.Truncate(time.Minute)) {
				t.Errorf("%s %s: created %q (%v), want %v", f, c.ID, created, err, c.CreatedAt)
			}
		}
	}
}

func TestFormulaNeutralised(t *testing.T) {
	for in, want := range map[string]string{
		"":         "",
		"=1+1":     "'=1+1",
		"+5511":    "'+5511",
		"-3":       "'-3",
		"@SUM(A1)": "'@SUM(A1)",
		"\tx":      "' x",
		"\rx":      "' x",
		// Control and bidi characters never reach a cell.
		"\u200b=1+1":             "'=1+1",
		"a\x1b]0;PWNED\x07":      "a ]0;PWNED ",
		"\u202eevil\u202c\u2066": "evil",
		"x\u009b2Jy\u0085":       "x 2Jy ",
		"two\nlines\r":           "two\nlines ",
		"a=b":                    "a=b",
		"João":                   "João",
		" =not-lead":             " =not-lead",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAmount(t *testing.T) {
	for _, tc := range []struct {
		m       api.Money
		csv, br string
	}{
		{0, "0.00", "0,00"},
		{1, "0.01", "0,01"},
		{99, "0.99", "0,99"},
		{100, "1.00", "1,00"},
		{101, "1.01", "1,01"},
		{-1, "-0.01", "-0,01"},
		{-100, "-1.00", "-1,00"},
		{-12345, "-123.45", "-123,45"},
		{123456789012, "1234567890.12", "1234567890,12"},
		{math.MaxInt64, "92233720368547758.07", "92233720368547758,07"},
		{math.MinInt64, "-92233720368547758.08", "-92233720368547758,08"},
	} {
		if got := Amount(tc.m, CSV); got != tc.csv {
			t.Errorf("Amount(%d, CSV) = %q, want %q", tc.m, got, tc.csv)
		}
		if got := Amount(tc.m, BR); got != tc.br {
			t.Errorf("Amount(%d, BR) = %q, want %q", tc.m, got, tc.br)
		}
	}
}

// FuzzAmount checks that every amount is written with exactly two decimals and reads back to
// the same centavos in both dialects.
func FuzzAmount(f *testing.F) {
	for _, v := range []int64{0, 1, 99, 100, -1, -99, -100, 1 << 40, math.MaxInt64, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		for _, fm := range []Format{CSV, BR} {
			s := Amount(api.Money(v), fm)
			sep := map[Format]string{CSV: ".", BR: ","}[fm]
			i := strings.LastIndex(s, sep)
			if i < 0 || len(s)-i != 3 || strings.Count(s, sep) != 1 {
				t.Fatalf("%s: %q has not exactly two decimals after %q", fm, s, sep)
			}
			digits := strings.Replace(strings.TrimPrefix(s[:i]+s[i+1:], "-"), "-", "", -1)
			u, err := strconv.ParseUint(digits, 10, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", fm, s, err)
			}
			neg := strings.HasPrefix(s, "-")
			if neg != (v < 0) {
				t.Fatalf("%s: %q for %d has the wrong sign", fm, s, v)
			}
			want := uint64(v)
			if v < 0 {
				want = -uint64(v) // two's complement: also right for MinInt64
			}
			if u != want {
				t.Fatalf("%s: %q reads %d centavos, want %d", fm, s, u, want)
			}
		}
	})
}

func TestPeriodAndFilters(t *testing.T) {
	var cs []state.Charge
	for i := range 30 { // one charge every 2 hours from day-1 00:00: 2026-11-19 and 2026-11-20, and 2026-11-21 up to 10:00
		c := state.Charge{ID: "c" + strconv.Itoa(i), Wallet: []string{"principal", "loja-sul"}[i%2], Amount: api.Money(100 + i),
			Status: api.StatusPending, CreatedAt: time.Date(2026, 11, 19, 0, 0, 0, 0, brt).Add(time.Duration(i) * 2 * time.Hour)}
		if i%3 == 0 {
			c.Status = api.StatusCompleted
		}
		cs = append(cs, c)
	}
	s := seededStore(t, cs)
	ids := func(o Options) []string {
		t.Helper()
		var b bytes.Buffer
		o.Format, o.Location, o.PageSize = CSV, brt, 3
		n, err := Write(context.Background(), &b, s, o)
		if err != nil {
			t.Fatal(err)
		}
		recs := read(t, b.Bytes(), CSV)
		if n != len(recs)-1 {
			t.Errorf("Write says %d, wrote %d", n, len(recs)-1)
		}
		var out []string
		for _, r := range recs[1:] {
			out = append(out, r[0])
		}
		return out
	}
	from, to := time.Date(2026, 11, 20, 0, 0, 0, 0, brt), time.Date(2026, 11, 21, 0, 0, 0, 0, brt)
	got := ids(Options{From: from, To: to})
	if len(got) != 12 || got[0] != "c23" || got[11] != "c12" {
		t.Errorf("the day 2026-11-20: %v, want c23 … c12 (12 charges)", got)
	}
	got = ids(Options{From: from, To: to, Query: state.ChargeQuery{Wallet: "loja-sul"}})
	if len(got) != 6 || got[0] != "c23" || got[5] != "c13" {
		t.Errorf("loja-sul on 2026-11-20: %v", got)
	}
	got = ids(Options{From: from, To: to, Query: state.ChargeQuery{Status: state.FilterPaid}})
	if len(got) != 4 || got[0] != "c21" {
		t.Errorf("paid on 2026-11-20: %v", got)
	}
	if got := ids(Options{}); len(got) != 30 {
		t.Errorf("everything: %d charges, want 30", len(got))
	}
}

// growing is a Source that adds a newer charge above the list before each page after the
// first, as new charges do while an export runs.
type growing struct {
	s     *state.Store
	calls int
}

func (g *growing) ChargeWindow(ctx context.Context, q state.ChargeQuery, offset, limit int) (state.ChargePage, error) {
	if g.calls > 0 {
		c := state.Charge{ID: "new" + strconv.Itoa(g.calls), Wallet: "principal", Amount: 1, Status: api.StatusPending, CreatedAt: day.Add(time.Duration(g.calls) * time.Hour * 24)}
		if _, err := g.s.UpsertCharge(ctx, c); err != nil {
			return state.ChargePage{}, err
		}
	}
	g.calls++
	return g.s.ChargeWindow(ctx, q, offset, limit)
}

func TestNoDuplicateWhileGrowing(t *testing.T) {
	s := seededStore(t, seedCharges())
	var b bytes.Buffer
	n, err := Write(context.Background(), &b, &growing{s: s}, Options{Format: CSV, PageSize: 2, To: day.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	recs := read(t, b.Bytes(), CSV)
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		if seen[r[0]] {
			t.Errorf("%s written twice", r[0])
		}
		seen[r[0]] = true
	}
	if n != 5 || len(seen) != 5 {
		t.Errorf("wrote %d (%d distinct), want the 5 charges of the period", n, len(seen))
	}
}

type failing struct{ after int }

func (f *failing) ChargeWindow(_ context.Context, q state.ChargeQuery, offset, limit int) (state.ChargePage, error) {
	if f.after == 0 {
		return state.ChargePage{}, errors.New("disk on fire")
	}
	f.after--
	cs := make([]state.Charge, limit)
	for i := range cs {
		cs[i] = state.Charge{ID: "x" + strconv.Itoa(offset+i), Amount: 1, Status: api.StatusPending, CreatedAt: day}
	}
	return state.ChargePage{Query: q, Offset: offset, Charges: cs}, nil
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	s := seededStore(t, seedCharges())
	n, err := WriteFile(context.Background(), path, s, Options{Format: BR, Location: brt})
	if err != nil || n != 5 {
		t.Fatalf("WriteFile: %d, %v", n, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	before, _ := os.ReadFile(path)
	// A failure half-way leaves the old file as it was and no temporary file behind.
	if _, err := WriteFile(context.Background(), path, &failing{after: 2}, Options{Format: CSV, PageSize: 10}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a failed export changed the existing file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	// A cancelled context stops the export.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WriteFile(ctx, path, s, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestParseFormatAndFileName(t *testing.T) {
	for in, want := range map[string]Format{"": BR, "br": BR, "BR": BR, "csv": CSV, " CSV ": CSV} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("xlsx"); err == nil {
		t.Error("xlsx accepted")
	}
	if got := FileName("loja 1/../x", day, BR); got != "loja_1____x-20261120-090000.csv" {
		t.Errorf("FileName = %q", got)
	}
	if got := FileName("", day, CSV); got != "demo-20261120-090000.csv" {
		t.Errorf("FileName = %q", got)
	}
}

// A refund asked from the dashboard shows with its state, and its amount once the service took
// it; a refused one has no amount.
func TestRefundsFromTheStore(t *testing.T) {
	s := seededStore(t, seedCharges())
	ctx := context.Background()
	for _, r := range []state.Refund{
		{ChargeID: "tx_paid_1", Amount: 12345, State: state.RefundCompleted},
		{ChargeID: "tx_paid_5", Amount: 123456789012, State: state.RefundRefused},
	} {
		if _, err := s.PutRefund(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := Write(ctx, &b, s, Options{Format: BR, Location: brt}); err != nil {
		t.Fatal(err)
	}
	recs := read(t, b.Bytes(), BR)
	got := map[string][2]string{}
	for _, rec := range recs[1:] {
		got[rec[0]] = [2]string{rec[len(rec)-3], rec[len(rec)-2]}
	}
	for id, want := range map[string][2]string{
		"tx_paid_1":    {"completed", "123,45"},
		"tx_paid_5":    {"refused", ""},
		"tx_failed_4":  {"confirmed", "1,00"}, // the blocked deposit's return
		"tx_pending_2": {"", ""},
	} {
		if got[id] != want {
			t.Errorf("%s: refund %q, want %q", id, got[id], want)
		}
	}
}

// hostile is a payer name that tries to retitle the terminal, clear it through the one-byte
// CSI and reverse the text.
const hostile = "\x1b]0;PWNED\x07Ana\x1b[2J\u009b2J\u202eanA\u202c\u2066\u200b"

// inertBytes fails when b holds ESC, BEL, a C1 control or a bidi or zero-width character.
func inertBytes(t *testing.T, what string, b []byte) {
	t.Helper()
	s := string(b)
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\u202c", "\u2066", "\u200b"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s holds %q:\n%q", what, bad, s)
		}
	}
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			t.Errorf("%s holds the C1 control %U", what, r)
		}
	}
}

// An export never writes a control or bidi character from outside, in either dialect.
func TestHostileTextInert(t *testing.T) {
	s := seededStore(t, []state.Charge{{ID: "tx_" + "1", Wallet: "principal", Amount: 100, Status: api.StatusCompleted,
		PaidAt: ptr(at(time.Minute)), CreatedAt: at(0), PayerName: hostile, Description: "\u202e=cmd|' /C calc'!A0",
		FailureReason: "\x1b[31mred", ExternalReference: "\u0085ref"}})
	for _, f := range []Format{CSV, BR} {
		var b bytes.Buffer
		if _, err := Write(context.Background(), &b, s, Options{Format: f, Location: brt}); err != nil {
			t.Fatal(err)
		}
		inertBytes(t, string(f), b.Bytes())
		if !strings.Contains(b.String(), "]0;PWNED Ana [2J 2JanA") || !strings.Contains(b.String(), "'=cmd|") {
			t.Errorf("%s: the cleaned texts are missing:\n%s", f, b.String())
		}
	}
}
