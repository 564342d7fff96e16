package api

import (
	"errors"
	"fmt"
)

// EventSink takes the verified first deliveries of a Receiver before it answers 200.
type EventSink interface {
	// Accept keeps raw, the body of a verified first delivery, which is valid JSON and decodes
	// with DecodeEvent. raw is only valid during the call. A nil error is the acknowledgement:
	// the receiver answers 200 and the sender will not deliver the event again. An error wrapping
	// ErrSinkFull makes the receiver answer 503 (the sender retries later), one wrapping
	// ErrEventInvalid 400, any other 500.
	Accept(raw []byte) error
}

// ErrSinkFull reports an EventSink that cannot take more events now (its buffer or the disk is full).
var ErrSinkFull = errors.New("cannot take more events now, retry later")

// EventQueue is an in-memory EventSink that decodes each event and hands it on through a
// buffered channel; it refuses events (ErrSinkFull) while the channel is full.
type EventQueue struct{ ch chan *Event }

// NewEventQueue returns an EventQueue holding up to n events (at least 1).
func NewEventQueue(n int) *EventQueue { return &EventQueue{ch: make(chan *Event, max(n, 1))} }

// Accept decodes raw and queues the event without blocking.
func (q *EventQueue) Accept(raw []byte) error {
	ev, err := DecodeEvent(raw)
	if err != nil {
		return err
	}
	select {
	case q.ch <- ev:
		return nil
	default:
		return fmt.Errorf("event queue: %w", ErrSinkFull)
	}
}

// Events delivers the accepted events in order. It is never closed.
func (q *EventQueue) Events() <-chan *Event { return q.ch }
