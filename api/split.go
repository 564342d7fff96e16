package api

import (
	"fmt"
	"math"
	"strings"
)

// SplitRule identifies which of the spec's split rules a leg breaks.
type SplitRule int

// The split rules, in the order the service reports them.
const (
	SplitTooMany            SplitRule = iota + 1 // more than 10 legs
	SplitAmountTooSmall                          // a leg below 0,01
	SplitBadReference                            // destination is not a well-formed reference or principal
	SplitSelf                                    // the originator appears in its own split
	SplitPrincipalFromMain                       // principal as destination of a main-account charge
	SplitUnknownDestination                      // not an active sub-account of this account
	SplitDuplicate                               // the same destination twice
	SplitSumExceedsNet                           // the sum is above gross minus fee (DomainError)
)

// SplitProblem is one broken split rule; Index is the leg (-1 for the split as a whole).
type SplitProblem struct {
	Rule  SplitRule
	Index int
	// Ref is the destination involved, when the rule is about one.
	Ref string
	// Figures of the sum rule.
	Sum, Net, Gross, Fee Money
	// Over is, for the sum rule, the first leg at which the running sum passes the net.
	Over int
}

// SplitOriginator describes who creates the charge: "" or "principal" for the main account.
type SplitOriginator = string

// WalletStatus answers whether a reference is a sub-account of this account and whether it is active.
// A nil WalletStatus skips the existence check (the caller does not know the wallets).
type WalletStatus func(ref string) (exists, active bool)

// SplitNet returns the net amount a split may distribute: gross minus fee.
func SplitNet(gross, fee Money) Money { return gross - fee }

// SplitSum adds the legs' amounts, saturating instead of overflowing so a huge sum never wraps
// around into an acceptable one.
func SplitSum(legs []SplitItem) Money {
	var s Money
	for _, l := range legs {
		switch {
		case l.Amount > 0 && s > math.MaxInt64-l.Amount:
			s = math.MaxInt64
		case l.Amount < 0 && s < math.MinInt64-l.Amount:
			s = math.MinInt64
		default:
			s += l.Amount
		}
	}
	return s
}

// CheckSplit applies the spec's split rules to legs for a charge of gross with the originator's fee.
// It returns every problem found, ordered by rule then leg; the service reports the first.
func CheckSplit(legs []SplitItem, originator SplitOriginator, gross, fee Money, wallets WalletStatus) []SplitProblem {
	var ps []SplitProblem
	if len(legs) > MaxSplitItems {
		ps = append(ps, SplitProblem{Rule: SplitTooMany, Index: -1})
	}
	for i, l := range legs {
		if l.Amount < MinSplitAmount {
			ps = append(ps, SplitProblem{Rule: SplitAmountTooSmall, Index: i})
		}
	}
	fromMain := originator == "" || originator == WalletPrincipal
	seen := map[string]int{}
	for i, l := range legs {
		ref := l.SubAccount
		switch {
		case ref != WalletPrincipal && !SubAccountRefPattern.MatchString(ref):
			ps = append(ps, SplitProblem{Rule: SplitBadReference, Index: i, Ref: ref})
		case !fromMain && ref == originator:
			ps = append(ps, SplitProblem{Rule: SplitSelf, Index: i, Ref: ref})
		case fromMain && ref == WalletPrincipal:
			ps = append(ps, SplitProblem{Rule: SplitPrincipalFromMain, Index: i, Ref: ref})
		case ref != WalletPrincipal && wallets != nil:
			if exists, active := wallets(ref); !exists || !active {
				ps = append(ps, SplitProblem{Rule: SplitUnknownDestination, Index: i, Ref: ref})
			}
		}
		if _, dup := seen[ref]; dup {
			ps = append(ps, SplitProblem{Rule: SplitDuplicate, Index: i, Ref: ref})
		} else {
			seen[ref] = i
		}
	}
	if len(legs) > 0 {
		sum, net := SplitSum(legs), SplitNet(gross, fee)
		if sum > net {
			ps = append(ps, SplitProblem{Rule: SplitSumExceedsNet, Index: -1, Sum: sum, Net: net, Gross: gross, Fee: fee, Over: overLeg(legs, net)})
		}
	}
	sortProblems(ps)
	return ps
}

// overLeg returns the first leg at which the running sum of legs passes net (the last leg when none does).
func overLeg(legs []SplitItem, net Money) int {
	for i := range legs {
		if SplitSum(legs[:i+1]) > net {
			return i
		}
	}
	return len(legs) - 1
}

func sortProblems(ps []SplitProblem) {
	// Insertion sort: a handful of items, stable by rule then index.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && less(ps[j], ps[j-1]); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func less(a, b SplitProblem) bool {
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	return a.Index < b.Index
}

// bareAmount formats m like "1.234,56" without the currency sign, as the service's messages do.
func bareAmount(m Money) string { return strings.Replace(m.BRL(), "R$ ", "", 1) }

// SpecMessage returns the service's message for the problem, as the spec words it.
func (p SplitProblem) SpecMessage() string {
	switch p.Rule {
	case SplitTooMany:
		return "split must contain no more than 10 elements"
	case SplitAmountTooSmall:
		return fmt.Sprintf("split.%d.amount must not be less than 0.01", p.Index)
	case SplitBadReference, SplitUnknownDestination:
		return fmt.Sprintf("Subconta '%s' não existe nesta conta ou não está ativa", p.Ref)
	case SplitSelf:
		return "A conta que origina a cobrança não pode receber rateio de si mesma"
	case SplitPrincipalFromMain:
		return "A cobrança foi criada pela conta principal: 'principal' só pode ser destino de split em cobranças originadas por uma subconta"
	case SplitDuplicate:
		return fmt.Sprintf("Subconta '%s' aparece duas vezes no split", p.Ref)
	case SplitSumExceedsNet:
		return fmt.Sprintf("A soma do split (R$ %s) excede o líquido da cobrança (R$ %s — bruto R$ %s menos taxa de R$ %s)",
			bareAmount(p.Sum), bareAmount(p.Net), bareAmount(p.Gross), bareAmount(p.Fee))
	}
	return "split inválido"
}

// SpecKind returns the envelope "error" value the service uses for the problem.
func (p SplitProblem) SpecKind() string {
	if p.Rule == SplitSumExceedsNet {
		return KindDomainError
	}
	return KindBadRequest
}

// Settlement is the outcome of one leg when the split is executed.
type Settlement struct {
	Leg SplitItem
	// Paid is what the destination actually receives (may be less than Leg.Amount, or zero).
	Paid Money
}

// SettleSplit serves the legs in order from net until it runs out (spec rule 7).
func SettleSplit(legs []SplitItem, net Money) []Settlement {
	out := make([]Settlement, len(legs))
	left := net
	if left < 0 {
		left = 0
	}
	for i, l := range legs {
		pay := l.Amount
		if pay > left {
			pay = left
		}
		if pay < 0 {
			pay = 0
		}
		out[i] = Settlement{Leg: l, Paid: pay}
		left -= pay
	}
	return out
}

// DistributeSplit is what the service distributes when a charge with legs settles with net to
// share: the legs served in order (SettleSplit), each with the amount actually paid, legs paid
// nothing left out. It is the payment_completed event's split.
func DistributeSplit(legs []SplitItem, net Money) []SplitItem {
	var out []SplitItem
	for _, s := range SettleSplit(legs, net) {
		if s.Paid > 0 {
			out = append(out, SplitItem{SubAccount: s.Leg.SubAccount, Amount: s.Paid})
		}
	}
	return out
}

// SplitOutcome says how one destination fared: what it was asked to get against what it got.
type SplitOutcome int

// Outcomes of a split leg.
const (
	SplitNotReported  SplitOutcome = iota // the distribution is not known yet (no payment_completed)
	SplitPaidInFull                       // received exactly what was requested
	SplitReduced                          // received less than requested (spec rule 7)
	SplitNotPaid                          // requested, received nothing
	SplitOverpaid                         // received more than requested
	SplitNotRequested                     // received without being requested
)

// SplitLeg is one destination of a split: what the charge requested and what was distributed.
type SplitLeg struct {
	SubAccount  string
	Requested   Money // 0 for a destination that was not requested
	Distributed Money // 0 while not reported
	Outcome     SplitOutcome
}

// SplitReconciliation compares the split a charge requested with what the service distributed.
type SplitReconciliation struct {
	// Legs are the requested legs in the order sent, then destinations paid without being requested.
	Legs []SplitLeg
	// Requested and Distributed are the sums of each side.
	Requested, Distributed Money
	// Reported is whether the distribution is known (payment_completed arrived).
	Reported bool
	// Counts of legs by outcome.
	Reduced, NotPaid, Overpaid, NotRequested int
}

// None reports whether there is no split at all: nothing requested, nothing distributed.
func (r SplitReconciliation) None() bool { return len(r.Legs) == 0 }

// AsRequested reports whether the distribution is known and every leg got exactly what it asked.
func (r SplitReconciliation) AsRequested() bool {
	return r.Reported && r.Reduced+r.NotPaid+r.Overpaid+r.NotRequested == 0
}

// ReconcileSplit matches the split requested at creation with the one payment_completed reported
// as distributed (reported false: not known yet, distributed is ignored). Amounts paid to the same
// destination are added up, and a destination's money is given to its requested legs in order.
func ReconcileSplit(requested, distributed []SplitItem, reported bool) SplitReconciliation {
	r := SplitReconciliation{Reported: reported, Requested: SplitSum(requested)}
	paid := map[string]Money{}
	var order []string // destinations paid, in the order first seen
	if reported {
		r.Distributed = SplitSum(distributed)
		for _, d := range distributed {
			if _, ok := paid[d.SubAccount]; !ok {
				order = append(order, d.SubAccount)
			}
			paid[d.SubAccount] += d.Amount
		}
	}
	last := map[string]int{} // each requested destination's last leg
	for _, q := range requested {
		leg := SplitLeg{SubAccount: q.SubAccount, Requested: q.Amount}
		if reported {
			got := min(max(paid[q.SubAccount], 0), max(q.Amount, 0))
			paid[q.SubAccount] -= got
			leg.Distributed = got
		}
		last[q.SubAccount] = len(r.Legs)
		r.Legs = append(r.Legs, leg)
	}
	if reported {
		for _, dest := range order {
			left := paid[dest]
			if left == 0 {
				continue
			}
			if i, ok := last[dest]; ok {
				r.Legs[i].Distributed += left
				continue
			}
			r.Legs = append(r.Legs, SplitLeg{SubAccount: dest, Distributed: left})
		}
	}
	for i := range r.Legs {
		l := &r.Legs[i]
		_, wasRequested := last[l.SubAccount]
		switch {
		case !reported:
			l.Outcome = SplitNotReported
		case !wasRequested:
			l.Outcome = SplitNotRequested
			r.NotRequested++
		case l.Distributed == l.Requested:
			l.Outcome = SplitPaidInFull
		case l.Distributed <= 0:
			l.Outcome = SplitNotPaid
			r.NotPaid++
		case l.Distributed < l.Requested:
			l.Outcome = SplitReduced
			r.Reduced++
		default:
			l.Outcome = SplitOverpaid
			r.Overpaid++
		}
	}
	return r
}
