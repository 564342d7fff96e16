package hub

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
)

// DefaultPublishTimeout is how long the hub waits for JetStream's acknowledgement of an event
// before it answers the service 503 (the service delivers again).
const DefaultPublishTimeout = 5 * time.Second

// Publisher is the hub's webhook sink (an api.EventSink): it hands each verified delivery to
// the hub's own intake (committed to the hub's store), then publishes it to JetStream with its
// eventId as the message id, and returns only once JetStream acknowledged it stored. The
// receiver answers the service 200 only then: what the service was told is kept survives a
// SIGKILL of the hub. A failed publish answers 503 and the service delivers again; the copy is
// counted by the hub's store and published again, and dropped by the stream's duplicate window
// if the first attempt was stored after all.
type Publisher struct {
	js      jetstream.JetStream
	env     api.Environment
	next    api.EventSink
	timeout time.Duration

	published, duplicates, failed atomic.Uint64
}

// NewPublisher publishes env's events to js after next (the hub's intake; nil for none) kept
// them. env's stream must exist (EnsureStream).
func NewPublisher(js jetstream.JetStream, env api.Environment, next api.EventSink) (*Publisher, error) {
	if err := checkEnv(env); err != nil {
		return nil, err
	}
	return &Publisher{js: js, env: env, next: next, timeout: DefaultPublishTimeout}, nil
}

// Wrap returns a publisher like p whose deliveries go to next first: how a webhook receiver
// puts the hub after its intake.
func (p *Publisher) Wrap(next api.EventSink) api.EventSink { return wrapped{p, next} }

// wrapped is a publisher with another first sink; it shares the publisher's counters.
type wrapped struct {
	p    *Publisher
	next api.EventSink
}

func (w wrapped) Accept(raw []byte) error { return w.p.accept(w.next, raw) }

// Accept keeps raw (see api.EventSink): the hub's intake commits it, then JetStream stores it.
// An error wraps api.ErrSinkFull when the stream could not be reached: the receiver answers
// 503 and the service retries.
func (p *Publisher) Accept(raw []byte) error { return p.accept(p.next, raw) }

func (p *Publisher) accept(next api.EventSink, raw []byte) error {
	ev, err := api.DecodeEvent(raw)
	if err != nil {
		return err
	}
	if ev.Kind == KindChargeCreated { // the subject kind of the counters' announcements
		return fmt.Errorf("%w: event kind %q is reserved for the counters' announcements", api.ErrEventInvalid, ev.Kind)
	}
	if ev.Environment != "" && ev.Environment != p.env {
		return fmt.Errorf("%w: a %s event on the %s hub", api.ErrEventInvalid, ev.Environment, p.env)
	}
	if next != nil {
		if err := next.Accept(raw); err != nil {
			return err
		}
	}
	return p.Publish(context.Background(), ev.Wallet(), string(ev.Kind), ev.EventID, raw)
}

// Publish stores data under pix.<env>.<wallet>.<kind> with message id id and waits for
// JetStream's acknowledgement (at most the publish timeout). A copy of an id within the
// duplicate window is acknowledged and not stored again.
func (p *Publisher) Publish(ctx context.Context, wallet, kind, id string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	ack, err := p.js.Publish(ctx, Subject(p.env, wallet, kind), data,
		jetstream.WithMsgID(id), jetstream.WithExpectStream(StreamName(p.env)))
	if err != nil {
		p.failed.Add(1)
		return fmt.Errorf("%w: hub: publishing %s: %w", api.ErrSinkFull, id, err)
	}
	if ack.Duplicate {
		p.duplicates.Add(1)
	} else {
		p.published.Add(1)
	}
	return nil
}

// PublisherStats counts a publisher's work.
type PublisherStats struct {
	Published  uint64 // stored by JetStream
	Duplicates uint64 // acknowledged as copies of a message id within the duplicate window
	Failed     uint64 // not acknowledged (the service was answered 503)
}

// Stats reports the publisher's counters.
func (p *Publisher) Stats() PublisherStats {
	return PublisherStats{Published: p.published.Load(), Duplicates: p.duplicates.Load(), Failed: p.failed.Load()}
}
