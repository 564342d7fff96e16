package ui

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// Taking the receiver over: how often a window whose profile's webhooks another pixdash
// receives tries, and how long one try may take (the lock, then the listen while the other
// window's port is released).
const (
	takeOverEvery   = 2 * time.Second
	takeOverTimeout = 15 * time.Second
)

// takeOverState is the root's bookkeeping of the tries, for the session of generation gen.
type takeOverState struct {
	gen     uint64
	trying  bool
	next    time.Time // no try before
	lastErr string    // the last failure shown, so a repeated one is not shown again
}

// takeOverMsg is the outcome of one try.
type takeOverMsg struct {
	gen  uint64
	recv *workflow.Receiving
	err  error
}

// takeOverTick starts a try when the session does not receive its profile's webhooks because
// another window does, no try is under way and the last one is takeOverEvery old. It runs on
// the root's clock tick; the try itself (file lock, listen) runs in the returned command.
func (m *Model) takeOverTick(now time.Time) tea.Cmd {
	s := m.app.Sess
	if s == nil || (!s.ReceiverElsewhere && s.ReceiverDown == "") || s.TakeOver == nil || s.Intake != nil {
		return nil
	}
	if m.takeOver.gen != m.app.Gen {
		m.takeOver = takeOverState{gen: m.app.Gen, next: now.Add(takeOverEvery)}
	}
	if m.takeOver.trying || now.Before(m.takeOver.next) {
		return nil
	}
	m.takeOver.trying = true
	try, gen := s.TakeOver, m.app.Gen
	// A replaced or closed session stops its try.
	return m.app.WithTimeout(takeOverTimeout, func(ctx context.Context) tea.Msg {
		r, err := try(ctx)
		if err == nil && r == nil {
			err = errors.New("no receiver was started")
		}
		return takeOverMsg{gen: gen, recv: r, err: err}
	})
}

// onTakeOver applies a try's outcome: on success the session receives from now on (the events
// view says where); while the other window still receives nothing
// changes; another failure is shown once and tried again later.
func (m *Model) onTakeOver(msg takeOverMsg) tea.Cmd {
	if msg.gen != m.app.Gen || m.takeOver.gen != msg.gen {
		// The session was replaced meanwhile; closing it released what the try took.
		return nil
	}
	m.takeOver.trying = false
	m.takeOver.next = m.c.Now().Add(takeOverEvery)
	tr := m.c.Tr
	switch {
	case msg.err == nil:
		s := m.app.Sess
		s.Intake, s.ReceiverStats, s.WebhookURL = msg.recv.Intake, msg.recv.Stats, msg.recv.URL
		s.ReceiverElsewhere, s.ReceiverDown = false, ""
		m.takeOver.lastErr = ""
		if msg.recv.Notice != "" {
			m.setStatus(tr.T("receiver.this_window_now_receives_the_profile")+". "+msg.recv.Notice, common.StatusWarn)
		} else {
			m.setStatus(tr.T("receiver.this_window_now_receives_the_profile"), common.StatusOK)
		}
		return nil
	case errors.Is(msg.err, state.ErrReceiverBusy):
		return nil
	case errors.Is(msg.err, workflow.ErrWebhookAddrInUse) && m.app.Sess.ReceiverDown != "":
		// Still held by the other program: the status and the events view already say so.
		return nil
	}
	if text := msg.err.Error(); text != m.takeOver.lastErr {
		m.takeOver.lastErr = text
		m.setStatus(tr.F("receiver.could_not_take_over_the_webhook", msg.err), common.StatusWarn)
	}
	return nil
}

// withWebhookWarning adds to the header's left part, in red, a warning that the profile's
// receiver listens beyond loopback over plain HTTP: in full when it fits, shorter when not,
// and in place of right (the token) when even the shortest does not fit.
func (m *Model) withWebhookWarning(left, right string, w int) (string, string, int) {
	addr := m.app.Sess.WebhookExposed
	if addr == "" {
		return left, right, w
	}
	st, tr := m.c.St, m.c.Tr
	sep := st.Muted.Render(" │ ")
	room := w - lipgloss.Width(left) - lipgloss.Width(sep) - lipgloss.Width(right) - 1
	texts := []string{
		tr.F("receiver.webhooks_on_without_tls", addr),
		tr.T("receiver.webhooks_without_tls"),
		tr.T("receiver.no_tls"),
	}
	for _, t := range texts {
		if warn := st.Err.Render("⚠ " + t); lipgloss.Width(warn) <= room {
			return left + sep + warn, right, w
		}
	}
	return left, st.Err.Render("⚠ " + texts[len(texts)-1]), w
}

// receiverDownNotice says, at start, that the profile's receiver could not listen because
// another program holds its address ("" when it runs or the profile has none).
func receiverDownNotice(tr common.Catalog, s *workflow.Session) string {
	if s == nil || s.ReceiverDown == "" {
		return ""
	}
	return tr.F("receiver.the_webhook_port_is_in_use", s.ReceiverDown)
}
