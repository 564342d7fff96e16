package sandbox

import (
	"sort"

	"pixdash/api"
)

// ChargeRef names a PIX charge and the wallet it lives in.
type ChargeRef struct {
	ID     string
	Wallet string // "principal" or a sub-account reference
}

// ChargeCount counts the PIX charges of every account (seeded history included).
func (s *Server) ChargeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.txs {
		if t.typ == api.TypePayment && t.method == api.MethodPix {
			n++
		}
	}
	return n
}

// Charges lists the PIX charges of the account that clientID belongs to, oldest first; demo mode
// uses it to track the fixture's seeded history so a fresh dashboard has something to show.
func (s *Server) Charges(clientID string) []ChargeRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	txs := s.pixCharges(clientID)
	out := make([]ChargeRef, len(txs))
	for i, t := range txs {
		out[i] = ChargeRef{ID: t.id, Wallet: t.wallet.label()}
	}
	return out
}

// pixCharges is the PIX charges of the account holding credential clientID, oldest first (none
// for an unknown credential); s.mu is held.
func (s *Server) pixCharges(clientID string) []*tx {
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
	sort.Slice(txs, func(i, j int) bool { return txs[i].seq < txs[j].seq })
	return txs
}
