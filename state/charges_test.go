package state

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

var testStatuses = []api.TxStatus{api.StatusPending, api.StatusCompleted, api.StatusFailed, api.StatusCancelled}

// randomCharge makes a charge with fields drawn from small vocabularies, so queries collide.
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
		CreatedAt:         at(r.IntN(1000)), // many ties: ordering falls back to the ID
		Source:            SourceCreated,
	}
	c.UpdatedAt = c.CreatedAt
	if c.Status == api.StatusCancelled && r.IntN(2) == 0 {
		c.Expired = true
	}
	return c
}

// refFields lists the texts a query may match, written independently of haystack.
func refFields(c Charge) []string {
	brl := c.Amount.BRL()
	bare := strings.TrimPrefix(strings.TrimPrefix(brl, "-"), "R$ ")
	digits := fmt.Sprint(int64(c.Amount))
	if c.Amount < 0 {
		digits = fmt.Sprint(-int64(c.Amount))
	}
	return []string{c.ID, c.Description, c.ExternalReference, c.Wallet, brl, strings.ReplaceAll(bare, ".", ""),
		strings.TrimPrefix(c.Amount.Decimal(), "-"), digits, string(c.Status), string(c.State()), c.PayerName, c.E2EID}
}

// refView is the obviously-correct filtered view: a full sort and scan.
func refView(all map[string]Charge, query string, status StatusFilter) []string {
	q := strings.ToLower(query)
	var out []Charge
	for _, c := range all {
		if !status.Match(c.State()) {
			continue
		}
		if q != "" && !slices.ContainsFunc(refFields(c), func(f string) bool { return strings.Contains(strings.ToLower(f), q) }) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Charge) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(out))
	for i, c := range out {
		ids[i] = c.ID
	}
	return ids
}

func viewIDs(cs *Charges) []string {
	ids := make([]string, cs.Len())
	for i := range ids {
		c, ok := cs.At(i)
		if !ok {
			panic("At out of range inside Len")
		}
		ids[i] = c.ID
	}
	return ids
}

func TestChargesOrderAndUpsert(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cs := NewCharges()
	all := map[string]Charge{}
	for i := range 500 {
		c := randomCharge(r, i)
		if !cs.Upsert(c) {
			t.Fatalf("charge %s reported as known", c.ID)
		}
		all[c.ID] = c
	}
	// Updates, some of which move a charge in the order.
	for range 300 {
		id := fmt.Sprintf("id-%05d", r.IntN(500))
		c := all[id]
		c.CreatedAt = at(r.IntN(1000))
		c.Status = testStatuses[r.IntN(len(testStatuses))]
		if cs.Upsert(c) {
			t.Fatalf("charge %s reported as new", id)
		}
		all[id] = c
	}
	if cs.Total() != 500 || cs.Len() != 500 {
		t.Fatalf("total %d len %d", cs.Total(), cs.Len())
	}
	if got, want := viewIDs(cs), refView(all, "", FilterAll); !slices.Equal(got, want) {
		t.Fatalf("order differs\ngot  %v\nwant %v", got[:10], want[:10])
	}
	if _, ok := cs.At(500); ok {
		t.Fatal("At past the end")
	}
	if _, ok := cs.At(-1); ok {
		t.Fatal("At before the start")
	}
	for _, id := range []string{"id-00000", "id-00250", "id-00499"} {
		i := cs.Index(id)
		if c, _ := cs.At(i); c.ID != id {
			t.Fatalf("Index(%s)=%d points to %s", id, i, c.ID)
		}
	}
	rows, _ := cs.Window(10, 5)
	if len(rows) != 5 {
		t.Fatalf("window %d rows", len(rows))
	}
	for k, c := range rows {
		if d, _ := cs.At(10 + k); d.ID != c.ID {
			t.Fatalf("window row %d is %s, At says %s", k, c.ID, d.ID)
		}
	}
	if rows, _ := cs.Window(498, 10); len(rows) != 2 {
		t.Fatalf("window at the end: %d rows", len(rows))
	}
}

func TestChargesFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cs := NewCharges()
	all := map[string]Charge{}
	for i := range 1000 {
		c := randomCharge(r, i)
		cs.Upsert(c)
		all[c.ID] = c
	}
	check := func(q string, st StatusFilter) {
		t.Helper()
		cs.SetFilter(q, st)
		if got, want := viewIDs(cs), refView(all, q, st); !slices.Equal(got, want) {
			t.Fatalf("filter %q %q: %d rows, want %d", q, st, len(got), len(want))
		}
	}
	// Typing, then deleting, a query: narrowing and widening.
	for _, q := range []string{"c", "ca", "caf", "café", "caf", "c", "", "A", "AÇ", "açaí", "loja-", "loja-b", "ref-1", "ref-12"} {
		check(q, FilterAll)
	}
	for _, st := range StatusFilters() {
		check("", st)
		check("pão", st)
		check("pão ", st)
	}
	// Changes while a filter is on keep the view exact.
	cs.SetFilter("bolo", FilterPending)
	for i := range 300 {
		var c Charge
		if i%3 == 0 {
			c = randomCharge(r, 1000+i)
		} else {
			c = all[fmt.Sprintf("id-%05d", r.IntN(1000))]
			c.Status = testStatuses[r.IntN(len(testStatuses))]
			c.Description = []string{"bolo", "pão", "Bolo de milho"}[r.IntN(3)]
			c.CreatedAt = at(r.IntN(1000))
		}
		cs.Upsert(c)
		all[c.ID] = c
	}
	if got, want := viewIDs(cs), refView(all, "bolo", FilterPending); !slices.Equal(got, want) {
		t.Fatalf("after updates: %d rows, want %d", len(got), len(want))
	}
	check("bolo d", FilterPending)
	check("", FilterAll)
}

func TestChargesFilterFields(t *testing.T) {
	c := Charge{ID: "7f3a-UUID", Wallet: "Loja-Centro", Amount: 123456, Description: "Pão de Queijo",
		ExternalReference: "Pedido-99", Status: api.StatusCompleted, CreatedAt: at(0), PayerName: "JOÃO", E2EID: "E2E999"}
	cs := NewCharges()
	cs.Upsert(c)
	cs.Upsert(Charge{ID: "other", Amount: 100, Status: api.StatusPending, CreatedAt: at(1)})
	tests := []struct {
		q    string
		st   StatusFilter
		want int
	}{
		{"7F3A", FilterAll, 1},
		{"pão de q", FilterAll, 1},
		{"PEDIDO-99", FilterAll, 1},
		{"loja-centro", FilterAll, 1},
		{"1.234,56", FilterAll, 1},
		{"1234,56", FilterAll, 1},
		{"1234.56", FilterAll, 1},
		{"123456", FilterAll, 1},
		{"r$ 1.234", FilterAll, 1},
		{"completed", FilterAll, 1},
		{"paid", FilterAll, 1},
		{"joão", FilterAll, 1},
		{"e2e999", FilterAll, 1},
		{"1,00", FilterAll, 1},
		{"pending", FilterAll, 1},
		{"principal", FilterAll, 1},
		{"", FilterPaid, 1},
		{"", FilterPending, 1},
		{"", FilterExpired, 0},
		{"pão", FilterPending, 0},
		{"queijo pedido", FilterAll, 0}, // never matches across fields
		{"nothing", FilterAll, 0},
	}
	for _, tt := range tests {
		cs.SetFilter(tt.q, tt.st)
		if cs.Len() != tt.want {
			t.Errorf("filter %q %q: %d rows, want %d", tt.q, tt.st, cs.Len(), tt.want)
		}
	}
}

func TestChargesVersion(t *testing.T) {
	cs := NewCharges()
	v := cs.Version()
	step := func(what string, f func(), changes bool) {
		t.Helper()
		f()
		nv := cs.Version()
		if (nv != v) != changes {
			t.Fatalf("%s: version %d -> %d, change expected %v", what, v, nv, changes)
		}
		v = nv
	}
	step("upsert", func() { cs.Upsert(Charge{ID: "a", Status: api.StatusPending, CreatedAt: at(0)}) }, true)
	step("filter", func() { cs.SetFilter("a", FilterAll) }, true)
	step("same filter", func() { cs.SetFilter("A", FilterAll) }, false)
	step("status filter", func() { cs.SetFilter("a", FilterPending) }, true)
	step("poll", func() { cs.DuePolls(at(100), "", 5) }, false)
	step("update", func() { cs.Upsert(Charge{ID: "a", Status: api.StatusCompleted, CreatedAt: at(0)}) }, true)
	if cs.Len() != 0 {
		t.Fatalf("paid charge still in the pending view")
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

func TestDuePolls(t *testing.T) {
	pol := DefaultPollPolicy()
	newSet := func() *Charges {
		cs := NewCharges()
		cs.SetPollPolicy(pol)
		for i, st := range []api.TxStatus{api.StatusPending, api.StatusPending, api.StatusPending, api.StatusCompleted, api.StatusCancelled} {
			cs.Upsert(Charge{ID: fmt.Sprintf("c%d", i), Status: st, CreatedAt: at(0), UpdatedAt: at(0)})
		}
		return cs
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
			cs := newSet()
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				got := cs.DuePolls(now, s.focused, s.max)
				if !slices.Equal(got, s.want) {
					t.Fatalf("step %d (%v): got %v, want %v", i, s.at, got, s.want)
				}
				for _, id := range s.polled {
					cs.MarkPolled(id, now)
				}
			}
		})
	}
}

func TestDuePollsStopsAtFinal(t *testing.T) {
	cs := NewCharges()
	cs.Upsert(Charge{ID: "a", Status: api.StatusPending, CreatedAt: at(0), UpdatedAt: at(0)})
	if cs.PendingCount() != 1 {
		t.Fatal("pending not scheduled")
	}
	if got := cs.DuePolls(at(10), "a", 5); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("got %v", got)
	}
	cs.Upsert(Charge{ID: "a", Status: api.StatusCompleted, CreatedAt: at(0), UpdatedAt: at(11)})
	cs.MarkPolled("a", at(11))
	if cs.PendingCount() != 0 {
		t.Fatal("paid charge still scheduled")
	}
	if got := cs.DuePolls(at(1000), "a", 5); got != nil {
		t.Fatalf("paid charge polled: %v", got)
	}
}

func TestHaystackAmounts(t *testing.T) {
	tests := []struct {
		m    api.Money
		want []string
	}{
		{1234, []string{"r$ 12,34", "12,34", "12.34", "1234"}},
		{123456789, []string{"r$ 1.234.567,89", "1234567,89", "1234567.89", "123456789"}},
		{5, []string{"r$ 0,05", "0,05", "0.05", "\x005\x00"}},
		{-100, []string{"-r$ 1,00", "1,00", "1.00", "100"}},
	}
	for _, tt := range tests {
		c := Charge{ID: "X", Amount: tt.m, Status: api.StatusPending}
		h := haystack(&c, c.State())
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

func TestChargesWalletFilter(t *testing.T) {
	cs := NewCharges()
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, w := range []string{"principal", "loja-sul", "", "loja-sul", "loja-norte"} {
		cs.Upsert(Charge{ID: fmt.Sprintf("c%d", i), Wallet: w, Status: api.StatusPending, CreatedAt: base.Add(time.Duration(i) * time.Minute), Description: "bolo"})
	}
	tests := []struct {
		wallet, query string
		want          []string
	}{
		{"", "", []string{"c4", "c3", "c2", "c1", "c0"}},
		{"loja-sul", "", []string{"c3", "c1"}},
		{"principal", "", []string{"c2", "c0"}}, // "" is the main account
		{"loja-sul", "bolo", []string{"c3", "c1"}},
		{"loja-sul", "zzz", nil},
		{"nowhere", "", nil},
	}
	for _, tc := range tests {
		cs.SetWallet(tc.wallet)
		cs.SetFilter(tc.query, FilterAll)
		var got []string
		for i := 0; i < cs.Len(); i++ {
			c, _ := cs.At(i)
			got = append(got, c.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("wallet %q query %q: got %v, want %v", tc.wallet, tc.query, got, tc.want)
		}
	}
}
