package state

import (
	"context"
	"errors"
	"fmt"

	"pixdash/api"
)

// TransactionReader reads a transaction as the service holds it (api.Client does).
type TransactionReader interface {
	GetTransaction(ctx context.Context, idOrRefOrKey string, opts ...api.RequestOption) (*api.Transaction, error)
}

// Confirmation is the outcome of reading a payment event back from the service.
type Confirmation struct {
	EventID string
	Verdict Verdict
	// Reason says why the event was disputed or unknown (English).
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
// caller can try again. Events that are not about payments are left unchecked.
func (s *Store) ConfirmEvent(ctx context.Context, r TransactionReader, e *api.Event) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	if !e.Kind.IsPayment() {
		return out, nil
	}
	wallet := NormalizeWallet(e.SubAccount)
	id := e.TransactionID
	if id == "" {
		id = e.ExternalReference
	}
	if id == "" {
		out.Verdict, out.Reason = VerdictUnknown, "the event names no transaction"
		return out, s.SetEventVerdict(e.EventID, out.Verdict, out.Reason)
	}
	tx, err := r.GetTransaction(ctx, id, api.WithSubAccount(walletHeader(wallet)))
	switch {
	case errors.Is(err, api.ErrNotFound):
		out.Verdict, out.Reason = VerdictUnknown, fmt.Sprintf("the service does not know transaction %s in wallet %s", id, wallet)
		return out, s.SetEventVerdict(e.EventID, out.Verdict, out.Reason)
	case err != nil:
		return out, err
	}
	out.Verdict, out.Reason = VerdictConfirmed, ""
	if reason := disagreement(e, tx); reason != "" {
		out.Verdict, out.Reason = VerdictDisputed, reason
	}
	var before Charge
	var tracked bool
	err = s.write(func() (*batch, error) {
		c, ok := s.m.charges.Get(tx.ID)
		before, tracked = c, ok
		if !ok {
			if out.Verdict != VerdictConfirmed {
				return nil, nil
			}
			c = Charge{ID: tx.ID, Wallet: wallet, Source: SourceEvent}
		}
		c.ApplyTransaction(tx)
		if out.Verdict == VerdictConfirmed {
			c.applyConfirmed(e)
		}
		merged, changed := s.m.putCharge(c)
		out.After = merged
		if !changed {
			return nil, nil
		}
		return s.commitLocked(recCharge, s.now(), merged)
	})
	if err != nil {
		return out, err
	}
	if tracked {
		out.Before = before
	}
	return out, s.SetEventVerdict(e.EventID, out.Verdict, out.Reason)
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
		return fmt.Sprintf("%s, but the service says the transaction is %s", e.Kind, orUnknown(string(tx.Status)))
	}
	if e.Amount != 0 && e.Amount != tx.Amount {
		return fmt.Sprintf("the event says %s, the service %s", e.Amount.BRL(), tx.Amount.BRL())
	}
	if e.E2EID != "" && tx.E2EID != "" && e.E2EID != tx.E2EID {
		return "the event's e2eId differs from the service's"
	}
	if e.TransactionID != "" && tx.ID != e.TransactionID {
		return "the service answered for another transaction"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(no status)"
	}
	return s
}

// walletHeader is the X-Sub-Account value for a wallet ("" for the main account).
func walletHeader(wallet string) string {
	if wallet == api.WalletPrincipal {
		return ""
	}
	return wallet
}
