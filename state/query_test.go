package state

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"pixdash/api"
)

// testClock is a settable clock for WithClock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var testStatuses = []api.TxStatus{api.StatusPending, api.StatusCompleted, api.StatusFailed, api.StatusCancelled}

// randomCharge makes a charge with fields drawn from small vocabularies, so queries collide
// and creation times tie.
func randomCharge(r *rand.Rand, i int) Charge {
	words := []string{"Café", "pão", "Açaí", "bolo", "SUCO", "água"}
	wallets := []string{"principal", "loja-a", "loja-b"}
	c := Charge{
		ID:                fmt.Sprintf("id-%05d", i),
		Wallet:            wallets[r.IntN(len(wallets))],
		Amount:            api.Money(100 + r.IntN(500000)),
		Description:       words[r.IntN(len(words))] + " " + words[r.IntN(len(words))],
		ExternalReference: fmt.Sprintf("REF-%d", r.IntN(1000)),
		Status:            testStatuses[r.IntN(len(testStatuses))],
		CreatedAt:         at(r.IntN(60)),
		Source:            SourceCreated,
	}
	c.UpdatedAt = c.CreatedAt
	if c.Status == api.StatusCancelled && r.IntN(2) == 0 {
		c.Expired = true
	}
	return c
}

// refFields lists the texts a query may match, written independently of haystack.
func refFields(c Charge, loc *time.Location) []string {
	brl := c.Amount.BRL()
	bare := strings.TrimPrefix(strings.TrimPrefix(brl, "-"), "R$ ")
	digits := fmt.Sprint(int64(c.Amount))
	if c.Amount < 0 {
		digits = fmt.Sprint(-int64(c.Amount))
	}
	return []string{c.ID, c.Description, c.ExternalReference, c.Wallet, brl, strings.ReplaceAll(bare, ".", ""),
		strings.TrimPrefix(c.Amount.Decimal(), "-"), digits, string(c.Status), string(c.State()), c.PayerName, c.E2EID,
		c.CreatedAt.In(loc).Format("02/01/2006 15:04")}
}

// tracked is a charge as the test wrote it, with the order it was first written in.
type tracked struct {
	c     Charge
	order int
}

// refView is the obviously-correct selection: a scan and a full sort, newest first (charges
// created in the same instant: the last one written first).
func refView(all map[string]tracked, q ChargeQuery, loc *time.Location) []string {
	text := Fold(strings.TrimSpace(q.Text)) // the filter ignores case and accents
	var out []tracked
	for _, tc := range all {
		c := tc.c
		if !q.Status.Match(c.State()) || q.Wallet != "" && NormalizeWallet(c.Wallet) != q.Wallet {
			continue
		}
		if text != "" && !slices.ContainsFunc(refFields(c, loc), func(f string) bool { return strings.Contains(Fold(f), text) }) {
			continue
		}
		out = append(out, tc)
	}
	slices.SortFunc(out, func(a, b tracked) int {
		if c := b.c.CreatedAt.Compare(a.c.CreatedAt); c != 0 {
			return c
		}
		return b.order - a.order
	})
	ids := make([]string, len(out))
	for i, tc := range out {
		ids[i] = tc.c.ID
	}
	return ids
}

func chargeIDs(cs []Charge) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// windowT reads a window, failing the test on an error.
func windowT(t testing.TB, s *Store, q ChargeQuery, offset, limit int) ChargePage {
	t.Helper()
	p, err := s.ChargeWindow(ctx, q, offset, limit)
	if err != nil {
		t.Fatalf("ChargeWindow(%+v, %d, %d): %v", q, offset, limit, err)
	}
	return p
}

// checkQuery compares a whole selection and its total with the reference.
func checkQuery(t *testing.T, s *Store, all map[string]tracked, q ChargeQuery) {
	t.Helper()
	want := refView(all, q, time.UTC)
	p := windowT(t, s, q, 0, 1<<20)
	if got := chargeIDs(p.Charges); !slices.Equal(got, want) || p.Total != len(want) || p.Capped {
		t.Fatalf("%+v: %d rows (total %d, capped %v), want %d\ngot  %.12v\nwant %.12v", q, len(got), p.Total, p.Capped, len(want), got, want)
	}
}

// Newest first, any window of the selection, exact totals, every filter, and updates seen at
// once; counts per state follow.
func TestChargeWindowQueries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	all := map[string]tracked{}
	upsert := func(c Charge) {
		t.Helper()
		merged, err := s.UpsertCharge(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if merged.Status != c.Status || merged.Description != c.Description || merged.Amount != c.Amount {
			t.Fatalf("upsert of %+v kept %+v", c, merged)
		}
		tc, ok := all[c.ID]
		if !ok {
			tc.order = len(all)
		}
		tc.c = merged // with what Merge keeps, e.g. that a charge still cancelled had expired
		all[c.ID] = tc
	}
	const n = 150
	for i := range n {
		upsert(randomCharge(r, i))
	}
	want := refView(all, ChargeQuery{}, time.UTC)
	for _, w := range []struct{ offset, limit, rows int }{{0, 10, 10}, {10, 5, 5}, {145, 10, 5}, {n, 5, 0}, {n + 7, 5, 0}, {-3, 4, 4}, {3, 0, 0}} {
		p := windowT(t, s, ChargeQuery{}, w.offset, w.limit)
		start := max(w.offset, 0)
		if got := chargeIDs(p.Charges); len(got) != w.rows || !slices.Equal(got, want[min(start, n):min(start+w.rows, n)]) || p.Total != n || p.Offset != start {
			t.Fatalf("window %d+%d: %v (total %d, offset %d)", w.offset, w.limit, got, p.Total, p.Offset)
		}
	}
	queries := func() {
		t.Helper()
		for i, text := range []string{"", "c", "caf", "CAFÉ", " pão ", "AÇ", "loja-", "ref-1", "ref-12", "paid", "expired", "principal", "zzz"} {
			checkQuery(t, s, all, ChargeQuery{Text: text})
			checkQuery(t, s, all, ChargeQuery{Text: text, Wallet: []string{"principal", "loja-a", "nowhere"}[i%3]})
		}
		for i, st := range StatusFilters() {
			checkQuery(t, s, all, ChargeQuery{Status: st})
			checkQuery(t, s, all, ChargeQuery{Text: []string{"pão", "bolo s", "1"}[i%3], Status: st, Wallet: []string{"", "loja-b"}[i%2]})
		}
		for _, wallet := range []string{"", "principal", "loja-a", "nowhere"} {
			counts, err := s.Counts(ctx, wallet)
			if err != nil {
				t.Fatal(err)
			}
			ref := map[ChargeState]Count{}
			for _, tc := range all {
				if wallet == "" || tc.c.Wallet == wallet {
					sc := ref[tc.c.State()]
					sc.N++
					sc.Amount += int64(tc.c.Amount)
					ref[tc.c.State()] = sc
				}
			}
			if !equalJSON(t, counts, ref) {
				t.Fatalf("Counts(%q) = %v, want %v", wallet, counts, ref)
			}
		}
	}
	queries()
	// Updates of state, text and amount (a final state may still change to a newer final one).
	for i := range 60 {
		c := all[fmt.Sprintf("id-%05d", r.IntN(n))].c
		c.Status = testStatuses[1+r.IntN(len(testStatuses)-1)]
		c.Expired = false
		c.Description = []string{"bolo", "pão", "Bolo de milho"}[r.IntN(3)]
		c.Amount = api.Money(1 + r.IntN(100000))
		c.UpdatedAt = at(1000 + i)
		upsert(c)
	}
	queries()
}

// The list's order is its creation time: a charge tracked before its creation time was known
// (a 201 without createdAt: placed at the local clock's now) moves to its place among the
// others once a lookup tells when it was created.
func TestChargeWindowOrderFollowsCreation(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC), WithClock(func() time.Time { return at(100) }))
	defer s.Close()
	for i, id := range []string{"a", "b", "c"} {
		if _, err := s.UpsertCharge(ctx, Charge{ID: id, Amount: 100, Status: api.StatusPending, CreatedAt: at(10 * i), Source: SourceCreated}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UpsertCharge(ctx, Charge{ID: "late", Amount: 100, Status: api.StatusPending, Source: SourceCreated}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ApplyTransaction(ctx, &api.Transaction{ID: "late", Status: api.StatusCompleted, Amount: 100, CreatedAt: at(5)}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, q := range []ChargeQuery{{}, {Text: "100"}, {Text: "2025 12:00"}} {
		p := windowT(t, s, q, 0, 10)
		got := chargeIDs(p.Charges)
		if !slices.Equal(got, []string{"c", "b", "late", "a"}) {
			t.Errorf("%+v: order %v, want c b late a", q, got)
			for _, c := range p.Charges {
				t.Logf("%s created %s", c.ID, c.CreatedAt.Format(time.TimeOnly))
			}
		}
	}
}

// probeCharges are the charges TestChargeFilter looks for.
func probeCharges() []Charge {
	day := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	return []Charge{
		{ID: "7f3a-UUID", Wallet: "loja-centro", Amount: 123456, Description: "Pão de Queijo", ExternalReference: "Pedido-99",
			Status: api.StatusCompleted, CreatedAt: day(23, 14, 5), PayerName: "JOÃO", E2EID: "E2E999"},
		{ID: "other", Amount: 100, Status: api.StatusPending, CreatedAt: day(22, 9, 30)},
		{ID: "q-quote", Wallet: "loja-centro", Amount: 4200, Description: `diz "oi" já`, Status: api.StatusPending, CreatedAt: day(21, 10, 0)},
		{ID: "q-syntax", Amount: 5, Description: `2*3 AND NEAR(a b) col:val -x ^y {z} 'q' 50% a_b c\d`, Status: api.StatusFailed, CreatedAt: day(20, 11, 0)},
		{ID: "q-neg", Wallet: "loja-sul", Amount: -250, Description: "estorno", Status: api.StatusCancelled, Expired: true, CreatedAt: day(19, 12, 0)},
		{ID: "q-big", Amount: 123456789, Description: "Grande", Status: api.StatusCompleted, CreatedAt: day(18, 13, 0)},
	}
}

// fillerCount is how many charges bigStore holds besides the probes: enough that a text filter
// over all of them, or over the failed ones, takes the full-text index.
const fillerCount = smallSlice + 100

// fillers are charges none of TestChargeFilter's queries matches, from a small vocabulary.
func filler(i int) Charge {
	return Charge{
		ID:                fmt.Sprintf("fill-%05d", i),
		Wallet:            []string{"zz-fill", "zz-fill", "zz-fill", "loja-b"}[i%4],
		Amount:            api.Money(700 + i%50),
		Description:       []string{"bolo", "suco", "água gelada", "Açaí", "misto quente"}[i%5],
		ExternalReference: fmt.Sprintf("REF-%d", i%97),
		Status:            api.StatusFailed,
		CreatedAt:         time.Date(2020, 1, 5, 8, 9, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond),
		Source:            SourceCreated,
	}
}

// insertFillers writes charges in one statement (from JSONB, the cheapest to read). It bypasses
// UpsertCharge, which costs several milliseconds a charge under -race, but builds the rows as
// putChargeTx does (its seq, its haystack); the schema's triggers keep the counts and the
// full-text index.
func insertFillers(s *Store, cs []Charge) error {
	type row struct {
		Seq, Amount, Created int64
		ID, Wallet, State    string
		Hay, Doc             string
	}
	rows := make([]row, len(cs))
	for i, c := range cs {
		doc, err := json.Marshal(c)
		if err != nil {
			return err
		}
		st := c.State()
		rows[i] = row{c.CreatedAt.UnixMilli() << chargeSeqShift, int64(c.Amount), c.CreatedAt.UnixMilli(), c.ID, c.Wallet, string(st), haystack(&c, st, s.loc), string(doc)}
	}
	arg, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		_, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc)
			SELECT r->>'Seq', r->>'ID', r->>'Wallet', r->>'State', r->>'Amount', r->>'Created', r->>'Created', r->>'Hay', r->>'Doc'
			FROM (SELECT value AS r FROM jsonb_each(jsonb(?)))`, string(arg))
		return nil, err
	})
}

// bigStore is a memory store with the probes and fillerCount fillers, built once per process
// (tests only read it).
var bigStore = sync.OnceValues(func() (*Store, error) {
	s := OpenMemory(WithLocation(time.UTC))
	cs := make([]Charge, fillerCount)
	for i := range cs {
		cs[i] = filler(i)
	}
	if err := insertFillers(s, cs); err != nil {
		return nil, err
	}
	for _, c := range probeCharges() {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			return nil, err
		}
	}
	return s, nil
})

func bigStoreT(t testing.TB) *Store {
	t.Helper()
	s, err := bigStore()
	if err != nil {
		t.Fatalf("building the fixture: %v", err)
	}
	if n, err := s.countSlice(ctx, "", FilterFailed); err != nil || n <= smallSlice {
		t.Fatalf("the fixture has %d failed charges (%v): too few for the full-text path", n, err)
	}
	return s
}

// The text filter matches every field the list shows, as people type it, literally: quotes and
// full-text syntax are plain characters. The row-by-row path (a few charges) and the
// full-text path (thousands) give the same answers.
func TestChargeFilter(t *testing.T) {
	small := OpenMemory(WithLocation(time.UTC))
	defer small.Close()
	for _, c := range probeCharges() {
		if _, err := small.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	big := bigStoreT(t)
	tests := []struct {
		q    string
		st   StatusFilter
		want string // ids, newest first
	}{
		{"7F3A", FilterAll, "7f3a-UUID"},
		{"pão de q", FilterAll, "7f3a-UUID"},
		{"PEDIDO-99", FilterAll, "7f3a-UUID"},
		{"loja-centro", FilterAll, "7f3a-UUID q-quote"},
		{"1.234,56", FilterAll, "7f3a-UUID"},
		{"1234,56", FilterAll, "7f3a-UUID"},
		{"1234.56", FilterAll, "7f3a-UUID"},
		{"123456", FilterAll, "7f3a-UUID q-big"},
		{"r$ 1.234", FilterAll, "7f3a-UUID q-big"},
		{"1.234.567,89", FilterAll, "q-big"},
		{"1,00", FilterAll, "other"},
		{"2,50", FilterAll, "q-neg"},
		{"completed", FilterAll, "7f3a-UUID q-big"},
		{"paid", FilterAll, "7f3a-UUID q-big"},
		{"expired", FilterAll, "q-neg"},
		{"joão", FilterAll, "7f3a-UUID"},
		{"JOÃO", FilterAll, "7f3a-UUID"},
		{"e2e999", FilterAll, "7f3a-UUID"},
		{"23/11", FilterAll, "7f3a-UUID"},
		{"23/11/2026 14:05", FilterAll, "7f3a-UUID"},
		{"14:05", FilterAll, "7f3a-UUID"},
		{"/11/2026", FilterAll, "7f3a-UUID other q-quote q-syntax q-neg q-big"},
		{"principal", FilterAll, "other q-syntax q-big"},
		{"pending", FilterAll, "other q-quote"},
		{"", FilterPaid, "7f3a-UUID q-big"},
		{"pão", FilterPending, ""},
		{"queijo pedido", FilterAll, ""}, // never across fields
		{"nothing", FilterAll, ""},
		// Quotes and full-text syntax, matched literally.
		{`"`, FilterAll, "q-quote"},
		{`"oi"`, FilterAll, "q-quote"},
		{`diz "oi" já`, FilterAll, "q-quote"},
		{`""`, FilterAll, ""},
		{`"""`, FilterAll, ""},
		{`*`, FilterAll, "q-syntax"},
		{`2*3`, FilterAll, "q-syntax"},
		{`2*`, FilterAll, "q-syntax"},
		{`AND`, FilterAll, "q-syntax q-big"}, // "grANDe"
		{`3 AND NEAR(`, FilterAll, "q-syntax"},
		{`NEAR(`, FilterAll, "q-syntax"},
		{`near(a b)`, FilterAll, "q-syntax"},
		{`NEAR(a c)`, FilterAll, ""},
		{`col:val`, FilterAll, "q-syntax"},
		{`-x ^y`, FilterAll, "q-syntax"},
		{`{z}`, FilterAll, "q-syntax"},
		{`'q'`, FilterAll, "q-syntax"},
		{`50%`, FilterAll, "q-syntax"},
		{`5%0`, FilterAll, ""},
		{`a_b`, FilterAll, "q-syntax"},
		{`a%b`, FilterAll, ""},
		{`c\d`, FilterAll, "q-syntax"},
		{`OR`, FilterAll, "q-neg"}, // "estORno"
		{`x OR y`, FilterAll, ""},
		{`NOT`, FilterAll, ""},
		{`)`, FilterAll, "q-syntax"},
		{`"oi" OR "já"`, FilterAll, ""},
	}
	for _, tt := range tests {
		for name, s := range map[string]*Store{"row by row": small, "full text": big} {
			if s == big && utf8.RuneCountInString(strings.TrimSpace(tt.q)) < 3 {
				continue // row by row there too
			}
			q := ChargeQuery{Text: tt.q, Status: tt.st}
			p := windowT(t, s, q, 0, 20)
			if got := strings.Join(chargeIDs(p.Charges), " "); got != tt.want || p.Total != len(p.Charges) || p.Capped {
				t.Errorf("%s: %+v: %q (total %d), want %q", name, q, got, p.Total, tt.want)
			}
		}
	}
}

// A text filter counts its matches up to MaxCountedMatches; past that the total says "at
// least", and grows to cover the window read.
func TestChargeFilterCappedCount(t *testing.T) {
	s := bigStoreT(t)
	tests := []struct {
		q              ChargeQuery
		offset, limit  int
		rows, total    int
		capped         bool
		first          string
		fullTextOrRows string
	}{
		{ChargeQuery{Text: "fill-00"}, 0, 5, 5, 1000, false, "fill-00999", "full text, exactly the cap"},
		{ChargeQuery{Text: "fill-0"}, 0, 5, 5, 1000, true, fmt.Sprintf("fill-%05d", fillerCount-1), "full text"},
		{ChargeQuery{Text: "fill-0"}, 1990, 20, 20, 2010, true, fmt.Sprintf("fill-%05d", fillerCount-1991), "full text, deep window"},
		{ChargeQuery{Text: "fill-0"}, fillerCount - 10, 20, 10, fillerCount, true, "fill-00009", "full text, last window"},
		{ChargeQuery{Text: "fill-0"}, fillerCount + 10, 20, 0, 1000, true, "", "full text, past the end"},
		// One or two characters on a large list are checked row by row and not counted: the
		// total is what the window holds, "and more".
		{ChargeQuery{Text: "fi"}, 0, 5, 5, 5, true, fmt.Sprintf("fill-%05d", fillerCount-1), "row by row"},
		{ChargeQuery{Text: "fi"}, fillerCount - 2, 5, 2, fillerCount, false, "fill-00001", "row by row, last window"},
		{ChargeQuery{Text: "fill-0", Wallet: "loja-b"}, 0, 5, 5, fillerCount / 4, false, fmt.Sprintf("fill-%05d", fillerCount-1), "row by row, wallet, under the cap"},
		{ChargeQuery{Text: "fill-00", Status: FilterPaid}, 0, 5, 0, 0, false, "", "row by row, no match"},
		{ChargeQuery{}, 0, 5, 5, fillerCount + len(probeCharges()), false, "7f3a-UUID", "no text: exact"},
	}
	for _, tt := range tests {
		p := windowT(t, s, tt.q, tt.offset, tt.limit)
		first := ""
		if len(p.Charges) > 0 {
			first = p.Charges[0].ID
		}
		if len(p.Charges) != tt.rows || p.Total != tt.total || p.Capped != tt.capped || first != tt.first {
			t.Errorf("%s: %+v at %d: %d rows from %q, total %d capped %v; want %d rows from %q, total %d capped %v",
				tt.fullTextOrRows, tt.q, tt.offset, len(p.Charges), first, p.Total, p.Capped, tt.rows, tt.first, tt.total, tt.capped)
		}
	}
}

// A window in the older half is read from the other end and holds the same rows, in the same
// order, as the list read from the top.
func TestChargeWindowFromTheOtherEnd(t *testing.T) {
	s := bigStoreT(t)
	for _, q := range []ChargeQuery{{}, {Wallet: "loja-b"}, {Status: FilterFailed}} {
		all := windowT(t, s, q, 0, 1_000_000)
		if len(all.Charges) != all.Total || all.Total < 10 {
			t.Fatalf("%+v: %d rows of %d", q, len(all.Charges), all.Total)
		}
		for _, off := range []int{all.Total/2 + 1, all.Total - 7, all.Total - 1, all.Total + 3} {
			p := windowT(t, s, q, off, 7)
			want := chargeIDs(all.Charges[min(off, all.Total):min(off+7, all.Total)])
			if got := chargeIDs(p.Charges); !slices.Equal(got, want) || p.Total != all.Total {
				t.Errorf("%+v at %d: %v (total %d), want %v (total %d)", q, off, got, p.Total, want, all.Total)
			}
		}
	}
}

func TestChargeWindowWalletFilter(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, w := range []string{"principal", "loja-sul", "", "loja-sul", "loja-norte"} {
		if _, err := s.UpsertCharge(ctx, Charge{ID: fmt.Sprintf("c%d", i), Wallet: w, Status: api.StatusPending, CreatedAt: base.Add(time.Duration(i) * time.Minute), Description: "bolo"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		wallet, query string
		want          []string
	}{
		{"", "", []string{"c4", "c3", "c2", "c1", "c0"}},
		{"loja-sul", "", []string{"c3", "c1"}},
		{"principal", "", []string{"c2", "c0"}}, // "" is the main account
		{"loja-sul", "bolo", []string{"c3", "c1"}},
		{"loja-sul", "zzz", []string{}},
		{"nowhere", "", []string{}},
	}
	for _, tc := range tests {
		p := windowT(t, s, ChargeQuery{Wallet: tc.wallet, Text: tc.query}, 0, 10)
		if got := chargeIDs(p.Charges); !slices.Equal(got, tc.want) || p.Total != len(tc.want) {
			t.Errorf("wallet %q query %q: got %v (total %d), want %v", tc.wallet, tc.query, got, p.Total, tc.want)
		}
	}
}

func TestStatusFilterNext(t *testing.T) {
	f := FilterAll
	seen := map[StatusFilter]bool{}
	for range StatusFilters() {
		seen[f] = true
		f = f.Next()
	}
	if f != FilterAll || len(seen) != len(StatusFilters()) {
		t.Fatalf("cycle ends at %q after %d filters", f, len(seen))
	}
	if StatusFilter("bogus").Next() != FilterAll {
		t.Fatal("unknown filter does not reset")
	}
}

func TestHaystackAmounts(t *testing.T) {
	tests := []struct {
		m    api.Money
		want []string
	}{
		{1234, []string{"r$ 12,34", "12,34", "12.34", "1234"}},
		{123456789, []string{"r$ 1.234.567,89", "1234567,89", "1234567.89", "123456789"}},
		{5, []string{"r$ 0,05", "0,05", "0.05", "\x1f5\x1f"}},
		{-100, []string{"-r$ 1,00", "1,00", "1.00", "100"}},
		{99999, []string{"r$ 999,99", "999,99", "999.99", "99999"}},
		{100000, []string{"r$ 1.000,00", "1000,00", "1000.00", "100000"}},
	}
	for _, tt := range tests {
		c := Charge{ID: "X", Amount: tt.m, Status: api.StatusPending}
		h := haystack(&c, c.State(), time.UTC)
		for _, w := range tt.want {
			if !strings.Contains(h, w) {
				t.Errorf("%d: %q lacks %q", tt.m, h, w)
			}
		}
		if strings.Contains(h, "X") {
			t.Errorf("%q not lowercased", h)
		}
	}
}

// The date a charge matches is the one the list shows: in the store's time zone.
func TestChargeFilterDateInLocation(t *testing.T) {
	sp := time.FixedZone("BRT", -3*3600)
	s := OpenMemory(WithLocation(sp))
	defer s.Close()
	// 01:30 UTC on the 24th is 22:30 on the 23rd in São Paulo.
	if _, err := s.UpsertCharge(ctx, Charge{ID: "night", Amount: 100, Status: api.StatusPending, CreatedAt: time.Date(2026, 11, 24, 1, 30, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	for q, n := range map[string]int{"23/11/2026 22:30": 1, "24/11": 0, "01:30": 0} {
		if p := windowT(t, s, ChargeQuery{Text: q}, 0, 5); p.Total != n {
			t.Errorf("%q: %d matches, want %d", q, p.Total, n)
		}
	}
}

func TestDuePolls(t *testing.T) {
	newStore := func(t *testing.T) *Store {
		s := OpenMemory() // polls on DefaultPollPolicy
		t.Cleanup(func() { s.Close() })
		for i, st := range []api.TxStatus{api.StatusPending, api.StatusPending, api.StatusPending, api.StatusCompleted, api.StatusCancelled} {
			if _, err := s.UpsertCharge(ctx, Charge{ID: fmt.Sprintf("c%d", i), Status: st, CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	type step struct {
		at      time.Duration // since t0
		focused string
		max     int
		want    []string
		polled  []string // MarkPolled at the same instant, after the call
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "nothing due before the first interval, final charges never",
			steps: []step{
				{at: 4 * time.Second, max: 10, want: nil},
				{at: 5 * time.Second, max: 10, want: []string{"c0", "c1", "c2"}},
			},
		},
		{
			name: "focused every 2 s, others back off",
			steps: []step{
				{at: 2 * time.Second, focused: "c1", max: 10, want: []string{"c1"}, polled: []string{"c1"}},
				{at: 3 * time.Second, focused: "c1", max: 10, want: nil},
				{at: 4 * time.Second, focused: "c1", max: 10, want: []string{"c1"}, polled: []string{"c1"}},
				{at: 5 * time.Second, focused: "c1", max: 10, want: []string{"c0", "c2"}, polled: []string{"c0", "c2"}},
				{at: 6 * time.Second, focused: "c1", max: 10, want: []string{"c1"}, polled: []string{"c1"}}, // c1 polled 3 times: next 6+40 s
				{at: 14 * time.Second, max: 10, want: nil},                                                  // c0, c2: next 5+10 s
				{at: 15 * time.Second, max: 10, want: []string{"c0", "c2"}, polled: []string{"c0", "c2"}},   // next 15+20 s
				{at: 35 * time.Second, max: 10, want: []string{"c0", "c2"}, polled: []string{"c0", "c2"}},   // next 35+40 s
				{at: 46 * time.Second, max: 10, want: []string{"c1"}, polled: []string{"c1"}},               // next 46+60 s (cap)
				{at: 75 * time.Second, max: 10, want: []string{"c0", "c2"}, polled: []string{"c0", "c2"}},   // next 75+60 s (cap)
				{at: 106 * time.Second, max: 10, want: []string{"c1"}},                                      // no MarkPolled: leased to 136 s
				{at: 135 * time.Second, max: 10, want: []string{"c0", "c2"}, polled: []string{"c0", "c2"}},  // next 195 s
				{at: 136 * time.Second, max: 10, want: []string{"c1"}},                                      // lease ran out; leased to 166 s
				{at: 195 * time.Second, max: 10, want: []string{"c1", "c0", "c2"}},                          // most overdue first
				{at: 195 * time.Second, focused: "c3", max: 10, want: nil},                                  // a paid charge is never polled
				{at: 195 * time.Second, focused: "nope", max: 10, want: nil},                                // unknown focus is harmless
				{at: 196 * time.Second, focused: "c1", max: 10, want: nil},                                  // focused but leased
			},
		},
		{
			name: "global cap, most overdue first, leases",
			steps: []step{
				{at: 5 * time.Second, max: 2, want: []string{"c0", "c1"}},
				{at: 5 * time.Second, max: 2, want: []string{"c2"}},  // the first two are leased
				{at: 20 * time.Second, max: 5, want: nil},            // still leased (30 s)
				{at: 35 * time.Second, max: 1, want: []string{"c0"}}, // lease ran out: due again
				{at: 35 * time.Second, max: 0, want: nil},            // max 0 asks nothing
				{at: 35 * time.Second, focused: "c1", max: 1, want: []string{"c1"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			if s.PendingCount() != 3 {
				t.Fatalf("%d pending, want 3", s.PendingCount())
			}
			for i, st := range tt.steps {
				now := t0.Add(st.at)
				if got := s.DuePolls(now, st.focused, st.max); !slices.Equal(got, st.want) {
					t.Fatalf("step %d (%v): got %v, want %v", i, st.at, got, st.want)
				}
				for _, id := range st.polled {
					s.MarkPolled(id, now)
				}
			}
		})
	}
}

// A charge leaves the schedule once final, and the schedule is rebuilt from the database on
// open.
func TestDuePollsFollowFinalStatesAndReopen(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	for _, id := range []string{"a", "b"} {
		if _, err := s.UpsertCharge(ctx, Charge{ID: id, Status: api.StatusPending, CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.DuePolls(at(10), "a", 5); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %v", got)
	}
	if _, ok, err := s.ApplyTransaction(ctx, &api.Transaction{ID: "a", Status: api.StatusCompleted, UpdatedAt: tp(at(11))}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	s.MarkPolled("a", at(11))
	if s.PendingCount() != 1 {
		t.Fatalf("%d pending, want 1", s.PendingCount())
	}
	if got := s.DuePolls(at(1000), "a", 5); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("paid charge polled: %v", got)
	}
	if c, ok := s.Peek("a"); !ok || c.State() != StatePaid {
		t.Fatalf("Peek(a) = %+v %v", c, ok)
	}
	s.Close()
	s = openT(t, dir, "p")
	if got := s.DuePolls(at(1000), "", 5); s.PendingCount() != 1 || !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after reopen: %d pending, due %v", s.PendingCount(), got)
	}
}

// evT builds a received event of a kind in a wallet.
func evT(t testing.TB, id string, kind api.EventKind, wallet string) *api.Event {
	return rawEvent(t, &api.Event{EventID: id, Kind: kind, SubAccount: wallet, CreatedAt: at(1), TransactionID: "tx-" + id})
}

func entryIDs(es []EventEntry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.Event.EventID
	}
	return ids
}

// Copies of an eventId are counted on its first entry, which keeps its place and time.
func TestEventWindowDedupe(t *testing.T) {
	clk := &testClock{t: t0}
	s := OpenMemory(WithClock(clk.now))
	defer s.Close()
	steps := []struct {
		e     *api.Event
		first bool
	}{
		{evT(t, "e1", api.EventPaymentCompleted, ""), true},
		{evT(t, "e2", api.EventPaymentExpired, "loja"), true},
		{evT(t, "e1", api.EventPaymentCompleted, ""), false},
		{evT(t, "e3", api.EventRefundCompleted, "loja"), true},
		{evT(t, "e1", api.EventPaymentCompleted, ""), false},
		{evT(t, "e2", api.EventPaymentExpired, "loja"), false},
	}
	for i, st := range steps {
		if got, err := s.ApplyEvent(ctx, st.e); err != nil || got != st.first {
			t.Fatalf("step %d (%s): first=%v %v, want %v", i, st.e.EventID, got, err, st.first)
		}
		clk.add(time.Second)
	}
	p, err := s.EventWindow(ctx, EventQuery{}, 0, 10)
	if err != nil || p.Total != 3 || !slices.Equal(entryIDs(p.Entries), []string{"e3", "e2", "e1"}) {
		t.Fatalf("window %v total %d %v", entryIDs(p.Entries), p.Total, err)
	}
	for _, e := range p.Entries {
		if want := map[string]int{"e1": 3, "e2": 2, "e3": 1}[e.Event.EventID]; e.Count != want {
			t.Errorf("%s: %d copies, want %d", e.Event.EventID, e.Count, want)
		}
	}
	if e, _ := eventT(t, s, "e1"); !e.ReceivedAt.Equal(t0) {
		t.Errorf("e1 received at %v, want its first copy's %v", e.ReceivedAt, t0)
	}
	if _, ok := eventT(t, s, "e9"); ok {
		t.Error("an unknown event was found")
	}
}

// EventWindow filters by kind and wallet, newest first, with exact totals, any window.
func TestEventWindowFilter(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	kinds := []api.EventKind{api.EventPaymentCompleted, api.EventPaymentFailed, api.EventBalanceBlockCreated}
	wallets := []string{"", "principal", "loja-a", "loja-b"}
	type item struct {
		id     string
		kind   api.EventKind
		wallet string
	}
	var all []item
	add := func(from, to int) {
		var batch []*api.Event
		for i := from; i < to; i++ {
			it := item{fmt.Sprintf("e%03d", i), kinds[i%3], wallets[(i/3)%4]}
			batch = append(batch, evT(t, it.id, it.kind, it.wallet))
			all = append(all, it)
		}
		if _, err := s.ApplyEvents(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	want := func(q EventQuery) []string {
		var out []string
		for i := len(all) - 1; i >= 0; i-- {
			if (q.Kind == "" || all[i].kind == q.Kind) && (q.Wallet == "" || NormalizeWallet(all[i].wallet) == q.Wallet) {
				out = append(out, all[i].id)
			}
		}
		return out
	}
	check := func() {
		t.Helper()
		windows := func(n int) [][2]int { return [][2]int{{0, 1000}, {0, 3}, {2, 5}, {n - 1, 5}, {n + 2, 5}} }
		for i, k := range append([]api.EventKind{""}, kinds...) {
			for j, w := range []string{"", "principal", "loja-a", "nope"} {
				q := EventQuery{Kind: k, Wallet: w}
				ref := want(q)
				for _, win := range windows(len(ref))[:1+(i+j)%5] {
					p, err := s.EventWindow(ctx, q, win[0], win[1])
					lo := min(max(win[0], 0), len(ref))
					if err != nil || p.Total != len(ref) || !slices.Equal(entryIDs(p.Entries), ref[lo:min(lo+win[1], len(ref))]) {
						t.Fatalf("%+v window %v: %v total %d %v, want %d", q, win, entryIDs(p.Entries), p.Total, err, len(ref))
					}
				}
			}
		}
	}
	add(0, 100)
	check()
	// Events arriving later join the selections.
	v := s.Version()
	add(100, 130)
	if s.Version() == v {
		t.Fatal("version did not change")
	}
	check()
	f, err := s.Facets(ctx)
	if err != nil || !slices.Equal(f.Wallets, []string{"loja-a", "loja-b", "principal"}) || !slices.Equal(f.Kinds, []api.EventKind{api.EventBalanceBlockCreated, api.EventPaymentCompleted, api.EventPaymentFailed}) || f.Total != len(all) {
		t.Fatalf("facets %+v %v", f, err)
	}
}

// EventsAfter feeds new arrivals oldest first; UncheckedPayments lists the payment events not
// read back; PruneEvents forgets old events (and their counts), and a pruned event sent again
// is new.
func TestEventsAfterUncheckedAndPrune(t *testing.T) {
	clk := &testClock{t: t0}
	s := OpenMemory(WithClock(clk.now))
	defer s.Close()
	if seq, err := s.LastEventSeq(ctx); err != nil || seq != 0 {
		t.Fatalf("LastEventSeq of nothing = %d %v", seq, err)
	}
	kinds := []api.EventKind{api.EventPaymentCompleted, api.EventWithdrawalCompleted, api.EventPaymentFailed, api.EventPaymentExpired}
	for i := range 8 {
		if _, err := s.ApplyEvent(ctx, evT(t, fmt.Sprintf("e%d", i), kinds[i%4], "")); err != nil {
			t.Fatal(err)
		}
		clk.add(time.Hour)
	}
	last, _ := s.LastEventSeq(ctx)
	mid, err := s.EventsAfter(ctx, 0, 3)
	if err != nil || !slices.Equal(entryIDs(mid), []string{"e0", "e1", "e2"}) {
		t.Fatalf("EventsAfter(0, 3) = %v %v", entryIDs(mid), err)
	}
	rest, _ := s.EventsAfter(ctx, mid[2].Seq, 100)
	if !slices.Equal(entryIDs(rest), []string{"e3", "e4", "e5", "e6", "e7"}) || rest[len(rest)-1].Seq != last {
		t.Fatalf("EventsAfter(e2) = %v", entryIDs(rest))
	}
	if none, _ := s.EventsAfter(ctx, last, 10); len(none) != 0 {
		t.Fatalf("EventsAfter(last) = %v", entryIDs(none))
	}
	if err := s.SetEventVerdict(ctx, "e2", VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	un, err := s.UncheckedPayments(ctx, 100)
	if err != nil || !slices.Equal(entryIDs(un), []string{"e7", "e6", "e5", "e4", "e3", "e1", "e0"}) {
		t.Fatalf("UncheckedPayments = %v %v", entryIDs(un), err)
	}
	if un, _ := s.UncheckedPayments(ctx, 2); !slices.Equal(entryIDs(un), []string{"e7", "e6"}) {
		t.Fatalf("UncheckedPayments(2) = %v", entryIDs(un))
	}
	// Received at t0 + i hours: prune the first three.
	n, err := s.PruneEvents(ctx, t0.Add(150*time.Minute))
	if err != nil || n != 3 {
		t.Fatalf("PruneEvents = %d %v", n, err)
	}
	p, _ := s.EventWindow(ctx, EventQuery{}, 0, 100)
	if p.Total != 5 || !slices.Equal(entryIDs(p.Entries), []string{"e7", "e6", "e5", "e4", "e3"}) {
		t.Fatalf("after pruning: %v total %d", entryIDs(p.Entries), p.Total)
	}
	if f, err := s.Facets(ctx); err != nil || f.Total != 5 || !slices.Equal(f.Kinds, []api.EventKind{api.EventPaymentCompleted, api.EventPaymentExpired, api.EventPaymentFailed, api.EventWithdrawalCompleted}) {
		t.Fatalf("facets after pruning: %+v %v", f, err)
	}
	if p, _ := s.EventWindow(ctx, EventQuery{Kind: api.EventPaymentCompleted}, 0, 100); p.Total != 1 {
		t.Fatalf("payment_completed total %d after pruning, want 1", p.Total)
	}
	if first, err := s.ApplyEvent(ctx, evT(t, "e0", api.EventPaymentCompleted, "")); err != nil || !first {
		t.Fatalf("a pruned event sent again: first=%v %v", first, err)
	}
	if un, _ := s.UncheckedPayments(ctx, 1); !slices.Equal(entryIDs(un), []string{"e0"}) {
		t.Fatalf("the event sent again is not to be read back: %v", entryIDs(un))
	}
}
