package state

import (
	"errors"
	"slices"
	"testing"

	"pixdash/api"
)

func TestSplitDraftParse(t *testing.T) {
	tests := []struct {
		text string
		want api.Money
		kind LegErrorKind
		err  error
	}{
		{"12,34", 1234, 0, nil},
		{"1.234,56", 123456, 0, nil},
		{"12.34", 1234, 0, nil},
		{" R$ 0,01 ", 1, 0, nil},
		{"5", 500, 0, nil},
		{"", 0, LegAmountMissing, nil},
		{"   ", 0, LegAmountMissing, nil},
		{"1,234", 0, LegAmountPrecision, api.ErrMoneyPrecision},
		{"abc", 0, LegAmountFormat, api.ErrMoneyFormat},
		{"1.2.3", 0, LegAmountFormat, api.ErrMoneyFormat},
		{"99999999999999999999", 0, LegAmountRange, api.ErrMoneyRange},
	}
	for _, tt := range tests {
		d := SplitDraft{Legs: []DraftLeg{{Dest: " loja-a ", AmountText: tt.text}}}
		items, errs := d.Parse()
		if len(items) != 1 || items[0].SubAccount != "loja-a" {
			t.Fatalf("%q: items %v", tt.text, items)
		}
		if tt.kind == 0 {
			if len(errs) != 0 || items[0].Amount != tt.want {
				t.Errorf("%q: amount %v errs %v, want %v", tt.text, items[0].Amount, errs, tt.want)
			}
			continue
		}
		if len(errs) != 1 || errs[0].Kind != tt.kind || errs[0].Index != 0 || errs[0].Msg == "" || items[0].Amount != 0 {
			t.Errorf("%q: errs %+v amount %v, want kind %d", tt.text, errs, items[0].Amount, tt.kind)
			continue
		}
		if tt.err != nil && !errors.Is(errs[0].Err, tt.err) {
			t.Errorf("%q: error %v is not %v", tt.text, errs[0].Err, tt.err)
		}
	}
}

func TestSplitDraftEdit(t *testing.T) {
	var d SplitDraft
	for _, dest := range []string{"a1", "b2", "c3", "d4"} {
		i := d.Add()
		d.Legs[i].Dest = dest
	}
	dests := func() []string {
		var out []string
		for _, l := range d.Legs {
			out = append(out, l.Dest)
		}
		return out
	}
	steps := []struct {
		op     func() int
		wantAt int
		want   []string
	}{
		{func() int { return d.Move(0, 2) }, 2, []string{"b2", "c3", "a1", "d4"}},
		{func() int { return d.Move(3, -1) }, 2, []string{"b2", "c3", "d4", "a1"}},
		{func() int { return d.Move(1, -5) }, 0, []string{"c3", "b2", "d4", "a1"}},
		{func() int { return d.Move(2, 9) }, 3, []string{"c3", "b2", "a1", "d4"}},
		{func() int { return d.Move(7, 1) }, 7, []string{"c3", "b2", "a1", "d4"}},
		{func() int { d.Remove(1); return -1 }, -1, []string{"c3", "a1", "d4"}},
		{func() int { d.Remove(5); return -1 }, -1, []string{"c3", "a1", "d4"}},
	}
	for i, s := range steps {
		if got := s.op(); got != s.wantAt {
			t.Fatalf("step %d: index %d, want %d", i, got, s.wantAt)
		}
		if !slices.Equal(dests(), s.want) {
			t.Fatalf("step %d: %v, want %v", i, dests(), s.want)
		}
	}
}

func TestSplitDraftSummaryAndPreview(t *testing.T) {
	d := SplitDraft{Legs: []DraftLeg{{"a1", "4,00"}, {"b2", "3,00"}, {"c3", "oops"}, {"d4", "2,00"}}}
	// Gross 10,00, fee 1,00: net 9,00, allocated 9,00 (equal to net is fine), keeps 0.
	sum := d.Summary(1000, 100)
	if sum != (SplitSummary{Gross: 1000, Fee: 100, Net: 900, Allocated: 900, Keeps: 0}) {
		t.Fatalf("summary %+v", sum)
	}
	if s := d.Summary(1000, 200); s.Keeps != -100 {
		t.Fatalf("over-allocated keeps %v", s.Keeps)
	}
	// A fee rise to 2,50 leaves net 7,50: a1 4,00, b2 3,00, c3 nothing typed, d4 reduced to 0,50.
	// To 4,00: net 6,00: b2 reduced to 2,00, d4 dropped.
	p := d.Preview(1000, 100, 250)
	paid := []api.Money{400, 300, 0, 200}
	higher := []api.Money{400, 300, 0, 50}
	for i := range p {
		if p[i].Paid != paid[i] || p[i].PaidIfHigher != higher[i] {
			t.Fatalf("leg %d: %+v", i, p[i])
		}
	}
	if !p[3].Reduced() || p[3].Dropped() || p[0].Reduced() {
		t.Fatalf("reduced/dropped wrong: %+v", p)
	}
	p = d.Preview(1000, 100, 400)
	if !p[1].Reduced() || p[1].PaidIfHigher != 200 || !p[3].Dropped() {
		t.Fatalf("fee 4,00: %+v", p)
	}
	// The items feed api.CheckSplit with matching indices.
	items, errs := d.Parse()
	if len(errs) != 1 || errs[0].Index != 2 {
		t.Fatalf("errs %+v", errs)
	}
	probs := api.CheckSplit(items, "", 1000, 100, nil)
	if len(probs) != 1 || probs[0].Rule != api.SplitAmountTooSmall || probs[0].Index != 2 {
		t.Fatalf("problems %+v", probs)
	}
}

func TestDraftFromItems(t *testing.T) {
	items := []api.SplitItem{{SubAccount: "a1", Amount: 123456}, {SubAccount: "principal", Amount: 1}}
	d := DraftFromItems(items)
	got, errs := d.Parse()
	if len(errs) != 0 || !slices.Equal(got, items) {
		t.Fatalf("round trip %v %v", got, errs)
	}
}
