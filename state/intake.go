package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"pixdash/api"
)

// ErrReceiverBusy is returned by Store.OpenIntake when another process receives the profile's
// webhooks.
var ErrReceiverBusy = errors.New("another pixdash is receiving this profile's webhooks")

// ErrIntakeClosed is returned by Accept after Close.
var ErrIntakeClosed = errors.New("webhook intake is closed")

// Intake is the webhook receiver's sink (an api.EventSink): Accept returns once the event's row
// is committed, so the receiver answers 200 only for what a crash cannot lose. The deliveries
// that arrive while a commit is under way are written together by the next one (one
// transaction, one fsync). A copy of a known eventId is counted, not stored again. While the
// disk is full Accept refuses with an error wrapping api.ErrSinkFull (the receiver answers 503
// and the sender retries); intake resumes by itself once there is room.
type Intake struct {
	s      *Store
	lock   *os.File // held while receiving; nil in memory
	closed atomic.Bool

	mu       sync.Mutex
	accepted int
}

// OpenIntake makes this process the receiver of the profile's webhooks: it takes the profile's
// receiver lock (<name>.receiver next to the database), or fails with ErrReceiverBusy while
// another process holds it. Events reach every process through the database.
func (s *Store) OpenIntake() (*Intake, error) {
	in := &Intake{s: s}
	if s.file == "" {
		return in, nil
	}
	path := filepath.Join(filepath.Dir(s.file), ProfileFileName(s.profile)+".receiver")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if err := tryLockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, ErrReceiverBusy
		}
		return nil, fmt.Errorf("state: locking %s: %w", path, err)
	}
	in.lock = f
	return in, nil
}

// Accept decodes and records a verified payload (see api.EventSink).
func (in *Intake) Accept(raw []byte) error {
	ev, err := api.DecodeEvent(raw)
	if err != nil {
		return err
	}
	return in.accept(raw, ev)
}

func (in *Intake) accept(raw []byte, ev *api.Event) error {
	e, err := in.check(raw, ev)
	if err != nil {
		return err
	}
	// The store's writer already commits together the writes that wait for it: the deliveries
	// that arrive while a commit is under way share the next one, with no other hand-off.
	if _, err := in.s.ApplyEvents(context.Background(), []*api.Event{e}); err != nil {
		return in.wrap(err)
	}
	in.mu.Lock()
	in.accepted++
	in.mu.Unlock()
	return nil
}

// check refuses what Accept never records, and returns a copy of ev holding raw.
func (in *Intake) check(raw []byte, ev *api.Event) (*api.Event, error) {
	if in.closed.Load() {
		return nil, ErrIntakeClosed
	}
	if ev == nil || ev.EventID == "" {
		return nil, fmt.Errorf("%w: no eventId", api.ErrEventInvalid)
	}
	if len(raw) > MaxEventBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", api.ErrEventInvalid, MaxEventBytes)
	}
	e := *ev
	e.Raw = raw // the receiver reuses its buffer after the call, which returns after the commit
	return &e, nil
}

// wrap marks a full disk or a busy database as api.ErrSinkFull (the sender retries).
func (in *Intake) wrap(err error) error {
	if errors.Is(err, ErrDiskFull) || errors.Is(err, ErrBusy) {
		return fmt.Errorf("%w: %w", api.ErrSinkFull, err)
	}
	return err
}

// AcceptBatch records verified deliveries together: evs[i] is raws[i] decoded (the caller
// decoded it to route it), and the valid ones are written in one transaction, one fsync. It
// returns once they are committed; errs[i] is delivery i's error (nil: committed, or a copy
// counted), with the same meaning as Accept's, and a failed commit fails every delivery that
// reached it (each comes again).
func (in *Intake) AcceptBatch(raws [][]byte, evs []*api.Event) (errs []error) {
	errs = make([]error, len(raws))
	keep := make([]*api.Event, 0, len(raws))
	idx := make([]int, 0, len(raws))
	for i, raw := range raws {
		var ev *api.Event
		if i < len(evs) {
			ev = evs[i]
		}
		e, err := in.check(raw, ev)
		if err != nil {
			errs[i] = err
			continue
		}
		keep, idx = append(keep, e), append(idx, i)
	}
	if len(keep) == 0 {
		return errs
	}
	if _, err := in.s.ApplyEvents(context.Background(), keep); err != nil {
		err = in.wrap(err)
		for _, i := range idx {
			errs[i] = err
		}
		return errs
	}
	in.mu.Lock()
	in.accepted += len(keep)
	in.mu.Unlock()
	return errs
}

// String names the intake's store; printing an Intake never walks its internals.
func (in *Intake) String() string { return "state.Intake(" + in.s.String() + ")" }

// Accepted is how many events Accept recorded.
func (in *Intake) Accepted() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.accepted
}

// Close refuses further events and releases the receiver lock; the store stays open.
func (in *Intake) Close() error {
	if in.closed.Swap(true) || in.lock == nil {
		return nil
	}
	return in.lock.Close()
}
