package state

import (
	"errors"
	"strings"

	"pixdash/api"
)

// DraftLeg is one leg of the split being edited, as the merchant typed it.
type DraftLeg struct {
	Dest       string // a sub-account reference or "principal"
	AmountText string // reais as typed: "12,34", "1.234,56", "12.34"
}

// SplitDraft is the split builder's editable list of legs. The spec's rules are checked by
// api.CheckSplit on the items Parse returns; the draft only turns text into amounts.
type SplitDraft struct {
	Legs []DraftLeg
}

// LegErrorKind says what is wrong with a leg's text.
type LegErrorKind int

// Kinds of leg errors.
const (
	LegAmountMissing   LegErrorKind = iota + 1 // nothing typed
	LegAmountFormat                            // not an amount
	LegAmountPrecision                         // more than 2 decimal places
	LegAmountRange                             // too large
)

// LegError is a problem with the text of one leg.
type LegError struct {
	Index int
	Kind  LegErrorKind
	Msg   string // English, for people; the UI may translate by Kind
	Err   error  // wraps api.ErrMoneyFormat, api.ErrMoneyPrecision or api.ErrMoneyRange when it came from parsing
}

// Error returns the message.
func (e LegError) Error() string { return e.Msg }

// DraftFromItems builds a draft showing an existing split.
func DraftFromItems(items []api.SplitItem) SplitDraft {
	d := SplitDraft{Legs: make([]DraftLeg, len(items))}
	for i, it := range items {
		d.Legs[i] = DraftLeg{Dest: it.SubAccount, AmountText: strings.TrimPrefix(it.Amount.BRL(), "R$ ")}
	}
	return d
}

// Add appends an empty leg and returns its index.
func (d *SplitDraft) Add() int {
	d.Legs = append(d.Legs, DraftLeg{})
	return len(d.Legs) - 1
}

// Remove deletes leg i (nothing when out of range).
func (d *SplitDraft) Remove(i int) {
	if i < 0 || i >= len(d.Legs) {
		return
	}
	d.Legs = append(d.Legs[:i], d.Legs[i+1:]...)
}

// Move shifts leg i by delta positions (clamped to the list) and returns its new index; the
// order matters because legs settle in the order sent.
func (d *SplitDraft) Move(i, delta int) int {
	if i < 0 || i >= len(d.Legs) {
		return i
	}
	j := min(max(i+delta, 0), len(d.Legs)-1)
	leg := d.Legs[i]
	if j > i {
		copy(d.Legs[i:j], d.Legs[i+1:j+1])
	} else {
		copy(d.Legs[j+1:i+1], d.Legs[j:i])
	}
	d.Legs[j] = leg
	return j
}

// Parse turns the legs into split items, one per leg in order (so item i is leg i, as
// api.CheckSplit's indices expect); a leg whose amount does not parse gets amount 0 and a LegError.
func (d SplitDraft) Parse() ([]api.SplitItem, []LegError) {
	items := make([]api.SplitItem, len(d.Legs))
	var errs []LegError
	for i, l := range d.Legs {
		items[i].SubAccount = strings.TrimSpace(l.Dest)
		text := strings.TrimSpace(l.AmountText)
		if text == "" {
			errs = append(errs, LegError{Index: i, Kind: LegAmountMissing, Msg: "enter the amount in reais, e.g. 12,34"})
			continue
		}
		m, err := api.ParseBRL(text)
		if err != nil {
			kind := LegAmountFormat
			switch {
			case errors.Is(err, api.ErrMoneyPrecision):
				kind = LegAmountPrecision
			case errors.Is(err, api.ErrMoneyRange):
				kind = LegAmountRange
			}
			errs = append(errs, LegError{Index: i, Kind: kind, Msg: err.Error(), Err: err})
			continue
		}
		items[i].Amount = m
	}
	return items, errs
}

// SplitSummary is the builder's running totals.
type SplitSummary struct {
	Gross     api.Money // the charge amount
	Fee       api.Money // the originator's fee
	Net       api.Money // gross minus fee: what a split may distribute
	Allocated api.Money // sum of the legs that parse
	Keeps     api.Money // net minus allocated: what the originator keeps (negative when over-allocated)
}

// Summary computes the totals for a charge of gross with the originator's fee.
func (d SplitDraft) Summary(gross, fee api.Money) SplitSummary {
	items, _ := d.Parse()
	net := api.SplitNet(gross, fee)
	alloc := api.SplitSum(items)
	return SplitSummary{Gross: gross, Fee: fee, Net: net, Allocated: alloc, Keeps: net - alloc}
}

// LegPreview is how one leg would settle (spec rule 7: legs are served in order until the net runs out).
type LegPreview struct {
	Leg          api.SplitItem
	Paid         api.Money // with the fee known now
	PaidIfHigher api.Money // with the higher fee
}

// Reduced reports whether the higher fee would pay the leg only in part.
func (p LegPreview) Reduced() bool { return p.PaidIfHigher > 0 && p.PaidIfHigher < p.Leg.Amount }

// Dropped reports whether the higher fee would leave the leg unpaid.
func (p LegPreview) Dropped() bool { return p.PaidIfHigher <= 0 && p.Leg.Amount > 0 }

// Preview settles the legs that parse, in order, under the current fee and under feeHigher.
func (d SplitDraft) Preview(gross, feeNow, feeHigher api.Money) []LegPreview {
	items, _ := d.Parse()
	now := api.SettleSplit(items, api.SplitNet(gross, feeNow))
	higher := api.SettleSplit(items, api.SplitNet(gross, feeHigher))
	out := make([]LegPreview, len(items))
	for i := range items {
		out[i] = LegPreview{Leg: items[i], Paid: now[i].Paid, PaidIfHigher: higher[i].Paid}
	}
	return out
}
