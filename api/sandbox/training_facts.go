package sandbox

import (
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
	txs := s.pixCharges(clientID)
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
