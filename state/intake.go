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
	if in.closed.Load() {
		return ErrIntakeClosed
	}
	if ev == nil || ev.EventID == "" {
		return fmt.Errorf("%w: no eventId", api.ErrEventInvalid)
	}
	if len(raw) > MaxEventBytes {
		return fmt.Errorf("%w: larger than %d bytes", api.ErrEventInvalid, MaxEventBytes)
	}
	e := *ev
	e.Raw = raw // the receiver reuses its buffer after the call, which returns after the commit
	// The store's writer already commits together the writes that wait for it: the deliveries
	// that arrive while a commit is under way share the next one, with no other hand-off.
	_, err := in.s.ApplyEvents(context.Background(), []*api.Event{&e})
	switch {
	case errors.Is(err, ErrDiskFull), errors.Is(err, ErrBusy):
		return fmt.Errorf("%w: %w", api.ErrSinkFull, err)
	case err != nil:
		return err
	}
	in.mu.Lock()
	in.accepted++
	in.mu.Unlock()
	return nil
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
