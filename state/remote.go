package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pixdash/api"
)

// RemoteCharge is a charge another counter created, as the hub announced it: enough to list it
// as pending here and read it back from the service; never a secret or a customer document.
type RemoteCharge struct {
	ID                string
	Wallet            string
	Amount            api.Money
	Description       string
	ExternalReference string
	// Counter names the counter that created it.
	Counter   string
	CreatedAt time.Time
}

// TrackRemoteCharge starts tracking a charge another counter created (source SourceHub, status
// pending until a read-back from the service says otherwise, so the poll schedule picks it up).
// A charge already tracked is left as it is and reported with added false: an announcement
// arriving after the payment's read-back never turns a paid charge back to pending.
func (s *Store) TrackRemoteCharge(ctx context.Context, rc RemoteCharge) (c Charge, added bool, err error) {
	switch {
	case rc.ID == "":
		return Charge{}, false, errors.New("state: remote charge without id")
	case rc.Amount <= 0:
		return Charge{}, false, fmt.Errorf("state: remote charge %s: amount %d is not positive", rc.ID, rc.Amount)
	}
	c, tracked, err := s.changeCharge(ctx, rc.ID, func(c Charge, ok bool) (Charge, bool) {
		if ok {
			return c, false
		}
		return Charge{
			ID: rc.ID, Wallet: NormalizeWallet(rc.Wallet), Amount: rc.Amount,
			Description: rc.Description, ExternalReference: rc.ExternalReference,
			Status: api.StatusPending, CreatedAt: rc.CreatedAt, Source: SourceHub, Counter: rc.Counter,
		}, true
	})
	return c, err == nil && !tracked, err
}

// OnChargeCreated has fn told of every pending charge this pixdash created (source
// SourceCreated), after the commit that records it, and again after each later commit of it
// while it stays pending; nil stops it. fn runs on the writer's path: it must not block or call
// the store (the hub link queues the charge and announces it from its own goroutine).
func (s *Store) OnChargeCreated(fn func(Charge)) {
	if fn == nil {
		s.created.Store(nil)
		return
	}
	s.created.Store(&fn)
}

// tellCreated tells the OnChargeCreated function of c when c is a pending charge created here.
func (s *Store) tellCreated(c Charge) {
	if c.Source != SourceCreated || c.Status != api.StatusPending {
		return
	}
	if f := s.created.Load(); f != nil {
		(*f)(c)
	}
}
