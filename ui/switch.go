package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state/workflow"
)

// profileOpenTimeout bounds resolving secrets and starting a profile's receiver.
const profileOpenTimeout = 30 * time.Second

type switchProfileMsg struct{ name string }

type profileOpenedMsg struct {
	name string
	sess *workflow.Session
	err  error
}

// openProfilePicker lists the configured profiles with their environment.
func (m *Model) openProfilePicker() tea.Cmd {
	tr := m.c.tr
	if m.opts.OpenProfile == nil || len(m.opts.Profiles) == 0 {
		m.setOwnedStatus(ownerAnswer, tr.T("No other profiles: add [profiles.NAME] tables to config.toml (pixdash config init writes an example)."), statusWarn)
		return nil
	}
	var items []pickerItem
	for _, p := range m.opts.Profiles {
		note := tr.T("sandbox")
		if p.Env == api.Production {
			note = tr.T("PRODUCTION")
		}
		items = append(items, pickerItem{label: p.Name, value: p.Name, note: note, current: p.Name == m.app.sess.Profile})
	}
	p := newPicker(m.c, tr.T("Switch profile"), items, func(v string) tea.Msg { return switchProfileMsg{name: v} })
	p.kind = pickerProfiles
	return m.push(p)
}

// switchProfile asks for confirmation before entering production, then opens the profile.
func (m *Model) switchProfile(name string) tea.Cmd {
	var closing tea.Cmd
	if p, ok := m.openPicker(); ok {
		closing = m.closeOverlay(p)
	}
	if name == m.app.sess.Profile {
		return closing
	}
	// The profile opens (and says so) only once it is confirmed.
	open := func() tea.Msg { return openProfileMsg{name: name} }
	for _, p := range m.opts.Profiles {
		if p.Name == name && p.Env == api.Production {
			return tea.Batch(closing, m.push(newConfirm(m.c, m.c.tr.F("Switch to the PRODUCTION profile %s? (y/N)", name), open)))
		}
	}
	return tea.Batch(closing, open)
}

// openProfileMsg opens a profile the merchant chose (and confirmed, for production).
type openProfileMsg struct{ name string }

// openProfileCmd opens a profile in a command and says so.
func (m *Model) openProfileCmd(name string) tea.Cmd {
	m.setStatus(m.c.tr.F("Opening profile %s…", name), statusInfo)
	open := m.opts.OpenProfile
	// Not the current session's context: the new session outlives the one it replaces.
	return withTimeout(profileOpenTimeout, func(ctx context.Context) tea.Msg {
		s, err := open(ctx, name)
		return profileOpenedMsg{name: name, sess: s, err: err}
	})
}

// onProfileOpened replaces the session: new generation, empty screen data, the new profile's state.
func (m *Model) onProfileOpened(msg profileOpenedMsg) tea.Cmd {
	tr := m.c.tr
	if msg.err != nil {
		m.setStatus(tr.F("Could not open profile %s: %v", msg.name, msg.err), statusError)
		return nil
	}
	old, oldEng := m.app.sess, m.eng
	m.closeSession()
	m.setSession(msg.sess)
	// The old engine stops, then the old session closes, in a command: Update waits for neither.
	closeOld := func() tea.Msg {
		if oldEng != nil {
			oldEng.Close()
		}
		if old != nil && old.Close != nil {
			old.Close()
		}
		return nil
	}
	env := tr.T("sandbox")
	kind := statusOK
	if msg.sess.Env == api.Production {
		env, kind = tr.T("PRODUCTION"), statusWarn
	}
	m.setStatus(tr.F("Switched to profile %s (%s).", msg.name, env), kind)
	return tea.Batch(closeOld, m.authCmd(), m.waitEngine(), m.waitChange(), m.activePane().focus(), m.pruneEvents())
}

// closeSession cancels the current session's context: the commands still running for it
// (calls to the service, store reads, the event and change feeds) stop.
func (m *Model) closeSession() {
	if m.app.cancel != nil {
		m.app.cancel()
	}
}

// openWalletPicker is the quick wallet switcher: principal, the sub-accounts and the configured one.
func (m *Model) openWalletPicker() tea.Cmd {
	wv := m.wallets()
	items, loaded := wv.pickerItems()
	p := newPicker(m.c, m.c.tr.T("Switch wallet"), items, func(v string) tea.Msg { return switchWalletMsg{wallet: v} })
	p.kind = pickerWallets
	cmd := m.push(p)
	if !loaded {
		p.loading = true
		return tea.Batch(cmd, wv.load())
	}
	return cmd
}

// wallets is the wallet view, which also feeds the quick picker.
func (m *Model) wallets() *walletsView { return m.panes[viewWallets].(*walletsView) }

// refreshPicker updates an open wallet picker after the wallet list changed.
func (m *Model) refreshPicker() {
	if p, ok := m.openPicker(); ok && p.kind == pickerWallets {
		items, loaded := m.wallets().pickerItems()
		p.setItems(items)
		p.loading = !loaded
		p.err = m.wallets().loadErr()
	}
}
