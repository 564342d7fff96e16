package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Timeouts for commands; no API call runs without one.
const (
	callTimeout   = 15 * time.Second
	createTimeout = 45 * time.Second // retries with the same key fit inside
	// inFlightMargin is how long after the last attempt's deadline the service may still act
	// on a create it received (a submission is abandoned only after that).
	inFlightMargin = 2 * time.Minute
	persistTimout  = 5 * time.Second
)

// statusKind colours the status line.
type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusWarn
	statusError
)

// statusMsg puts a message on the status line.
type statusMsg struct {
	text string
	kind statusKind
}

// tickMsg drives countdowns, token display and polling once a second.
type tickMsg time.Time

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// tag marks a command's reply with the session generation and wallet it was made for,
// so replies that arrive after a profile or wallet switch are dropped.
type tag struct {
	gen    uint64
	wallet string
}

// withTimeout runs fn with a bounded context inside a command.
func withTimeout(d time.Duration, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return fn(ctx)
	}
}
