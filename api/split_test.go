package api

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// ctLegs builds legs from "ref=centavos" pairs.
func ctLegs(spec ...string) []SplitItem {
	legs := make([]SplitItem, 0, len(spec))
	for _, s := range spec {
		ref, amt, _ := strings.Cut(s, "=")
		var v int64
		fmt.Sscan(amt, &v)
		legs = append(legs, SplitItem{SubAccount: ref, Amount: Money(v)})
	}
	return legs
}

// ctNLegs returns n valid legs of 1 centavo to distinct wallets.
func ctNLegs(n int) []SplitItem {
	legs := make([]SplitItem, n)
	for i := range legs {
		legs[i] = SplitItem{SubAccount: fmt.Sprintf("loja-%02d", i), Amount: 1}
	}
	return legs
}

func ctProblems(ps []SplitProblem) string {
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%d@%d", p.Rule, p.Index)
		if p.Ref != "" {
			s += ":" + p.Ref
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestCheckSplit(t *testing.T) {
	wallets := func(ref string) (bool, bool) {
		switch ref {
		case "loja-a", "loja-b", "loja-c", "loja_d":
			return true, true
		case "parada":
			return true, false // exists but suspended
		}
		return strings.HasPrefix(ref, "loja-"), true
	}
	cases := []struct {
		name       string
		legs       []SplitItem
		originator string
		gross, fee Money
		wallets    WalletStatus
		want       string // "rule@index:ref ..."
	}{
		{"no split", nil, "", 1000, 99, wallets, ""},
		{"one valid leg", ctLegs("loja-a=500"), "", 1000, 99, wallets, ""},
		{"sum equal to net accepted", ctLegs("loja-a=500", "loja-b=401"), "", 1000, 99, wallets, ""},
		{"sum one centavo above net", ctLegs("loja-a=500", "loja-b=402"), "", 1000, 99, wallets, "8@-1"},
		{"sum above net but below gross", ctLegs("loja-a=1000"), "", 1000, 99, wallets, "8@-1"},
		{"fee above gross", ctLegs("loja-a=1"), "", 100, 150, wallets, "8@-1"},
		{"10 legs accepted", ctNLegs(10), "", 1000, 99, wallets, ""},
		{"11 legs refused", ctNLegs(11), "", 1000, 99, wallets, "1@-1"},
		{"amount zero", ctLegs("loja-a=0"), "", 1000, 99, wallets, "2@0"},
		{"amount negative", ctLegs("loja-a=100", "loja-b=-5"), "", 1000, 99, wallets, "2@1"},
		{"amount one centavo", ctLegs("loja-a=1"), "", 1000, 99, wallets, ""},
		{"uppercase reference", ctLegs("Loja-A=100"), "", 1000, 99, wallets, "3@0:Loja-A"},
		{"one-char reference", ctLegs("a=100"), "", 1000, 99, wallets, "3@0:a"},
		{"empty reference", ctLegs("=100"), "", 1000, 99, wallets, "3@0"},
		{"33-char reference", ctLegs(strings.Repeat("a", 33) + "=100"), "", 1000, 99, wallets, "3@0:" + strings.Repeat("a", 33)},
		{"32-char reference", ctLegs("loja-" + strings.Repeat("a", 27) + "=100"), "", 1000, 99, wallets, ""},
		{"leading dash", ctLegs("-loja=100"), "", 1000, 99, wallets, "3@0:-loja"},
		{"originator in its own split", ctLegs("loja-a=100", "loja-b=100"), "loja-a", 1000, 99, wallets, "4@0:loja-a"},
		{"principal from main (no header)", ctLegs("principal=100"), "", 1000, 99, wallets, "5@0:principal"},
		{"principal from main (header principal)", ctLegs("principal=100"), WalletPrincipal, 1000, 99, wallets, "5@0:principal"},
		{"principal from a sub-account", ctLegs("principal=100", "loja-b=100"), "loja-a", 1000, 99, wallets, ""},
		{"unknown destination", ctLegs("outra-loja=100"), "", 1000, 99, func(string) (bool, bool) { return false, false }, "6@0:outra-loja"},
		{"inactive destination", ctLegs("parada=100"), "", 1000, 99, wallets, "6@0:parada"},
		{"no wallet list skips existence", ctLegs("qualquer=100"), "", 1000, 99, nil, ""},
		{"duplicate", ctLegs("loja-a=100", "loja-b=100", "loja-a=100"), "", 1000, 99, wallets, "7@2:loja-a"},
		{"triplicate", ctLegs("loja-a=100", "loja-a=100", "loja-a=100"), "", 1000, 99, wallets, "7@1:loja-a 7@2:loja-a"},
		{"principal twice from a sub-account", ctLegs("principal=100", "principal=100"), "loja-a", 1000, 99, wallets, "7@1:principal"},
		{"every rule at once, ordered by rule then leg",
			append(ctLegs("loja-a=0", "Bad=5", "loja-x=5", "principal=5", "parada=5", "loja-b=900", "loja-b=1"), ctNLegs(4)...),
			"loja-x", 1000, 99, wallets,
			"1@-1 2@0 3@1:Bad 4@2:loja-x 6@4:parada 7@6:loja-b 8@-1"},
		{"overflowing sum does not wrap", ctLegs(fmt.Sprintf("loja-a=%d", int64(math.MaxInt64/2+1)), fmt.Sprintf("loja-b=%d", int64(math.MaxInt64/2+1))), "", 1000, 99, wallets, "8@-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := CheckSplit(tc.legs, tc.originator, tc.gross, tc.fee, tc.wallets)
			if got := ctProblems(ps); got != tc.want {
				t.Errorf("problems = %q, want %q", got, tc.want)
			}
			for _, p := range ps {
				if p.Rule == SplitSumExceedsNet && (p.Sum != SplitSum(tc.legs) || p.Net != tc.gross-tc.fee || p.Gross != tc.gross || p.Fee != tc.fee) {
					t.Errorf("sum figures = %+v", p)
				}
			}
		})
	}
}

func TestSplitSumAndNet(t *testing.T) {
	if got := SplitSum(ctLegs("a=1", "b=250", "c=1000")); got != 1251 {
		t.Errorf("SplitSum = %d", got)
	}
	if got := SplitSum(nil); got != 0 {
		t.Errorf("SplitSum(nil) = %d", got)
	}
	if got := SplitSum([]SplitItem{{Amount: math.MaxInt64}, {Amount: 1}}); got != math.MaxInt64 {
		t.Errorf("positive overflow = %d", got)
	}
	if got := SplitSum([]SplitItem{{Amount: math.MinInt64}, {Amount: -1}}); got != math.MinInt64 {
		t.Errorf("negative overflow = %d", got)
	}
	if got := SplitNet(1000, 99); got != 901 {
		t.Errorf("SplitNet = %d", got)
	}
}

func TestSplitSpecMessages(t *testing.T) {
	cases := []struct {
		p    SplitProblem
		msg  string
		kind string
	}{
		{SplitProblem{Rule: SplitTooMany, Index: -1}, "split must contain no more than 10 elements", KindBadRequest},
		{SplitProblem{Rule: SplitAmountTooSmall, Index: 3}, "split.3.amount must not be less than 0.01", KindBadRequest},
		{SplitProblem{Rule: SplitBadReference, Index: 0, Ref: "Loja"}, "Subconta 'Loja' não existe nesta conta ou não está ativa", KindBadRequest},
		{SplitProblem{Rule: SplitUnknownDestination, Index: 0, Ref: "loja-x"}, "Subconta 'loja-x' não existe nesta conta ou não está ativa", KindBadRequest},
		{SplitProblem{Rule: SplitSelf, Index: 0, Ref: "loja-a"}, "A conta que origina a cobrança não pode receber rateio de si mesma", KindBadRequest},
		{SplitProblem{Rule: SplitDuplicate, Index: 1, Ref: "loja-a"}, "Subconta 'loja-a' aparece duas vezes no split", KindBadRequest},
		{SplitProblem{Rule: SplitSumExceedsNet, Index: -1, Sum: 123456, Net: 100000, Gross: 101000, Fee: 1000},
			"A soma do split (R$ 1.234,56) excede o líquido da cobrança (R$ 1.000,00 — bruto R$ 1.010,00 menos taxa de R$ 10,00)", KindDomainError},
		{SplitProblem{Rule: SplitSumExceedsNet, Index: -1, Sum: 5, Net: -50, Gross: 50, Fee: 100},
			"A soma do split (R$ 0,05) excede o líquido da cobrança (R$ -0,50 — bruto R$ 0,50 menos taxa de R$ 1,00)", KindDomainError},
		{SplitProblem{Rule: 99}, "split inválido", KindBadRequest},
	}
	for _, tc := range cases {
		if got := tc.p.SpecMessage(); got != tc.msg {
			t.Errorf("rule %d: SpecMessage() = %q, want %q", tc.p.Rule, got, tc.msg)
		}
		if got := tc.p.SpecKind(); got != tc.kind {
			t.Errorf("rule %d: SpecKind() = %q, want %q", tc.p.Rule, got, tc.kind)
		}
	}
	// The principal rule's message is only described by the spec: it must name principal and the main account.
	msg := SplitProblem{Rule: SplitPrincipalFromMain, Ref: WalletPrincipal}.SpecMessage()
	if !strings.Contains(msg, "'principal'") || !strings.Contains(msg, "conta principal") || !strings.Contains(msg, "subconta") {
		t.Errorf("principal message = %q", msg)
	}
	// The sum message parses back to its figures: the UI learns the fee from it.
	p := SplitProblem{Rule: SplitSumExceedsNet, Sum: 1000, Net: 901, Gross: 1000, Fee: 99}
	if info, ok := ParseSplitSumMessage(p.SpecMessage()); !ok || info != (SplitSumInfo{Sum: 1000, Net: 901, Gross: 1000, Fee: 99}) {
		t.Errorf("round trip = %+v, %v", info, ok)
	}
}

func TestSettleSplit(t *testing.T) {
	cases := []struct {
		name string
		legs []SplitItem
		net  Money
		paid []Money
	}{
		{"all fit", ctLegs("a=300", "b=200"), 901, []Money{300, 200}},
		{"exactly the net", ctLegs("a=500", "b=401"), 901, []Money{500, 401}},
		{"last leg reduced", ctLegs("a=500", "b=500"), 901, []Money{500, 401}},
		{"last leg not paid", ctLegs("a=901", "b=100"), 901, []Money{901, 0}},
		{"order matters", ctLegs("b=100", "a=901"), 901, []Money{100, 801}},
		{"middle leg reduced, later ones nothing", ctLegs("a=600", "b=600", "c=1"), 901, []Money{600, 301, 0}},
		{"zero net", ctLegs("a=1"), 0, []Money{0}},
		{"negative net", ctLegs("a=1", "b=2"), -10, []Money{0, 0}},
		{"negative leg pays nothing and takes nothing", ctLegs("a=-5", "b=10"), 10, []Money{0, 10}},
		{"no legs", nil, 901, []Money{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := SettleSplit(tc.legs, tc.net)
			if len(got) != len(tc.paid) {
				t.Fatalf("len = %d, want %d", len(got), len(tc.paid))
			}
			var total Money
			for i, s := range got {
				if s.Paid != tc.paid[i] || s.Leg != tc.legs[i] {
					t.Errorf("leg %d: %+v, want paid %d", i, s, tc.paid[i])
				}
				total += s.Paid
			}
			if tc.net >= 0 && total > tc.net {
				t.Errorf("paid %d out of a net of %d", total, tc.net)
			}
		})
	}
}

func TestSumRuleNamesTheLegThatPassesTheNet(t *testing.T) {
	cases := []struct {
		legs []SplitItem
		net  Money
		over int
	}{
		{ctLegs("a=500", "b=402"), 901, 1},
		{ctLegs("a=1000", "b=1"), 901, 0},
		{ctLegs("a=300", "b=300", "c=302", "d=1"), 901, 2},
		{ctLegs("a=-100", "b=950", "c=100"), 901, 2}, // the running sum, not each leg, decides
	}
	for _, tc := range cases {
		ps := CheckSplit(tc.legs, "", tc.net+99, 99, nil)
		var found bool
		for _, p := range ps {
			if p.Rule == SplitSumExceedsNet {
				found = true
				if p.Over != tc.over || p.Index != -1 {
					t.Errorf("%v: Over = %d, Index = %d; want %d, -1", tc.legs, p.Over, p.Index, tc.over)
				}
			}
		}
		if !found {
			t.Errorf("%v: no sum problem in %v", tc.legs, ps)
		}
	}
}

func TestDistributeSplit(t *testing.T) {
	cases := []struct {
		name string
		legs []SplitItem
		net  Money
		want []SplitItem
	}{
		{"all paid", ctLegs("a=300", "b=200"), 901, ctLegs("a=300", "b=200")},
		{"last reduced", ctLegs("a=500", "b=500"), 901, ctLegs("a=500", "b=401")},
		{"unpaid legs left out", ctLegs("a=901", "b=100", "c=5"), 901, ctLegs("a=901")},
		{"nothing to share", ctLegs("a=1"), 0, nil},
		{"no legs", nil, 901, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := DistributeSplit(tc.legs, tc.net)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("DistributeSplit = %v, want %v", got, tc.want)
			}
		})
	}
}

func ctLegsOf(r SplitReconciliation) string {
	var out []string
	for _, l := range r.Legs {
		out = append(out, fmt.Sprintf("%s:%d/%d:%d", l.SubAccount, l.Distributed, l.Requested, l.Outcome))
	}
	return strings.Join(out, " ")
}

func TestReconcileSplit(t *testing.T) {
	cases := []struct {
		name               string
		requested, paid    []SplitItem
		reported           bool
		legs               string // "dest:distributed/requested:outcome ..."
		none, asRequested  bool
		reduced, notPaid   int
		overpaid, notAsked int
		sumAsked, sumPaid  Money
	}{
		{name: "no split, not reported", none: true},
		{name: "no split, paid", reported: true, none: true, asRequested: true},
		{name: "requested, not reported yet", requested: ctLegs("a=300", "b=200"),
			legs: "a:0/300:0 b:0/200:0", sumAsked: 500},
		{name: "not reported ignores what is passed", requested: ctLegs("a=300"), paid: ctLegs("a=300"),
			legs: "a:0/300:0", sumAsked: 300},
		{name: "as requested", requested: ctLegs("a=300", "b=200"), paid: ctLegs("a=300", "b=200"), reported: true,
			legs: "a:300/300:1 b:200/200:1", asRequested: true, sumAsked: 500, sumPaid: 500},
		{name: "reduced and dropped", requested: ctLegs("a=500", "b=500", "c=10"), paid: ctLegs("a=500", "b=401"), reported: true,
			legs: "a:500/500:1 b:401/500:2 c:0/10:3", reduced: 1, notPaid: 1, sumAsked: 1010, sumPaid: 901},
		{name: "nothing distributed", requested: ctLegs("a=300"), reported: true,
			legs: "a:0/300:3", notPaid: 1, sumAsked: 300},
		{name: "paid without being requested", paid: ctLegs("x=50"), reported: true,
			legs: "x:50/0:5", notAsked: 1, sumPaid: 50},
		{name: "overpaid", requested: ctLegs("a=300"), paid: ctLegs("a=350"), reported: true,
			legs: "a:350/300:4", overpaid: 1, sumAsked: 300, sumPaid: 350},
		{name: "the same destination paid in two items", requested: ctLegs("a=300", "b=100"), paid: ctLegs("a=200", "b=100", "a=100"), reported: true,
			legs: "a:300/300:1 b:100/100:1", asRequested: true, sumAsked: 400, sumPaid: 400},
		{name: "order of the distribution does not matter", requested: ctLegs("a=300", "b=100"), paid: ctLegs("b=100", "a=300"), reported: true,
			legs: "a:300/300:1 b:100/100:1", asRequested: true, sumAsked: 400, sumPaid: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ReconcileSplit(tc.requested, tc.paid, tc.reported)
			if got := ctLegsOf(r); got != tc.legs {
				t.Errorf("legs = %q, want %q", got, tc.legs)
			}
			if r.None() != tc.none || r.AsRequested() != tc.asRequested || r.Reported != tc.reported {
				t.Errorf("None %v AsRequested %v Reported %v", r.None(), r.AsRequested(), r.Reported)
			}
			if r.Reduced != tc.reduced || r.NotPaid != tc.notPaid || r.Overpaid != tc.overpaid || r.NotRequested != tc.notAsked {
				t.Errorf("counts reduced %d notPaid %d overpaid %d notRequested %d", r.Reduced, r.NotPaid, r.Overpaid, r.NotRequested)
			}
			if r.Requested != tc.sumAsked || r.Distributed != tc.sumPaid {
				t.Errorf("sums %d/%d, want %d/%d", r.Distributed, r.Requested, tc.sumPaid, tc.sumAsked)
			}
		})
	}
}

// TestReconcileWhatTheEmulatorDistributes: whatever the fee, the split the service settles
// reconciles with the requested one leg by leg, with nothing paid beyond the net.
func TestReconcileWhatTheEmulatorDistributes(t *testing.T) {
	legs := ctLegs("a=400", "b=300", "c=200")
	for net := Money(-10); net <= 1000; net += 7 {
		r := ReconcileSplit(legs, DistributeSplit(legs, net), true)
		if len(r.Legs) != len(legs) || r.Overpaid+r.NotRequested != 0 || r.Distributed > max(net, 0) {
			t.Fatalf("net %d: %s", net, ctLegsOf(r))
		}
		if net >= 900 && !r.AsRequested() {
			t.Fatalf("net %d: not as requested: %s", net, ctLegsOf(r))
		}
	}
}
