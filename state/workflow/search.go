package workflow

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// "The customer says they paid": one search across every wallet the profile's store knows,
// by end-to-end id, amount, payer name or time window; every match is read back from the
// service (PollCharge) before anything shows it as paid.

// SearchStore finds charges for a search and applies the service's answers to them.
type SearchStore interface {
	SearchCharges(ctx context.Context, q state.ChargeSearch, limit int) ([]state.Charge, bool, error)
	ChargeStore
}

// SearchReadBackWorkers is how many matches are read back from the service at once.
const SearchReadBackWorkers = 4

// ErrEmptySearch is the error of a blank search.
var ErrEmptySearch = errors.New("type an end-to-end id, an amount, a payer name or a time window")

var (
	e2eRe    = regexp.MustCompile(`^[Ee][0-9]{8}[0-9A-Za-z]{4,}$`)
	windowRe = regexp.MustCompile(`^(\d{1,2})[:h](\d{2})\s*(?:-|–|a|até|to)\s*(\d{1,2})[:h](\d{2})$`)
	dateRe   = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})(?:/(\d{4}))?$`)
	isoRe    = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	amountRe = regexp.MustCompile(`^(?:R\$|r\$)?\s*[0-9][0-9.,]*$`)
)

// ParseSearch reads what the merchant typed: an end-to-end id as the receipt prints it
// ("E9999…", spaces ignored), a time window today ("14:00-14:30"), a date ("23/11",
// "23/11/2026", "2026-11-23"), an amount ("R$ 49,90", "49,90", "49.90") or else a payer name.
// Times are in loc at the day of now.
func ParseSearch(text string, now time.Time, loc *time.Location) (state.ChargeSearch, error) {
	if loc == nil {
		loc = time.Local
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return state.ChargeSearch{}, ErrEmptySearch
	}
	if compact := strings.Join(strings.Fields(t), ""); e2eRe.MatchString(compact) {
		return state.ChargeSearch{Kind: state.SearchE2E, E2E: compact}, nil
	}
	now = now.In(loc)
	y, mo, d := now.Date()
	if m := windowRe.FindStringSubmatch(strings.ToLower(t)); m != nil {
		h1, m1, h2, m2 := atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
		if h1 > 24 || h2 > 24 || m1 > 59 || m2 > 59 {
			return state.ChargeSearch{}, errors.New("a time window is hh:mm-hh:mm, e.g. 14:00-14:30")
		}
		from := time.Date(y, mo, d, h1, m1, 0, 0, loc)
		to := time.Date(y, mo, d, h2, m2, 0, 0, loc)
		if !from.Before(to) {
			return state.ChargeSearch{}, errors.New("the window ends before it starts")
		}
		return state.ChargeSearch{Kind: state.SearchWindow, From: from, To: to}, nil
	}
	day := func(yy, mm, dd int) (state.ChargeSearch, error) {
		from := time.Date(yy, time.Month(mm), dd, 0, 0, 0, 0, loc)
		if from.Day() != dd || int(from.Month()) != mm {
			return state.ChargeSearch{}, errors.New("no such date")
		}
		return state.ChargeSearch{Kind: state.SearchWindow, From: from, To: from.AddDate(0, 0, 1)}, nil
	}
	if m := dateRe.FindStringSubmatch(t); m != nil {
		yy := y
		if m[3] != "" {
			yy = atoi(m[3])
		}
		return day(yy, atoi(m[2]), atoi(m[1]))
	}
	if m := isoRe.FindStringSubmatch(t); m != nil {
		return day(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if amountRe.MatchString(t) {
		amt, err := api.ParseBRL(t)
		if err != nil {
			return state.ChargeSearch{}, err
		}
		if amt <= 0 {
			return state.ChargeSearch{}, errors.New("the amount must be more than zero")
		}
		return state.ChargeSearch{Kind: state.SearchAmount, Amount: amt}, nil
	}
	return state.ChargeSearch{Kind: state.SearchPayer, Payer: t}, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// SearchMatch is one charge a search found, and the service's answer about it.
type SearchMatch struct {
	// Charge is the charge as the store held it, then (once Checked without error) with the
	// service's answer applied.
	Charge state.Charge
	// Checked reports that the read-back ran; Tx is the service's answer (nil on Err).
	Checked bool
	Tx      *api.Transaction
	Err     error
	// Service is the state the service's answer gives ("" until it answered), with the
	// confirmed facts about the money it does not tell (a refund read back, a MED block): what
	// the match shows, even where the store keeps another (a paid charge stays paid locally).
	Service state.ChargeState
	// Outcome is Service with the amount that went back or is held.
	Outcome state.Outcome
}

// Paid reports whether the service said the charge is paid (never the store alone).
func (m SearchMatch) Paid() bool { return m.Checked && m.Tx != nil && m.Service == state.StatePaid }

// FindCharges runs a search on the store: the matches (not read back yet), newest first, and
// whether there were more than state.MaxSearchResults.
func FindCharges(ctx context.Context, s SearchStore, q state.ChargeSearch) ([]SearchMatch, bool, error) {
	cs, capped, err := s.SearchCharges(ctx, q, state.MaxSearchResults)
	if err != nil {
		return nil, false, err
	}
	out := make([]SearchMatch, len(cs))
	for i, c := range cs {
		out[i] = SearchMatch{Charge: c}
	}
	return out, capped, nil
}

// ReadBackMatches reads every match back from the service (GET /transactions/{id} in the
// charge's wallet, at most workers at once) and applies each answer to the store, as
// PollCharge does; the result is in the order of ms.
func ReadBackMatches(ctx context.Context, c TransactionReader, s ChargeStore, ms []SearchMatch, workers int) []SearchMatch {
	out := make([]SearchMatch, len(ms))
	copy(out, ms)
	workers = max(workers, 1)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i].Checked, out[i].Err = true, ctx.Err()
				return
			}
			defer func() { <-sem }()
			ch := out[i].Charge
			p := PollCharge(ctx, c, s, ch.ID, ch.Wallet)
			out[i].Checked, out[i].Tx, out[i].Err = true, p.Tx, p.Err
			if p.After.NotFound {
				out[i].Charge, out[i].Service = p.After, state.StateNotFound
				out[i].Outcome = state.Outcome{State: state.StateNotFound}
			}
			if p.Tx != nil {
				// The service's answer, with the confirmed facts about the money it does not
				// tell (a refund read back, a MED block): a refunded payment is not paid.
				alone := state.ChargeFromTransaction(p.Tx, nil)
				known := ch
				if p.After.ID != "" {
					known = p.After
				}
				alone = alone.WithOutcomeOf(known)
				out[i].Outcome = alone.Outcome()
				out[i].Service = out[i].Outcome.State
				if p.Err == nil && p.After.ID != "" {
					out[i].Charge = p.After
				} else {
					out[i].Charge.ApplyTransaction(p.Tx)
				}
			}
		}()
	}
	wg.Wait()
	return out
}
