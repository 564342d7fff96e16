package state

import (
	"context"
	"sort"
	"time"

	"pixdash/api"
)

// CloseLine is the day's close of one wallet (or, in CloseReport.Total, of all of them).
type CloseLine struct {
	Totals
	// Withdrawals asked from this dashboard during the day that the service created (one it
	// refused when asked is not a withdrawal): how many, how many completed, and the gross that
	// left the wallet for the completed ones (fees included).
	Withdrawals          int
	WithdrawalsCompleted int
	WithdrawalsFailed    int // failed or reversed after the service created them (a refused one is none)
	WithdrawnGross       api.Money
	WithdrawalFees       api.Money
	// MED blocks: balance_block_created received during the day, and the approved or rejected ones.
	BlocksOpened, BlocksResolved int
	// Split legs of the day's payments: sent by this wallet to others, received from others.
	SplitSentN, SplitReceivedN int
	SplitSent, SplitReceived   api.Money
	// Balance is what the service reported when the close was made (nil: not read);
	// BalanceErr says why it could not be read.
	Balance    *api.AccountBalance
	BalanceErr string
}

// add folds o into l (the balance is summed where both sides have the figure).
func (l *CloseLine) add(o CloseLine) {
	l.Totals.add(o.Totals)
	l.Withdrawals += o.Withdrawals
	l.WithdrawalsCompleted += o.WithdrawalsCompleted
	l.WithdrawalsFailed += o.WithdrawalsFailed
	l.WithdrawnGross += o.WithdrawnGross
	l.WithdrawalFees += o.WithdrawalFees
	l.BlocksOpened += o.BlocksOpened
	l.BlocksResolved += o.BlocksResolved
	l.SplitSentN += o.SplitSentN
	l.SplitReceivedN += o.SplitReceivedN
	l.SplitSent += o.SplitSent
	l.SplitReceived += o.SplitReceived
}

// CloseReport is the day's close (fechamento de caixa) of a profile, per wallet and in total.
type CloseReport struct {
	Profile string
	Day     Period
	// Made is when the report was made; Partial is set when the day had not ended then.
	Made    time.Time
	Partial bool
	Wallets []CloseLine
	Total   CloseLine
	// FeeEstimate is the fee used for payments the service reported none for (HasFeeEstimate false: none known).
	FeeEstimate    api.Money
	HasFeeEstimate bool
}

// SetBalance records the balance the service reported for wallet (or why it could not be read)
// and recomputes the total's balance.
func (r *CloseReport) SetBalance(wallet string, b *api.AccountBalance, errText string) {
	for i := range r.Wallets {
		if r.Wallets[i].Wallet == wallet {
			r.Wallets[i].Balance, r.Wallets[i].BalanceErr = b, errText
		}
	}
	r.Total.Balance, r.Total.BalanceErr = sumBalances(r.Wallets), ""
}

// sumBalances adds the wallets' available, held and total balances; nil when any is missing.
func sumBalances(ls []CloseLine) *api.AccountBalance {
	var avail, held, total api.Money
	var hasHeld, hasTotal = true, true
	for _, l := range ls {
		if l.Balance == nil || l.Balance.Available == nil {
			return nil
		}
		avail += *l.Balance.Available
		if l.Balance.Held != nil {
			held += *l.Balance.Held
		} else {
			hasHeld = false
		}
		if l.Balance.Total != nil {
			total += *l.Balance.Total
		} else {
			hasTotal = false
		}
	}
	if len(ls) == 0 {
		return nil
	}
	out := &api.AccountBalance{Available: &avail}
	if hasHeld {
		out.Held = &held
	}
	if hasTotal {
		out.Total = &total
	}
	return out
}

// CloseQuery selects a day's close.
type CloseQuery struct {
	Day Period
	// Wallets are the wallets to report even without figures (the profile's wallets); every
	// wallet with a figure that day is reported too.
	Wallets []string
	// Fee is the estimate for payments without a reported fee, as in DayQuery.
	Fee    api.Money
	HasFee bool
}

// CloseDay reads a day's close from the local database. The balances are not read here: the
// caller asks the service and records them with SetBalance.
func (s *Store) CloseDay(ctx context.Context, q CloseQuery) (CloseReport, error) {
	now := s.now()
	day, err := s.DayReport(ctx, DayQuery{Period: q.Day, Now: now, Fee: q.Fee, HasFee: q.HasFee, NoBuckets: true})
	if err != nil {
		return CloseReport{}, err
	}
	r := CloseReport{Profile: s.profile, Day: q.Day, Made: now, Partial: now.Before(q.Day.To), FeeEstimate: q.Fee, HasFeeEstimate: q.HasFee}
	lines := map[string]*CloseLine{}
	get := func(w string) *CloseLine {
		w = NormalizeWallet(w)
		l := lines[w]
		if l == nil {
			l = &CloseLine{Totals: Totals{Wallet: w}}
			lines[w] = l
		}
		return l
	}
	for _, w := range q.Wallets {
		get(w)
	}
	for _, t := range day.Wallets {
		get(t.Wallet).Totals = t
	}
	if err := s.closeWithdrawals(ctx, q.Day, get); err != nil {
		return CloseReport{}, err
	}
	if err := s.closeBlocks(ctx, q.Day, get); err != nil {
		return CloseReport{}, err
	}
	if err := s.closeSplits(ctx, q.Day, get); err != nil {
		return CloseReport{}, err
	}
	for _, l := range lines {
		r.Wallets = append(r.Wallets, *l)
	}
	sortLines(r.Wallets)
	for _, l := range r.Wallets {
		r.Total.add(l)
	}
	return r, nil
}

// sortLines orders the lines like the wallets: principal first, then by name.
func sortLines(ls []CloseLine) {
	sort.Slice(ls, func(i, j int) bool { return walletLess(ls[i].Wallet, ls[j].Wallet) })
}

// closeWithdrawals adds the withdrawals asked during the day.
func (s *Store) closeWithdrawals(ctx context.Context, day Period, get func(string) *CloseLine) error {
	ws, err := s.queryWithdrawals(ctx, func(Withdrawal) bool { return true },
		`SELECT doc FROM withdrawals WHERE requested_at >= ? AND requested_at < ?`, day.From.UnixMilli(), day.To.UnixMilli())
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.State == WithdrawalRefused {
			// Refused when asked (the service answered an error): it never existed and nothing
			// left the wallet, so it is no withdrawal.
			continue
		}
		l := get(w.Wallet)
		l.Withdrawals++
		switch w.State {
		case WithdrawalCompleted:
			l.WithdrawalsCompleted++
			l.WithdrawnGross += w.Amount
			l.WithdrawalFees += w.Fee
		case WithdrawalFailed, WithdrawalReversed:
			l.WithdrawalsFailed++
		}
	}
	return nil
}

// closeBlocks counts the MED blocks opened and resolved during the day: the balance_block_*
// events the service confirmed (the wallet lists the block as the event says), so an event for
// a wallet the account does not have adds no wallet to the close.
func (s *Store) closeBlocks(ctx context.Context, day Period, get func(string) *CloseLine) error {
	rows, err := s.rdb.QueryContext(ctx, `SELECT wallet, kind, count(*) FROM events INDEXED BY events_day
		WHERE `+dayEventKinds+` AND kind <> 'refund_completed' AND verdict = 'confirmed' AND received_at >= ? AND received_at < ? GROUP BY 1, 2`,
		day.From.UnixMilli(), day.To.UnixMilli())
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			w, kind string
			n       int
		)
		if err := rows.Scan(&w, &kind, &n); err != nil {
			return classify(err)
		}
		l := get(w)
		if api.EventKind(kind) == api.EventBalanceBlockCreated {
			l.BlocksOpened += n
		} else {
			l.BlocksResolved += n
		}
	}
	return classify(rows.Err())
}

// closeSplits adds the split legs of the payments received during the day: what each
// originator sent and what each destination received (as distributed, else as requested).
func (s *Store) closeSplits(ctx context.Context, day Period, get func(string) *CloseLine) error {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+chargeColsPlain+` FROM charges INDEXED BY charges_paid
		WHERE paid_at >= ? AND paid_at < ? AND state IN `+receivedStates+` AND (substr(doc, 1, 1) <> '{' OR instr(doc, CAST('"splitDistributed"' AS BLOB)) > 0 OR instr(doc, CAST('"splitRequested"' AS BLOB)) > 0)`,
		day.From.UnixMilli(), day.To.UnixMilli())
	if err != nil {
		return classify(err)
	}
	return scanEach(rows, func(c *Charge) bool {
		legs := c.SplitRequested
		if c.HasDistributed {
			legs = c.SplitDistributed
		}
		from := NormalizeWallet(c.Wallet)
		for _, leg := range legs {
			to := NormalizeWallet(leg.SubAccount)
			if to == from || leg.Amount <= 0 {
				continue
			}
			sent := get(from)
			sent.SplitSentN++
			sent.SplitSent += leg.Amount
			recv := get(to)
			recv.SplitReceivedN++
			recv.SplitReceived += leg.Amount
		}
		return true
	})
}
