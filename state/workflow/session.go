package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// DefaultDescription is the description a new charge starts with when the session names none;
// the service refuses a charge without one.
const DefaultDescription = "Venda"

// Session is everything the merchant's screens and commands need for one profile: the
// service's client, the local store, the webhook receiver and the profile's preferences.
type Session struct {
	Profile  string
	Env      api.Environment
	Demo     bool
	ReadOnly bool
	Client   *api.Client
	Store    *state.Store
	// Simulator acts as a payer when the service is the sandbox emulator; nil otherwise.
	Simulator PaymentSimulator
	// Intake is where this session's webhook receiver records events (into Store); nil when the
	// profile has no receiver or another process receives its webhooks.
	Intake *state.Intake
	// ReceiverElsewhere reports that the profile's webhooks are received by another pixdash
	// (its events reach this session through the shared database).
	ReceiverElsewhere bool
	// Hub is the session's link to the shop's hub (AttachHub); nil without one.
	Hub *HubCounter
	// ReceiverStats reports the receiver's counters; nil without a receiver.
	ReceiverStats func() api.ReceiverStats
	// TakeOver, set while ReceiverElsewhere or ReceiverDown, tries to become the profile's webhook receiver (the
	// other process quit): it starts the receiver and returns what it receives with, or an error
	// matching state.ErrReceiverBusy while the other one still receives. It may block (file
	// lock, listen); call it from a goroutine or command, every few seconds.
	TakeOver func(ctx context.Context) (*Receiving, error)
	// ReceiverDown is the listen address of a profile's receiver that could not start because
	// another program holds it ("" otherwise): the session runs without a receiver and TakeOver
	// tries again.
	ReceiverDown string
	// WebhookExposed is the receiver's listen address when it listens beyond loopback over plain
	// HTTP ("" otherwise).
	WebhookExposed string
	// Wallet is the profile's default wallet ("" or "principal" for the main account).
	Wallet    string
	PixFee    api.Money
	HasPixFee bool
	// Notice is shown once at start (e.g. another window receives the webhooks).
	Notice string
	// WebhookURL is where the receiver listens ("" without one).
	WebhookURL string
	// WebhookTolerance is how far a delivery's timestamp may be from the clock before the
	// receiver refuses it as stale (0: api.DefaultWebhookTolerance).
	WebhookTolerance time.Duration
	// DefaultDescription is the description a new charge starts with (DefaultDescription when
	// blank).
	DefaultDescription string
	// Imported is what opening the store imported from an older pixdash's journal; nil when nothing.
	Imported *state.ImportReport
	// EventRetentionDays removes events older than this many days when the session opens (0 keeps all).
	EventRetentionDays int
	// OnPaid is the profile's on_paid command (RunOnPaid); nil for none.
	OnPaid *OnPaidCommand
	// PrintCommand is the profile's print_command: the argv the day's close is piped to (no
	// shell); nil for none.
	PrintCommand []string
	// Close releases the session's resources (receiver, store, the client's token renewal,
	// emulator); may be nil.
	Close func()

	// balanceSlots bounds the session's balance reads in flight (see Session.Balance).
	balanceOnce  sync.Once
	balanceSlots chan struct{}
}

// Description is the description new charges start with.
func (s *Session) Description() string {
	if s == nil || strings.TrimSpace(s.DefaultDescription) == "" {
		return DefaultDescription
	}
	return s.DefaultDescription
}

// Tolerance is the receiver's timestamp window.
func (s *Session) Tolerance() time.Duration {
	if s == nil || s.WebhookTolerance <= 0 {
		return api.DefaultWebhookTolerance
	}
	return s.WebhookTolerance
}

// Params is what Open builds a session from: a profile of the config or demo mode.
type Params struct {
	Profile  string
	Env      api.Environment
	Demo     bool
	ReadOnly bool
	// Wallet is the default wallet ("" for the main account).
	Wallet             string
	PixFee             api.Money
	HasPixFee          bool
	DefaultDescription string
	EventRetentionDays int
	// OnPaid is the profile's on_paid command; nil for none. Open copies it and fills in the
	// profile's name and the logger.
	OnPaid *OnPaidCommand
	// PrintCommand is the profile's print_command (see Session.PrintCommand).
	PrintCommand []string
	// Client is the service's client, built with the profile's credential.
	Client *api.Client
	// StateDir is the directory of the profile's database; "" keeps the state in memory.
	StateDir     string
	StoreOptions []state.Option
	// Simulator acts as a payer on the sandbox emulator; nil for any other service.
	Simulator PaymentSimulator
	// Webhook is the profile's webhook receiver; nil for none.
	Webhook *Webhook
	// Track lists charges to read from the service and track at open (the emulator's seeded
	// history in demo mode).
	Track []TrackRef
	// Logger receives the receiver's log (discarded when nil).
	Logger *slog.Logger
	// Release runs when the session closes, after its receiver and store (e.g. it stops the
	// in-process emulator).
	Release func()
}

// busyNotice is the session's notice while another process receives the profile's webhooks.
const busyNotice = "Another pixdash receives this profile's webhooks; this window shows the events it saves, and takes over when that one quits."

// Open builds a session: it opens the store (p.StateDir, or memory), starts the webhook
// receiver (or, while another process receives the profile's webhooks, arranges to take it
// over later) and tracks p.Track. ctx bounds the setup only: the session lives until its
// Close, which stops the receiver (port and receiver lock released) before the store closes,
// then runs p.Release. On failure everything started is released, p.Release included.
func Open(ctx context.Context, p Params) (*Session, error) {
	if p.Client == nil {
		if p.Release != nil {
			p.Release()
		}
		return nil, errors.New("workflow: a session needs a client")
	}
	logger := p.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	storeOpts := append([]state.Option{state.WithLogger(logger)}, p.StoreOptions...)
	var store *state.Store
	if p.StateDir == "" {
		store = state.OpenMemory(storeOpts...)
	} else {
		var err error
		if store, err = state.Open(ctx, p.StateDir, p.Profile, storeOpts...); err != nil {
			if p.Release != nil {
				p.Release()
			}
			return nil, err
		}
	}
	s := &Session{
		Profile: p.Profile, Env: p.Env, Demo: p.Demo, ReadOnly: p.ReadOnly,
		Client: p.Client, Store: store, Simulator: p.Simulator,
		Wallet: p.Wallet, PixFee: p.PixFee, HasPixFee: p.HasPixFee,
		DefaultDescription: p.DefaultDescription, EventRetentionDays: p.EventRetentionDays,
		Imported: store.Imported(), PrintCommand: slices.Clone(p.PrintCommand),
	}
	if p.OnPaid != nil && len(p.OnPaid.Argv) > 0 {
		c := *p.OnPaid
		c.Argv = append([]string(nil), c.Argv...)
		c.Profile, c.Logger = p.Profile, logger
		s.OnPaid = &c
	}
	var recv *receiver
	var once sync.Once
	s.Close = func() {
		once.Do(func() {
			if recv != nil {
				recv.close()
			}
			_ = store.Close()
			p.Client.Close() // no more token renewals in the background
			if p.Release != nil {
				p.Release()
			}
		})
	}
	fail := func(err error) (*Session, error) {
		s.Close()
		return nil, err
	}
	if w := p.Webhook; w != nil {
		s.WebhookTolerance = w.Tolerance
		if w.Exposed {
			s.WebhookExposed = w.Listen
		}
		recv = newReceiver(store, p.Profile, w, logger)
		recv.env = p.Env
		r, err := recv.start(ctx)
		switch {
		case errors.Is(err, state.ErrReceiverBusy):
			// Its events reach this session through the shared database; when it quits, this
			// session can take the receiver over.
			s.Notice = busyNotice
			s.ReceiverElsewhere = true
			s.TakeOver = recv.start
		case errors.Is(err, ErrWebhookAddrInUse):
			// Another program holds the port: the dashboard still opens (as a second window
			// does), says so, and tries the port again later.
			logger.Warn("webhook receiver not started", "profile", p.Profile, "err", err)
			s.ReceiverDown = w.Listen
			s.TakeOver = recv.start
		case err != nil:
			return fail(err)
		default:
			s.Intake, s.ReceiverStats, s.WebhookURL, s.Notice = r.Intake, r.Stats, r.URL, r.Notice
		}
	}
	if err := TrackCharges(ctx, p.Client, store, p.Track); err != nil {
		return fail(fmt.Errorf("track the service's charges: %w", err))
	}
	return s, nil
}
