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

// ConfirmEvent reads the transaction a recorded payment event names back from the service
// (GET /transactions/{id} in the event's wallet, by transaction id or else by external
// reference), records the verdict and applies the SERVICE's answer, never the event's:
//
//   - the service agrees (status expected for the kind, same amount, same e2eId when both
//     have one): confirmed; the charge takes the service's fields, and a charge not tracked
//     yet is added (source "event");
//   - the service disagrees: disputed; a tracked charge still takes the service's answer, an
//     untracked one is not added;
//   - the service does not know the transaction (404) or the event names none: unknown;
//     nothing is added.
//
// Any other failure (network, 5xx, auth) is returned and the verdict stays unchecked, so the
// caller can try again. A refund_completed is read back too (see confirmRefund); other events
// are left unchecked.
func (s *Store) ConfirmEvent(ctx context.Context, r TransactionReader, e *api.Event) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	if e.Kind == api.EventRefundCompleted {
		return s.confirmRefund(ctx, r, e)
	}
	if !e.Kind.IsPayment() {
		return out, nil
	}
	wallet := NormalizeWallet(e.SubAccount)
	id := e.TransactionID
	if id == "" {
		id = e.ExternalReference
	}
	if id == "" {
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoTransaction)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	}
	tx, err := r.GetTransaction(ctx, id, api.WithSubAccount(walletHeader(wallet)))
	switch {
	case errors.Is(err, api.ErrNotFound):
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNotFound, id, wallet)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	case err != nil:
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
		if !ok && out.Verdict != VerdictConfirmed {
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

// confirmRefund reads the refund line a refund_completed names (data.id) back from the service
// in the event's wallet and records the verdict: confirmed when it is a completed refund of the
// event's amount (the line's amount is negative: it leaves the wallet), disputed when it is
// not, unknown when the service does not know it. No charge changes: a refunded payment stays
// completed. The day's figures count confirmed refunds only.
func (s *Store) confirmRefund(ctx context.Context, r TransactionReader, e *api.Event) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	wallet := NormalizeWallet(e.SubAccount)
	if e.ID == "" {
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoTransaction)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	}
	tx, err := r.GetTransaction(ctx, e.ID, api.WithSubAccount(walletHeader(wallet)))
	switch {
	case errors.Is(err, api.ErrNotFound):
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNotFound, e.ID, wallet)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	case err != nil:
		return out, err
	}
	amount := tx.Amount
	if amount < 0 {
		amount = -amount
	}
	out.Verdict = VerdictConfirmed
	switch {
	case tx.ID != "" && tx.ID != e.ID, tx.Type != "" && tx.Type != api.TypeRefund:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonOtherTransaction, tx.ID)
	case tx.Status != api.StatusCompleted:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonStatus, string(e.Kind), string(tx.Status))
	case e.Amount != 0 && amount != e.Amount:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonAmount, strconv.FormatInt(int64(e.Amount), 10), strconv.FormatInt(int64(amount), 10))
	}
	return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
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
