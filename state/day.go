package state

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"pixdash/api"
)

// Period is the half-open time range [From, To).
type Period struct {
	From, To time.Time
}

// Days returns the period of the n calendar days in loc that end with the day of t (n=1: that day).
func Days(t time.Time, n int, loc *time.Location) Period {
	if n < 1 {
		n = 1
	}
	t = t.In(loc)
	end := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
	return Period{From: time.Date(t.Year(), t.Month(), t.Day()-n+1, 0, 0, 0, 0, loc), To: end}
}

// DayCount is how many calendar days of loc the period spans (at least 1).
func (p Period) DayCount(loc *time.Location) int {
	from := p.From.In(loc)
	n := 0
	for d := from; d.Before(p.To); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc) {
		n++
	}
	return max(n, 1)
}

// Valid reports whether the period is not empty.
func (p Period) Valid() bool { return p.To.After(p.From) }

// Totals are the figures of one wallet (or of all of them) over a period. Payments count by
// when they were paid, refunds by when refund_completed arrived, and the other states by when
// the charge was created, as the charge stands now.
type Totals struct {
	// Wallet is the wallet, or "" for the sum of every wallet.
	Wallet string
	// Created counts the charges created in the period.
	Created int
	// Paid and Gross are the payments received in the period and their sum.
	Paid  int
	Gross api.Money
	// Fees is the sum of the payments' fees: the service's where it reported one, otherwise the
	// estimate; FeesEstimated counts the payments whose fee is the estimate.
	Fees          api.Money
	FeesEstimated int
	// FeesUnknown counts the payments whose fee is neither reported nor estimated (no estimate
	// was given): Fees leaves them out, so the fees and the nets are unknown (FeesKnown).
	FeesUnknown int
	// Charges created in the period that are, now, still pending, expired, failed or cancelled
	// (or in a status the spec does not name).
	Pending, Expired, Failed, Cancelled, Unknown int
	// Refunded counts the payments refunded in the period and RefundedAmount what went back to
	// the customers (refund lines the service confirmed). RefundFees are the refund fees the
	// service confirmed: none today, its answer does not carry them; RefundFeesReported are
	// those the refund_completed events reported (each between 0 and its refund), unconfirmed
	// and left out of every total.
	Refunded           int
	RefundedAmount     api.Money
	RefundFees         api.Money
	RefundFeesReported api.Money
	// Returned and Blocked count the payments received in the period whose money a MED block
	// has, now, returned to the payer (approved) or holds (open), with those amounts
	// (Charge.Outcome: GET /balance-blocks answers only).
	Returned, Blocked             int
	ReturnedAmount, BlockedAmount api.Money
}

// Net is what the payments left after their fees.
func (t Totals) Net() api.Money { return t.Gross - t.Fees }

// AfterRefunds is the net minus what was refunded and the refund fees.
func (t Totals) AfterRefunds() api.Money { return t.Net() - t.RefundedAmount - t.RefundFees }

// FeesKnown reports whether every payment's fee is known (reported by the service, or the
// estimate): when not, the fees and the nets are unknown, never shown as if the fee were zero.
func (t Totals) FeesKnown() bool { return t.FeesUnknown == 0 }

// DayNet is the one definition of the period's net that every screen shows (the Sales view,
// the Today strip, the close): what the payments left after their fees, the refunds and the
// refund fees. ok is false when a fee is unknown.
func (t Totals) DayNet() (net api.Money, ok bool) { return t.AfterRefunds(), t.FeesKnown() }

// AverageTicket is the mean payment (0 without payments).
func (t Totals) AverageTicket() api.Money {
	if t.Paid == 0 {
		return 0
	}
	return t.Gross / api.Money(t.Paid)
}

// add folds o into t.
func (t *Totals) add(o Totals) {
	t.Created += o.Created
	t.Paid += o.Paid
	t.Gross += o.Gross
	t.Fees += o.Fees
	t.FeesEstimated += o.FeesEstimated
	t.FeesUnknown += o.FeesUnknown
	t.Pending += o.Pending
	t.Expired += o.Expired
	t.Failed += o.Failed
	t.Cancelled += o.Cancelled
	t.Unknown += o.Unknown
	t.Refunded += o.Refunded
	t.RefundedAmount += o.RefundedAmount
	t.RefundFees += o.RefundFees
	t.RefundFeesReported += o.RefundFeesReported
	t.Returned += o.Returned
	t.ReturnedAmount += o.ReturnedAmount
	t.Blocked += o.Blocked
	t.BlockedAmount += o.BlockedAmount
}

// Bucket is what was received in one hour or one day of the period, per wallet.
type Bucket struct {
	Start, End time.Time
	// Gross and Paid are indexed like DayReport.Series.
	Gross []api.Money
	Paid  []int
}

// Total is the bucket's sum over every wallet.
func (b Bucket) Total() api.Money {
	var t api.Money
	for _, g := range b.Gross {
		t += g
	}
	return t
}

// DayQuery selects the figures DayReport reads.
type DayQuery struct {
	Period Period
	// Wallet keeps one wallet; "" reads every wallet.
	Wallet string
	// Now cuts the comparison: the previous period is read up to the same point (zero: the
	// store's clock).
	Now time.Time
	// Fee is the fee per payment used where the service reported none; with HasFee false such
	// payments add no fee (and are still counted in FeesEstimated).
	Fee    api.Money
	HasFee bool
	// NoBuckets skips the chart's buckets (a strip needs only the totals).
	NoBuckets bool
}

// DayReport is the figures of a period: totals, per wallet, per hour or day, and the same span
// just before it for comparison.
type DayReport struct {
	Query DayQuery
	// Step is an hour for a period of one day or less, else a day.
	Step time.Duration
	// Total sums every wallet; Wallets has one entry per wallet with any figure, by name.
	Total   Totals
	Wallets []Totals
	// Series names the wallets of the buckets, in Wallets' order.
	Series  []string
	Buckets []Bucket
	// Previous is the payments (Paid, Gross, Fees) of the same span just before the period,
	// read up to the same point in it (for today: yesterday until this time); PreviousPeriod is
	// that span.
	Previous       Totals
	PreviousPeriod Period
	// Version is the store's charges counter when the figures were read.
	Version uint64
}

// Wallet returns the totals of wallet w (zero when it has none).
func (r DayReport) Wallet(w string) Totals {
	for _, t := range r.Wallets {
		if t.Wallet == w {
			return t
		}
	}
	return Totals{Wallet: w}
}

// ErrBadPeriod reports a period that ends before it begins.
var ErrBadPeriod = errors.New("the period ends before it begins")

// DayReport reads the totals of a period from the local database: the charges known to this
// profile (created here or reported by the service).
func (s *Store) DayReport(ctx context.Context, q DayQuery) (DayReport, error) {
	if !q.Period.Valid() {
		return DayReport{}, ErrBadPeriod
	}
	if q.Wallet != "" {
		q.Wallet = NormalizeWallet(q.Wallet)
	}
	if q.Now.IsZero() {
		q.Now = s.now()
	}
	r := DayReport{Query: q, Step: time.Hour, Version: s.chargesVer.Load()}
	days := q.Period.DayCount(s.loc)
	if q.Period.To.Sub(q.Period.From) > 25*time.Hour {
		r.Step = 24 * time.Hour
	}
	per := map[string]*Totals{}
	get := func(w string) *Totals {
		t := per[w]
		if t == nil {
			t = &Totals{Wallet: w}
			per[w] = t
		}
		return t
	}
	grain := s.queryGrain(q.Period, r.Step)
	var cuts []time.Time
	if !q.NoBuckets {
		cuts = s.bucketBounds(q.Period, r.Step)
	}
	hours, err := s.paidHours(ctx, q, q.Period, grain, cuts, get)
	if err != nil {
		return DayReport{}, err
	}
	if err := s.createdStates(ctx, q.Wallet, q.Period, get); err != nil {
		return DayReport{}, err
	}
	if err := s.refundsIn(ctx, q.Wallet, q.Period, get); err != nil {
		return DayReport{}, err
	}
	if err := s.medOutcomes(ctx, q.Wallet, q.Period, get); err != nil {
		return DayReport{}, err
	}
	for _, t := range per {
		r.Wallets = append(r.Wallets, *t)
		r.Total.add(*t)
	}
	sort.Slice(r.Wallets, func(i, j int) bool { return walletLess(r.Wallets[i].Wallet, r.Wallets[j].Wallet) })
	for _, t := range r.Wallets {
		r.Series = append(r.Series, t.Wallet)
	}
	if !q.NoBuckets {
		r.Buckets = s.buckets(q.Period, r.Step, r.Series, hours)
	}

	// The same span before, cut at the same point: yesterday until now for today.
	prev := Period{From: shiftDays(q.Period.From, -days, s.loc), To: shiftDays(q.Period.To, -days, s.loc)}
	r.PreviousPeriod = prev
	cut := prev
	if q.Now.Before(q.Period.To) && q.Now.After(q.Period.From) {
		cut.To = shiftDays(q.Now, -days, s.loc)
	}
	prevPer := map[string]*Totals{}
	getPrev := func(w string) *Totals {
		t := prevPer[w]
		if t == nil {
			t = &Totals{Wallet: w}
			prevPer[w] = t
		}
		return t
	}
	if _, err := s.paidHours(ctx, q, cut, time.Hour, nil, getPrev); err != nil {
		return DayReport{}, err
	}
	for _, t := range prevPer {
		r.Previous.add(*t)
	}
	return r, nil
}

// walletLess orders wallets with principal first, then by name.
func walletLess(a, b string) bool {
	if (a == api.WalletPrincipal) != (b == api.WalletPrincipal) {
		return a == api.WalletPrincipal
	}
	return a < b
}

// shiftDays moves t by n calendar days in loc, keeping its wall clock.
func shiftDays(t time.Time, n int, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+n, l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), loc)
}

// queryGrain is the slot the period query sums what was received in, counted from the
// period's start, before the slots are laid out on hours or days: an hour when every bucket
// starts a whole number of hours after the period (the usual case, and 4 times fewer rows),
// else a quarter hour. Every UTC offset and clock change in use is a multiple of 15 minutes, so
// a period that starts at a local midnight has every later local midnight on a quarter hour
// (a zone whose clock moves by 30 minutes, a period that starts at 10:30).
func (s *Store) queryGrain(p Period, step time.Duration) time.Duration {
	for _, b := range s.bucketBounds(p, step) {
		if b.Sub(p.From)%time.Hour != 0 {
			return 15 * time.Minute
		}
	}
	return time.Hour
}

// bucketBounds are the starts of the period's buckets: every hour from its start, or every
// local midnight (the first bucket starts with the period).
func (s *Store) bucketBounds(p Period, step time.Duration) []time.Time {
	var out []time.Time
	if step == time.Hour {
		for t := p.From; t.Before(p.To); t = t.Add(time.Hour) {
			out = append(out, t)
		}
		return out
	}
	for d := p.From.In(s.loc); d.Before(p.To); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, s.loc) {
		out = append(out, d)
	}
	return out
}

// hourRow is what one wallet received in one slot of a period: at is the slot's start (unix
// ms), inside the bucket its payments belong to.
type hourRow struct {
	wallet string
	at     time.Time
	paid   int
	gross  api.Money
}

// hourMS is an hour in unix milliseconds: the rollups' grain (paid_hours, created_hours).
const hourMS = int64(time.Hour / time.Millisecond)

// rollupSpan splits p for the rollups: the whole UTC hours [h0, h1) inside it, and the parts
// before and after them that the charges' own rows answer. ok is false when the rollups cannot
// serve p (before 1970, where SQLite's division rounds the other way, or no whole hour in it).
func rollupSpan(p Period) (h0, h1 int64, edges []Period, ok bool) {
	from, to := p.From.UnixMilli(), p.To.UnixMilli()
	if from < 0 {
		return 0, 0, nil, false
	}
	h0, h1 = (from+hourMS-1)/hourMS, to/hourMS
	if h0 >= h1 {
		return 0, 0, nil, false
	}
	if from < h0*hourMS {
		edges = append(edges, Period{p.From, time.UnixMilli(h0 * hourMS)})
	}
	if h1*hourMS < to {
		edges = append(edges, Period{time.UnixMilli(h1 * hourMS), p.To})
	}
	return h0, h1, edges, true
}

// daySpan splits the whole hours [h0, h1) into the whole UTC days [d0, d1) inside them (none
// when d0 >= d1) and the ranges of hours before and after those days.
func daySpan(h0, h1 int64) (d0, d1 int64, hours [][2]int64) {
	d0, d1 = (h0+23)/24, h1/24
	if d0 >= d1 {
		return 0, 0, [][2]int64{{h0, h1}}
	}
	if h0 < d0*24 {
		hours = append(hours, [2]int64{h0, d0 * 24})
	}
	if d1*24 < h1 {
		hours = append(hours, [2]int64{d1 * 24, h1})
	}
	return d0, d1, hours
}

// paidHours adds the payments received in p to the wallets' totals and returns them by slot
// (grain: see queryGrain, for a period the rollups cannot serve); cuts are the starts of the chart's buckets (none when only the totals are wanted). The whole
// UTC hours of p come from the hourly rollup (paid_hours), except an hour a bucket starts
// inside (a zone whose offset is not whole hours); what is left, at most an hour at each end of
// p and those hours, is summed from the payments themselves, piece by piece between the cuts.
func (s *Store) paidHours(ctx context.Context, q DayQuery, p Period, grain time.Duration, cuts []time.Time, get func(string) *Totals) ([]hourRow, error) {
	h0, h1, edges, ok := rollupSpan(p)
	if !ok || s.noRollups {
		return s.paidHoursScan(ctx, q, p, grain, get)
	}
	split := map[int64]bool{} // the hours a cut falls inside
	for _, c := range cuts {
		if ms := c.UnixMilli(); ms%hourMS != 0 && ms > h0*hourMS && ms < h1*hourMS {
			h := ms / hourMS
			split[h] = true
			edges = append(edges, Period{time.UnixMilli(h * hourMS), time.UnixMilli((h + 1) * hourMS)})
		}
	}
	add := func(h hourRow, withFee int, reportedFee api.Money) {
		t := get(h.wallet)
		t.Paid += h.paid
		t.Gross += h.gross
		t.Fees += reportedFee
		if est := h.paid - withFee; est > 0 {
			t.FeesEstimated += est
			if q.HasFee {
				t.Fees += q.Fee * api.Money(est)
			} else {
				t.FeesUnknown += est
			}
		}
	}
	// When every bucket after the first is a day of 24 hours starting on a whole UTC hour (the
	// chart of 7 or 30 days in a zone whose clock does not change in the period), or when
	// only the totals are wanted, SQLite sums the hours by bucket: a row per wallet and day
	// instead of one per wallet and hour.
	byDay, firstDay := len(split) == 0, h1
	for i, c := range cuts {
		switch {
		case i == 0:
		case c.UnixMilli()%hourMS != 0 || (i > 1 && c.Sub(cuts[i-1]) != 24*time.Hour):
			byDay = false
		case i == 1:
			firstDay = c.UnixMilli() / hourMS
		}
	}
	// The statements over the rollups: with buckets, the hours of p; for the totals alone, its
	// whole UTC days from paid_days and the hours at either end.
	type part struct {
		stmt   string
		lo, hi int64
	}
	parts := []part{{paidRollupSQL, h0, h1}}
	switch {
	case len(cuts) == 0:
		parts = parts[:0]
		d0, d1, hours := daySpan(h0, h1)
		if d0 < d1 {
			parts = append(parts, part{paidDaysSQL, d0, d1})
		}
		for _, hr := range hours {
			parts = append(parts, part{paidRollupDaysSQL, hr[0], hr[1]})
		}
	case byDay:
		parts[0].stmt = paidRollupDaysSQL
	}
	var out []hourRow
	for _, pt := range parts {
		sqlText, args := dayStatement(pt.stmt, q.Wallet, Period{})
		args[0], args[1] = pt.lo, pt.hi
		if pt.stmt == paidRollupDaysSQL { // ?4, after the wallet's ?3 (bound even when unused)
			args = append(args[:2], q.Wallet, firstDay)
		}
		rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
		if err != nil {
			return nil, classify(err)
		}
		grouped := pt.stmt != paidRollupSQL
		for rows.Next() {
			var (
				h                   hourRow
				hour                int64
				withFee             int
				gross, reportedFees int64
			)
			if err := rows.Scan(&h.wallet, &hour, &h.paid, &gross, &withFee, &reportedFees); err != nil {
				_ = rows.Close()
				return nil, classify(err)
			}
			if h.paid == 0 || !grouped && split[hour] {
				continue
			}
			switch {
			case !grouped:
				h.at = time.UnixMilli(hour * hourMS)
			case hour < 0 && len(cuts) > 0: // before the first whole day: the first bucket
				h.at = cuts[0]
			case hour < 0:
				h.at = p.From
			default: // day number hour after the first whole day
				h.at = cuts[min(int(hour)+1, len(cuts)-1)]
			}
			h.gross = api.Money(gross)
			add(h, withFee, api.Money(reportedFees))
			out = append(out, h)
		}
		_ = rows.Close()
		if err := rows.Err(); err != nil {
			return nil, classify(err)
		}
	}
	for _, piece := range splitAt(edges, cuts) {
		sqlText, args := dayStatement(paidPieceSQL, q.Wallet, piece)
		rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
		if err != nil {
			return nil, classify(err)
		}
		for rows.Next() {
			var (
				h                  hourRow
				withFee            int
				gross, reportedFee int64
			)
			if err := rows.Scan(&h.wallet, &h.paid, &gross, &withFee, &reportedFee); err != nil {
				_ = rows.Close()
				return nil, classify(err)
			}
			h.at, h.gross = piece.From, api.Money(gross)
			add(h, withFee, api.Money(reportedFee))
			out = append(out, h)
		}
		_ = rows.Close()
		if err := rows.Err(); err != nil {
			return nil, classify(err)
		}
	}
	return out, nil
}

// splitAt cuts each period at the times of cuts (in order) inside it.
func splitAt(ps []Period, cuts []time.Time) []Period {
	var out []Period
	for _, p := range ps {
		a := p.From
		for _, c := range cuts {
			if c.After(a) && c.Before(p.To) {
				out = append(out, Period{a, c})
				a = c
			}
		}
		out = append(out, Period{a, p.To})
	}
	return out
}

// paidHoursScan is paidHours from the payments' rows alone (the charges_paid index), by slot
// of grain from p's start: what DayReport read before the rollups, and still reads for a period
// they cannot serve.
func (s *Store) paidHoursScan(ctx context.Context, q DayQuery, p Period, grain time.Duration, get func(string) *Totals) ([]hourRow, error) {
	sqlText, args := dayStatement(paidHoursSQL, q.Wallet, p)
	if grain != time.Hour {
		sqlText = strings.Replace(sqlText, "/ 3600000,", "/ "+strconv.FormatInt(grain.Milliseconds(), 10)+",", 1)
	}
	rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []hourRow
	for rows.Next() {
		var (
			h                  hourRow
			slot               int64
			n, withFee         int
			gross, reportedFee int64
		)
		if err := rows.Scan(&h.wallet, &slot, &n, &gross, &withFee, &reportedFee); err != nil {
			return nil, classify(err)
		}
		h.at = p.From.Add(time.Duration(slot) * grain)
		h.paid, h.gross = n, api.Money(gross)
		t := get(h.wallet)
		t.Paid += n
		t.Gross += h.gross
		t.Fees += api.Money(reportedFee)
		if est := n - withFee; est > 0 {
			t.FeesEstimated += est
			if q.HasFee {
				t.Fees += q.Fee * api.Money(est)
			} else {
				t.FeesUnknown += est
			}
		}
		out = append(out, h)
	}
	return out, classify(rows.Err())
}

// createdStates counts the charges created in p by the state they are in now: the whole UTC
// hours of p from the hourly rollup (created_hours), the rest from the charges themselves.
func (s *Store) createdStates(ctx context.Context, wallet string, p Period, get func(string) *Totals) error {
	h0, h1, edges, ok := rollupSpan(p)
	if !ok || s.noRollups {
		sqlText, args := dayStatement(createdStatesSQL, wallet, p)
		return s.addCreated(ctx, sqlText, args, get)
	}
	d0, d1, hours := daySpan(h0, h1)
	if d0 < d1 {
		sqlText, args := dayStatement(createdDaysSQL, wallet, Period{})
		args[0], args[1] = d0, d1
		if err := s.addCreated(ctx, sqlText, args, get); err != nil {
			return err
		}
	}
	for _, hr := range hours {
		sqlText, args := dayStatement(createdRollupSQL, wallet, Period{})
		args[0], args[1] = hr[0], hr[1]
		if err := s.addCreated(ctx, sqlText, args, get); err != nil {
			return err
		}
	}
	for _, e := range edges {
		sqlText, args := dayStatement(createdStatesSQL, wallet, e)
		if err := s.addCreated(ctx, sqlText, args, get); err != nil {
			return err
		}
	}
	return nil
}

// addCreated adds the rows (wallet, state, count) of a statement to the wallets' totals.
func (s *Store) addCreated(ctx context.Context, sqlText string, args []any, get func(string) *Totals) error {
	rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			w, st string
			n     int
		)
		if err := rows.Scan(&w, &st, &n); err != nil {
			return classify(err)
		}
		if n == 0 {
			continue
		}
		t := get(w)
		t.Created += n
		switch ChargeState(st) {
		case StatePending:
			t.Pending += n
		case StateExpired:
			t.Expired += n
		case StateFailed:
			t.Failed += n
		case StateCancelled:
			t.Cancelled += n
		case StatePaid, StateRefunded, StateReturned, StateBlocked:
		default:
			t.Unknown += n
		}
	}
	return classify(rows.Err())
}

// The period query's statements, each read through its covering index (INDEXED BY: without
// statistics SQLite prefers charges_state or charges_wallet_state, which read the table rows,
// about 3 s at a million charges). %s is where dayStatement puts the wallet condition.
const (
	paidHoursSQL = `SELECT wallet, (paid_at - ?1) / 3600000, count(*), coalesce(sum(amount), 0), count(fee), coalesce(sum(fee), 0)
		FROM charges INDEXED BY charges_paid WHERE paid_at >= ?1 AND paid_at < ?2 AND state IN ` + receivedStates + `%s GROUP BY 1, 2`
	createdStatesSQL = `SELECT wallet, state, count(*) FROM charges INDEXED BY charges_created
		WHERE created_at >= ?1 AND created_at < ?2%s GROUP BY 1, 2`
	// paidPieceSQL sums the payments of a piece of the period the rollup does not cover.
	paidPieceSQL = `SELECT wallet, count(*), coalesce(sum(amount), 0), count(fee), coalesce(sum(fee), 0)
		FROM charges INDEXED BY charges_paid WHERE paid_at >= ?1 AND paid_at < ?2 AND state IN ` + receivedStates + `%s GROUP BY 1`
	// The rollups, by UTC hour [?1, ?2) (migration 0010).
	paidRollupSQL = `SELECT wallet, hour, n, gross, nfee, fee FROM paid_hours WHERE hour >= ?1 AND hour < ?2%s`
	// paidRollupDaysSQL sums the hours by day from the first whole day's hour ?4 (-1: before it).
	paidRollupDaysSQL = `SELECT wallet, CASE WHEN hour < ?4 THEN -1 ELSE (hour - ?4) / 24 END, sum(n), sum(gross), sum(nfee), sum(fee)
		FROM paid_hours WHERE hour >= ?1 AND hour < ?2%s GROUP BY 1, 2`
	createdRollupSQL = `SELECT wallet, state, sum(n) FROM created_hours WHERE hour >= ?1 AND hour < ?2%s GROUP BY 1, 2`
	// The daily rollups, by UTC day [?1, ?2): the totals alone.
	paidDaysSQL    = `SELECT wallet, -1, sum(n), sum(gross), sum(nfee), sum(fee) FROM paid_days WHERE day >= ?1 AND day < ?2%s GROUP BY 1`
	createdDaysSQL = `SELECT wallet, state, sum(n) FROM created_days WHERE day >= ?1 AND day < ?2%s GROUP BY 1, 2`
	// medSQL reads the payments a MED block returned or holds through their partial index.
	medSQL = `SELECT ` + chargeColsPlain + ` FROM charges INDEXED BY charges_med
		WHERE paid_at >= ?1 AND paid_at < ?2 AND paid_at IS NOT NULL AND state IN ('returned', 'blocked')%s`
	// refundLinesSQL reads the confirmed refund lines of a period (migration 0014) in arrival order.
	refundLinesSQL = `SELECT wallet, charge_id, line_id, received_at, amount, fee FROM refund_lines INDEXED BY refund_lines_at
		WHERE received_at >= ?1 AND received_at < ?2%s ORDER BY received_at, seq`
)

// dayStatement fills a statement for period p, kept to one wallet unless wallet is "".
func dayStatement(stmt, wallet string, p Period) (string, []any) {
	args := []any{p.From.UnixMilli(), p.To.UnixMilli()}
	cond := ""
	if wallet != "" {
		cond = ` AND wallet = ?3`
		args = append(args, wallet)
	}
	return fmt.Sprintf(stmt, cond), args
}

// dayEventKinds is the condition of the partial index events_day (migration 0015, written
// without IN: see there): a query must repeat it, word for word, for SQLite to use the index.
const dayEventKinds = `(kind = 'refund_completed' OR kind = 'balance_block_created' OR kind = 'balance_block_approved' OR kind = 'balance_block_rejected')`

// RefundLine is one refund_completed the store holds.
type RefundLine struct {
	Wallet   string
	ChargeID string
	// LineID is the service's refund line (data.id).
	LineID string
	At     time.Time
	Amount api.Money
	// FeeReported is the refund fee the event reported, between 0 and Amount (else 0):
	// unconfirmed, the service's answer does not carry it.
	FeeReported api.Money
}

// refundLines reads the refund_completed events received in p that the service confirmed (the
// refund line read back: ConfirmEvent), one per refunded charge and one per refund line (the
// first wins when two name one charge or one line), from refund_lines (migration 0014), in the
// order they arrived.
func (s *Store) refundLines(ctx context.Context, wallet string, p Period) ([]RefundLine, error) {
	sqlText, args := dayStatement(refundLinesSQL, wallet, p)
	rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	// Sized for as many rows as the last read found per hour, over this period (the dashboard
	// reads today and the last 7 or 30 days again and again): growing the maps and the slice row
	// by row was a fifth of the read.
	hours := max(p.To.Sub(p.From).Hours(), 1)
	n := int(min(math.Float64frombits(s.refundRate.Load())*hours, 1<<20))
	charges, lines := make(map[string]bool, n), make(map[string]bool, n)
	var out []RefundLine
	if n > 0 {
		out = make([]RefundLine, 0, n)
	}
	read := 0
	for rows.Next() {
		var (
			l           RefundLine
			at          int64
			amount, fee int64
		)
		if err := rows.Scan(&l.Wallet, &l.ChargeID, &l.LineID, &at, &amount, &fee); err != nil {
			return nil, classify(err)
		}
		read++
		if (l.ChargeID != "" && charges[l.ChargeID]) || (l.LineID != "" && lines[l.LineID]) {
			continue
		}
		charges[l.ChargeID], lines[l.LineID] = true, true
		l.At, l.Amount, l.FeeReported = time.UnixMilli(at).In(s.loc), api.Money(amount), api.Money(fee)
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	s.refundRate.Store(math.Float64bits(float64(read) / hours))
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// refundsIn adds the refunds of p to the wallets' totals.
func (s *Store) refundsIn(ctx context.Context, wallet string, p Period, get func(string) *Totals) error {
	lines, err := s.refundLines(ctx, wallet, p)
	if err != nil {
		return err
	}
	for _, l := range lines {
		t := get(l.Wallet)
		t.Refunded++
		t.RefundedAmount += l.Amount
		t.RefundFeesReported += l.FeeReported
	}
	return nil
}

// medOutcomes adds the payments received in p whose money a MED block returned or holds.
func (s *Store) medOutcomes(ctx context.Context, wallet string, p Period, get func(string) *Totals) error {
	sqlText, args := dayStatement(medSQL, wallet, p)
	rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return classify(err)
	}
	return scanEach(rows, func(c *Charge) bool {
		o := c.Outcome()
		t := get(NormalizeWallet(c.Wallet))
		switch o.State {
		case StateReturned:
			t.Returned++
			t.ReturnedAmount += o.Amount
		case StateBlocked:
			t.Blocked++
			t.BlockedAmount += o.Amount
		}
		return true
	})
}

// buckets lays the hourly rows out on the period's hours or days.
func (s *Store) buckets(p Period, step time.Duration, series []string, hours []hourRow) []Bucket {
	bounds := s.bucketBounds(p, step)
	out := make([]Bucket, len(bounds))
	for i, b := range bounds {
		end := p.To
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		out[i] = Bucket{Start: b, End: end}
	}
	for i := range out {
		out[i].Gross = make([]api.Money, len(series))
		out[i].Paid = make([]int, len(series))
	}
	if len(out) == 0 {
		return nil
	}
	idx := make(map[string]int, len(series))
	for i, w := range series {
		idx[w] = i
	}
	for _, h := range hours {
		at := h.at
		b := sort.Search(len(out), func(i int) bool { return out[i].End.After(at) })
		if b == len(out) {
			b = len(out) - 1
		}
		w, ok := idx[h.wallet]
		if !ok {
			continue
		}
		out[b].Gross[w] += h.gross
		out[b].Paid[w] += h.paid
	}
	return out
}

// KnownWallets lists the wallets the store holds charges of, principal first.
func (s *Store) KnownWallets(ctx context.Context) ([]string, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT DISTINCT wallet FROM charge_counts WHERE n > 0`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, classify(err)
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b string) int {
		if walletLess(a, b) {
			return -1
		}
		if walletLess(b, a) {
			return 1
		}
		return strings.Compare(a, b)
	})
	return out, classify(rows.Err())
}
