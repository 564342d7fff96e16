package ui

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state/hub"
	"pixdash/ui/common"
)

// linkStatus is what the header's light says about the service.
type linkStatus int

const (
	linkUnknown linkStatus = iota // nothing answered yet
	linkOnline                    // the last call got an answer from the service
	linkOffline                   // the last call could not reach the service
	linkRefused                   // the service refused the credentials
)

// linkState is the header's view of the link to the service: the last real outcome of a call
// (the token's renewals included), never a guess from idleness.
type linkState struct {
	status  linkStatus
	at      time.Time // when status was learned
	lastOK  time.Time // when the service last answered
	lastErr string
	// token is the access token's state as last sampled (the header draws it; View reads no lock).
	token api.TokenState
	// probing is set while a probe (an authentication) is in flight.
	probing   bool
	lastProbe time.Time
	// hub is the hub link's state as last sampled (nil: the profile has no hub), and
	// hubSampling is set while a sample is in flight.
	hub         *hub.Status
	hubSampling bool
}

// hubLink is the session's link to the shop's hub, as the header reads it.
type hubLink interface {
	Status(ctx context.Context) hub.Status
}

// hubSampledMsg carries the hub link's state read outside Update.
type hubSampledMsg struct {
	gen uint64
	st  hub.Status
}

// hubSampleTimeout bounds one reading of the hub link's state.
const hubSampleTimeout = 2 * time.Second

// Probing pace: how often an offline (or refused) dashboard checks whether the service is back.
const (
	probeOfflineEvery = 5 * time.Second
	probeRefusedEvery = 30 * time.Second
)

// note records a call's outcome at now. An answer from the service (even a refusal of the
// request) proves the link; a refusal of the credentials is its own state; anything else
// (no answer) is offline.
func (l *linkState) note(err error, now time.Time) {
	l.at = now
	if err == nil {
		l.status, l.lastOK, l.lastErr = linkOnline, now, ""
		return
	}
	if errors.Is(err, context.Canceled) {
		return // the dashboard gave up on the call (profile switch): no news of the link
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		l.lastOK = now
		if credentialsRefused(ae) {
			l.status, l.lastErr = linkRefused, err.Error()
			return
		}
		l.status, l.lastErr = linkOnline, ""
		return
	}
	if unreachable(err) {
		l.status, l.lastErr = linkOffline, err.Error()
	}
	// Anything else (a local database error, a value refused before sending) says nothing
	// about the service.
}

// unreachable reports whether err is a failure to get an answer from the service: a network
// error or a timeout.
func unreachable(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded)
}

// serviceReply is a view's reply to a call to the service; the root notes its outcome on the
// header's light.
type serviceReply interface {
	ServiceErr() error
}

// credentialsRefused reports whether the service refused the client's credentials: 401, from
// the token exchange or from a call that stayed unauthorized with a new token.
func credentialsRefused(ae *api.Error) bool { return ae.HTTPStatus == http.StatusUnauthorized }

// sample takes the token state read by a command: a renewal's outcome is a real outcome too.
func (l *linkState) sample(ts api.TokenState, now time.Time) {
	prev := l.token
	l.token = ts
	switch {
	case ts.Rejected && ts.FailedAt.After(l.at):
		l.status, l.at, l.lastErr = linkRefused, ts.FailedAt, ts.LastError.Error()
	case ts.LastError != nil && !ts.Rejected && ts.FailedAt.After(l.at):
		l.status, l.at, l.lastErr = linkOffline, ts.FailedAt, ts.LastError.Error()
	case ts.Cached && ts.LastError == nil && ts.Expiry.After(prev.Expiry) && prev.Cached:
		// A renewal succeeded since the last sample: the service answered.
		l.status, l.at, l.lastOK, l.lastErr = linkOnline, now, now, ""
	}
}

// linkSampledMsg carries the token state read outside Update.
type linkSampledMsg struct {
	gen   uint64
	token api.TokenState
}

// probedMsg is a probe's outcome.
type probedMsg struct {
	gen uint64
	err error
}

// onLinkTick samples the token state and, while the service is unreachable or refuses the
// credentials, probes it now and then so the light turns green as soon as it is back.
func (m *Model) onLinkTick(now time.Time) tea.Cmd {
	eng, gen := m.eng, m.app.Gen
	cmds := []tea.Cmd{func() tea.Msg { return linkSampledMsg{gen: gen, token: eng.TokenState()} }}
	if h := m.hubLink(); h != nil && !m.link.hubSampling {
		m.link.hubSampling = true
		cmds = append(cmds, m.app.WithTimeout(hubSampleTimeout, func(ctx context.Context) tea.Msg {
			return hubSampledMsg{gen: gen, st: h.Status(ctx)}
		}))
	}
	every := time.Duration(0)
	switch m.link.status {
	case linkOffline:
		every = probeOfflineEvery
	case linkRefused:
		every = probeRefusedEvery
	}
	if every > 0 && !m.link.probing && now.Sub(m.link.lastProbe) >= every && now.Sub(m.link.at) >= every {
		m.link.probing, m.link.lastProbe = true, now
		cmds = append(cmds, m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
			return probedMsg{gen: gen, err: eng.Authenticate(ctx)}
		}))
	}
	return tea.Batch(cmds...)
}

// updateLink handles the link's messages; ok is false for others.
func (m *Model) updateLink(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case linkSampledMsg:
		if msg.gen == m.app.Gen {
			m.link.sample(msg.token, m.c.Now())
		}
		return nil, true
	case hubSampledMsg:
		if msg.gen == m.app.Gen {
			st := msg.st
			m.link.hub, m.link.hubSampling = &st, false
		}
		return nil, true
	case probedMsg:
		if msg.gen == m.app.Gen {
			m.link.probing = false
			m.link.note(msg.err, m.c.Now())
		}
		return nil, true
	}
	return nil, false
}

// tokenView is the token's remaining life as last sampled, in whole minutes.
func (m *Model) tokenView(now time.Time) string {
	st, tr := m.c.St, m.c.Tr
	ts := m.link.token
	if !ts.Cached {
		return st.Muted.Render(tr.T("link.token"))
	}
	left := ts.Expiry.Sub(now)
	if left <= 0 {
		return st.Warn.Render(tr.T("link.token_expired"))
	}
	// Whole minutes: the header changes once a minute, not every second, so an idle dashboard
	// writes next to nothing to the terminal (a renewal 30 s before expiry keeps it above 0).
	if left < time.Minute {
		return st.Label.Render(tr.T("link.token_2")) + st.Value.Render(tr.T("link.1_min"))
	}
	return st.Label.Render(tr.T("link.token_2")) + st.Value.Render(tr.F("link.min", int(left/time.Minute)))
}

// connView is the light: the last real outcome and how long ago the service last answered.
func (m *Model) connView(now time.Time) string {
	st, tr := m.c.St, m.c.Tr
	switch m.link.status {
	case linkOnline:
		s := st.OK.Render("● " + tr.T("link.online"))
		if age := now.Sub(m.link.lastOK); age >= time.Minute {
			s += st.Muted.Render(" · " + tr.F("link.answered_ago", common.HumanAge(age)))
		}
		return s
	case linkOffline:
		return st.Err.Render("● "+tr.T("link.offline")) + st.Muted.Render(" · "+tr.T("link.retrying"))
	case linkRefused:
		return st.Err.Render("● " + tr.T("link.credentials_refused"))
	}
	return st.Muted.Render("○ " + tr.T("link.connecting"))
}

// hubLink is the session's hub counter, or nil when the profile has none.
func (m *Model) hubLink() hubLink {
	if m.app.Sess == nil || m.app.Sess.Hub == nil {
		return nil
	}
	return m.app.Sess.Hub
}

// hubView is the hub link as last sampled: connected (with the events still waiting),
// reconnecting, or stopped; "" without a hub.
func (m *Model) hubView() string {
	h := m.link.hub
	if h == nil {
		return ""
	}
	st, tr := m.c.St, m.c.Tr
	switch h.State {
	case hub.StateConnected:
		if h.Lag > 0 {
			return st.Warn.Render("⇄ " + tr.F("link.hub_lag", h.Lag))
		}
		return st.OK.Render("⇄ " + tr.T("link.hub"))
	case hub.StateStopped:
		return st.Err.Render("⇄ " + tr.T("link.hub_stopped"))
	}
	return st.Warn.Render("⇄ " + tr.T("link.hub_reconnecting"))
}
