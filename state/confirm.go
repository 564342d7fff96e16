package state

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"pixdash/api"
)

// TransactionReader reads a transaction as the service holds it (api.Client does).
type TransactionReader interface {
	GetTransaction(ctx context.Context, idOrRefOrKey string, opts ...api.RequestOption) (*api.Transaction, error)
}

// Verdict reasons are a code and its values joined by "|", so that each screen can word them
// in its own language (ParseReason splits them; Reason builds one).
const (
	// ReasonStatus: the service's status is not the one the event claims. Values: the event's
	// kind, the service's status.
	ReasonStatus = "status"
	// ReasonAmount: the amounts differ. Values: the event's and the service's, in centavos.
	ReasonAmount = "amount"
	// ReasonE2E: the end-to-end ids differ.
	ReasonE2E = "e2e"
	// ReasonOtherTransaction: the service answered for another transaction.
	ReasonOtherTransaction = "other-transaction"
	// ReasonNoTransaction: the event names no transaction.
	ReasonNoTransaction = "no-transaction"
	// ReasonNotFound: the service does not know the transaction. Values: the id, the wallet.
	ReasonNotFound = "not-found"
	// ReasonType: the service's transaction is not of the kind the event is about (a
	// payment_completed naming a withdrawal or refund line). Values: the event's kind, the
	// service's type.
	ReasonType = "type"
	// ReasonNoWallet: the event names a wallet the account does not have. Values: the wallet.
	ReasonNoWallet = "no-wallet"
	// ReasonRefundCharge: the refund line cannot be tied to the charge the event counts it for
	// (the charge is not a completed payment of that wallet, is smaller than the refund, or was
	// paid by someone else). Values: the refund line, the charge.
	ReasonRefundCharge = "refund-charge"
	// ReasonRefundCounted: the refund line was already counted, for another charge or by another
	// event. Values: the refund line, the charge it counts for.
	ReasonRefundCounted = "refund-counted"
)

// Reason joins a reason code and its values.
func Reason(code string, values ...string) string {
	return strings.Join(append([]string{code}, values...), "|")
}

// ParseReason splits a verdict reason into its code and values.
func ParseReason(r string) (code string, values []string) {
	parts := strings.Split(r, "|")
	return parts[0], parts[1:]
}

// Confirmation is the outcome of reading a payment event back from the service.
type Confirmation struct {
	EventID string
	Verdict Verdict
	// Reason says why the event was disputed or unknown (see Reason and ParseReason).
	Reason string
	// Before and After are the charge before and after the service's answer was applied; both
	// zero when no charge is tracked for the event.
	Before, After Charge
}

// ConfirmEvent reads what a recorded event names back from the service, records the verdict
// and applies the SERVICE's answer, never the event's. For a payment event it reads GET
// /transactions/{id} in the event's wallet (by transaction id, else by external reference):
//
//   - the service agrees (a payment, of a positive amount, in the status expected for the kind,
//     of the same amount, same e2eId when both have one): confirmed; the charge takes the
//     service's fields, and a charge not tracked yet is added (source "event");
//   - the service disagrees: disputed; a tracked charge still takes the service's answer, an
//     untracked one is not added (nor is anything that is not a payment);
//   - the service does not know the transaction (404), the event names none, or it names a
//     wallet the account does not have: unknown; nothing is added.
//
// What only the event tells is never taken as fact: its fee is kept as reported (Charge.FeeReported,
// unconfirmed, between 0 and the amount) and its split counts only where it agrees with the split
// the service accepted when the charge was created (else Charge.SplitReported).
//
// refund_completed (confirmRefund), withdrawal_* (confirmWithdrawal) and balance_block_*
// (confirmBlock) are read back too; other events are left unchecked. Any other failure
// (network, 5xx, auth) is returned and the verdict stays unchecked, so the caller can try again.
func (s *Store) ConfirmEvent(ctx context.Context, r TransactionReader, e *api.Event) (Confirmation, error) {
	out, err := s.confirmEvent(ctx, r, e)
	if err == nil && out.Verdict != "" {
		s.logConfirmation(e, out)
	}
	return out, err
}

// confirmEvent is ConfirmEvent without its log line.
func (s *Store) confirmEvent(ctx context.Context, r TransactionReader, e *api.Event) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	if !e.Kind.ReadBack() {
		return out, nil
	}
	wallet := NormalizeWallet(e.SubAccount)
	if api.ValidateWallet(wallet) != nil {
		// Not a reference the account can have ("+SUM(1)"): nothing is asked, nothing counts.
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoWallet, wallet)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	}
	switch {
	case e.Kind == api.EventRefundCompleted:
		return s.confirmRefund(ctx, r, e, wallet)
	case e.Kind.IsWithdrawal():
		return s.confirmWithdrawal(ctx, r, e, wallet)
	case e.Kind.IsBalanceBlock():
		return s.confirmBlock(ctx, r, e, wallet)
	}
	id := e.TransactionID
	if id == "" {
		id = e.ExternalReference
	}
	tx, done, err := s.readBack(ctx, r, e, id, wallet, &out)
	if done || err != nil {
		return out, err
	}
	out.Verdict, out.Reason = VerdictConfirmed, ""
	if reason := disagreement(e, tx); reason != "" {
		out.Verdict, out.Reason = VerdictDisputed, reason
	}
	var before Charge
	var tracked bool
	err = s.write(ctx, func(dbtx *sql.Tx) (func(), error) {
		c, ok, err := getChargeTx(dbtx, tx.ID)
		if err != nil {
			return nil, err
		}
		before, tracked = c, ok
		if (!ok && out.Verdict != VerdictConfirmed) || !isPayment(tx) {
			// Only a payment is ever a charge: a line of another type changes nothing.
			return func() { s.mark(changeEvents) }, setVerdictTx(dbtx, e.EventID, out.Verdict, out.Reason)
		}
		if !ok {
			c = Charge{ID: tx.ID, Wallet: wallet, Source: SourceEvent}
		}
		c.ApplyTransaction(tx)
		if out.Verdict == VerdictConfirmed {
			c.applyConfirmed(e)
		}
		merged, changed, err := s.putChargeTx(dbtx, c)
		if err != nil {
			return nil, err
		}
		out.After = merged
		if err := setVerdictTx(dbtx, e.EventID, out.Verdict, out.Reason); err != nil {
			return nil, err
		}
		if !changed {
			return func() { s.mark(changeEvents) }, nil
		}
		return func() { s.mark(changeEvents); s.cacheCharge(merged) }, nil
	})
	if err != nil {
		return out, err
	}
	if tracked {
		out.Before = before
	}
	return out, nil
}

// readBack reads transaction id of wallet for event e. When the outcome is already a verdict
// (no id, unknown to the service, a wallet the account does not have) it is recorded in out and
// done is true; any other failure is returned.
func (s *Store) readBack(ctx context.Context, r TransactionReader, e *api.Event, id, wallet string, out *Confirmation) (*api.Transaction, bool, error) {
	if id == "" {
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoTransaction)
		return nil, true, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	}
	tx, err := r.GetTransaction(ctx, id, api.WithSubAccount(walletHeader(wallet)))
	switch {
	case errors.Is(err, api.ErrSubAccountNotFound):
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoWallet, wallet)
		return nil, true, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	case errors.Is(err, api.ErrNotFound):
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNotFound, id, wallet)
		return nil, true, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	case err != nil:
		return nil, false, err
	case tx == nil:
		return nil, false, errors.New("state: the service answered no transaction")
	}
	return tx, false, nil
}

// confirmRefund reads the refund line a refund_completed names (data.id) back from the service
// in the event's wallet, then the charge the event counts it for, and records the verdict:
// confirmed when the line is a completed refund (its amount is negative: it leaves the wallet)
// of the event's amount, and the charge is a completed payment of that wallet at least as large,
// paid by the payer the line returns the money to (when both name one), and no other event
// counted the same line (one refund line counts once, whatever the events say); disputed when
// any of that fails; unknown when the service does not know the line. No charge changes: a
// refunded payment stays completed. The day's figures count confirmed refunds only, and the
// event's refund fee only as reported (the service's answer does not carry it).
func (s *Store) confirmRefund(ctx context.Context, r TransactionReader, e *api.Event, wallet string) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	line, done, err := s.readBack(ctx, r, e, e.ID, wallet, &out)
	if done || err != nil {
		return out, err
	}
	amount := -line.Amount
	chargeID := refundChargeID(e)
	out.Verdict = VerdictConfirmed
	switch {
	case line.ID != "" && line.ID != e.ID:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonOtherTransaction, line.ID)
	case line.Type != api.TypeRefund:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonType, string(e.Kind), orUnknown(string(line.Type)))
	case line.Status != api.StatusCompleted:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonStatus, string(e.Kind), orUnknown(string(line.Status)))
	case amount <= 0, e.Amount != 0 && amount != e.Amount:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonAmount, strconv.FormatInt(int64(e.Amount), 10), strconv.FormatInt(int64(amount), 10))
	case chargeID == "":
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonRefundCharge, e.ID, "-")
	}
	if out.Verdict == VerdictConfirmed {
		ch, err := r.GetTransaction(ctx, chargeID, api.WithSubAccount(walletHeader(wallet)))
		switch {
		case errors.Is(err, api.ErrNotFound):
			out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonRefundCharge, e.ID, chargeID)
		case err != nil:
			return out, err
		case ch == nil || !refundFits(line, ch, amount):
			out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonRefundCharge, e.ID, chargeID)
		}
	}
	err = s.write(ctx, func(dbtx *sql.Tx) (func(), error) {
		if out.Verdict == VerdictConfirmed {
			// Under the writer, so two events read back at once cannot both count one line.
			other, otherCharge, err := refundLineCountedTx(dbtx, e.ID, e.EventID, wallet)
			if err != nil {
				return nil, err
			}
			if other != "" {
				out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonRefundCounted, e.ID, orUnknown(otherCharge))
			}
		}
		if err := setVerdictTx(dbtx, e.EventID, out.Verdict, out.Reason); err != nil {
			return nil, err
		}
		// A refund the service confirmed is what happened to the charge's money (outcome.go).
		c, changed, err := s.refundOutcomeTx(dbtx, e.EventID, out.Verdict)
		if err != nil {
			return nil, err
		}
		if changed {
			return func() { s.mark(changeEvents); s.cacheCharge(c) }, nil
		}
		return func() { s.mark(changeEvents) }, nil
	})
	return out, err
}

// refundChargeID is the charge a refund_completed counts its line for: transactionId, else
// originalTransactionId; "" when it names none apart from the line itself, or names two
// different charges.
func refundChargeID(e *api.Event) string {
	id := e.TransactionID
	if id == "" || id == e.ID {
		id = e.OriginalTransactionID
	}
	if id == e.ID || (e.OriginalTransactionID != "" && e.OriginalTransactionID != id) {
		return ""
	}
	return id
}

// refundFits reports whether refund line (of amount, positive) can belong to charge ch as the
// service answers both: ch is a completed payment at least as large, and the line returns the
// money to the payer who paid it (when both carry the payer's document).
func refundFits(line, ch *api.Transaction, amount api.Money) bool {
	switch {
	case !isPayment(ch), ch.Status != api.StatusCompleted, ch.Amount < amount:
		return false
	case line.CounterpartDocument != "" && ch.CounterpartDocument != "" && line.CounterpartDocument != ch.CounterpartDocument:
		return false
	}
	return true
}

// refundLineCountedTx finds a confirmed refund_completed of wallet, other than eventID, that
// counted refund line lineID (never "": a line without id is not read back); it returns that
// event's id and the charge it counted ("" when none). The confirmed refunds' lines are in
// refund_lines (migration 0014), found by line id, the first confirmed first.
const refundLineCountedSQL = `SELECT e.event_id, e.transaction_id FROM refund_lines AS r INDEXED BY refund_lines_line
	JOIN events AS e ON e.seq = r.seq WHERE r.line_id = ? AND r.wallet = ? AND e.event_id <> ? ORDER BY r.seq LIMIT 1`

func refundLineCountedTx(tx *sql.Tx, lineID, eventID, wallet string) (string, string, error) {
	var id, charge string
	err := tx.QueryRow(refundLineCountedSQL, lineID, wallet, eventID).Scan(&id, &charge)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return id, charge, err
}

// expectedStatus is the transaction status a payment event claims.
func expectedStatus(k api.EventKind) api.TxStatus {
	switch k {
	case api.EventPaymentCompleted:
		return api.StatusCompleted
	case api.EventPaymentExpired:
		return api.StatusCancelled
	case api.EventPaymentFailed:
		return api.StatusFailed
	}
	return ""
}

// disagreement says how the service's transaction contradicts the event ("" when it does not).
func disagreement(e *api.Event, tx *api.Transaction) string {
	if !isPayment(tx) {
		return Reason(ReasonType, string(e.Kind), orUnknown(string(tx.Type)))
	}
	if tx.Amount <= 0 {
		return Reason(ReasonAmount, strconv.FormatInt(int64(e.Amount), 10), strconv.FormatInt(int64(tx.Amount), 10))
	}
	if want := expectedStatus(e.Kind); want != "" && tx.Status != want {
		return Reason(ReasonStatus, string(e.Kind), orUnknown(string(tx.Status)))
	}
	if e.Amount != 0 && e.Amount != tx.Amount {
		return Reason(ReasonAmount, strconv.FormatInt(int64(e.Amount), 10), strconv.FormatInt(int64(tx.Amount), 10))
	}
	if e.E2EID != "" && tx.E2EID != "" && e.E2EID != tx.E2EID {
		return Reason(ReasonE2E)
	}
	if e.TransactionID != "" && tx.ID != e.TransactionID {
		return Reason(ReasonOtherTransaction)
	}
	return ""
}

// isPayment reports whether the service's transaction is a payment: its type says so (the spec
// makes type required; an answer without one is taken for what the id names, a payment).
func isPayment(tx *api.Transaction) bool {
	return tx.Type == api.TypePayment || tx.Type == ""
}

func orUnknown(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "|", "/")
}

// walletHeader is the X-Sub-Account value for a wallet ("" for the main account).
func walletHeader(wallet string) string {
	if wallet == api.WalletPrincipal {
		return ""
	}
	return wallet
}
