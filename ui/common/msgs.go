package common

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state/workflow"
)

// Timeouts for commands; no API call runs without one.
const (
	CallTimeout = 15 * time.Second
	// CreateTimeout bounds a charge creation (retries with the same key fit inside), and
	// inFlightMargin is how long after it the service may still act on a create it received
	// (a submission is abandoned only after that): the workflow's rules.
	CreateTimeout  = workflow.CreateTimeout
	InFlightMargin = workflow.InFlightMargin
	PersistTimout  = 5 * time.Second
)

// StatusKind colours the status line.
type StatusKind int

// The kinds of status message: informational, done, a warning, an error.
const (
	StatusInfo StatusKind = iota
	StatusOK
	StatusWarn
	StatusError
)

// StatusMsg puts a message on the status line; with an owner and no text it removes that
// owner's message (its cause is gone).
type StatusMsg struct {
	Text  string
	Kind  StatusKind
	Owner string
}

// TickMsg drives countdowns, token display and polling once a second.
type TickMsg time.Time

// Tick asks for the next second's tick.
func Tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return TickMsg(t) })
}

// Tag marks a command's reply with the session generation and wallet it was made for,
// so replies that arrive after a profile or wallet switch are dropped.
type Tag struct {
	Gen    uint64
	Wallet string
}

// WithTimeout runs fn inside a command with a context bounded by d and by the session the
// command was made for: replacing or closing that session cancels it. Every command that
// calls the service or reads the store is made this way.
func (a *AppState) WithTimeout(d time.Duration, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	life := a.Ctx
	if life == nil {
		life = context.Background()
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(life, d)
		defer cancel()
		return fn(ctx)
	}
}

// WithTimeout runs fn with a context bounded by d only, inside a command. It outlives a
// profile switch: commands made for a session use c.app.withTimeout instead.
func WithTimeout(d time.Duration, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return fn(ctx)
	}
}

// ScopeChangedMsg tells the views the scope went from the active wallet to all wallets or back.
type ScopeChangedMsg struct{}

// AnswerStatus puts a key's answer on the status line (see ownerAnswer).
func AnswerStatus(text string, kind StatusKind) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Kind: kind, Owner: OwnerAnswer} }
}

// Status owners: a message about something that ends (a payment awaited, a form's errors,
// interrupted charges) names it, and goes when it ends (clearStatus).
const (
	OwnerForm    = "form"
	OwnerRecover = "recover"
	// OwnerAnswer owns a key's answer about what is on screen ("only paid charges can be
	// refunded", "read-only profile"): it goes when the merchant moves on (another view, a form
	// or dialog opened or closed) and after statusLifetime, whatever its kind.
	OwnerAnswer = "answer"
)

// StatusOwner is an overlay whose status messages go when it closes (a form's complaints).
type StatusOwner interface {
	StatusOwner() string
}

// chargeOwner owns the messages about one charge (e.g. a simulated payment awaited).

// StatusLifetime is how long an OK or informational message stays; warnings and errors stay
const StatusLifetime = 8 * time.Second
