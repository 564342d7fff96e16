package sandbox

import (
	"cmp"
	"slices"
	"time"

	"pixdash/api"
)

// ChargeFact is what training mode reads of a PIX charge in-process: its state, its money and
// how much of it went back.
type ChargeFact struct {
	ID        string
	Amount    api.Money
	Status    api.TxStatus
	Refunded  api.Money
	PaidAt    *time.Time
	CreatedAt time.Time
}

// ChargeFacts lists the PIX charges of the account holding credential clientID, oldest first
// (none for an unknown credential).
func (s *Server) ChargeFacts(clientID string) []ChargeFact {
	s.mu.Lock()
	defer s.mu.Unlock()
	cred, ok := s.creds[clientID]
	if !ok {
		return nil
	}
	var txs []*tx
	for _, t := range s.txs {
		if t.typ == api.TypePayment && t.method == api.MethodPix && t.wallet.acct == cred.acct {
			txs = append(txs, t)
		}
	}
	slices.SortFunc(txs, func(a, b *tx) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]ChargeFact, len(txs))
	for i, t := range txs {
		out[i] = ChargeFact{ID: t.id, Amount: t.amount, Status: t.status, Refunded: t.refunded, CreatedAt: t.createdAt}
		if t.paidAt != nil {
			p := *t.paidAt
			out[i].PaidAt = &p
		}
	}
	return out
}
