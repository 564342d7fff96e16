package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
)

// profileOpenTimeout bounds resolving secrets and starting a profile's receiver.
const profileOpenTimeout = 30 * time.Second

type switchProfileMsg struct{ name string }

type profileOpenedMsg struct {
	name string
	sess *Session
	err  error
}

// openProfilePicker lists the configured profiles with their environment.
func (m *Model) openProfilePicker() tea.Cmd {
	tr := m.c.tr
	if m.opts.OpenProfile == nil || len(m.opts.Profiles) == 0 {
		m.setStatus(tr.T("No other profiles: add [profiles.NAME] tables to config.toml (pixdash config init writes an example)."), statusWarn)
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
	m.picker = newPicker(m.c, tr.T("Switch profile"), items, func(v string) tea.Msg { return switchProfileMsg{name: v} })
	m.picker.kind = pickerProfiles
	return nil
}

// switchProfile asks for confirmation before entering production, then opens the profile.
func (m *Model) switchProfile(name string) tea.Cmd {
	m.picker = nil
	if name == m.app.sess.Profile {
		return nil
	}
	open := m.openProfileCmd(name)
	for _, p := range m.opts.Profiles {
		if p.Name == name && p.Env == api.Production {
			m.confirm = newConfirm(m.c, m.c.tr.F("Switch to the PRODUCTION profile %s? (y/N)", name), open)
			return nil
		}
	}
	return open
}

func (m *Model) openProfileCmd(name string) tea.Cmd {
	m.setStatus(m.c.tr.F("Opening profile %s…", name), statusInfo)
	open := m.opts.OpenProfile
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
	old := m.app.sess
	m.closeSession()
	m.setSession(msg.sess)
	if old != nil && old.Close != nil {
		go old.Close()
	}
	env := tr.T("sandbox")
	kind := statusOK
	if msg.sess.Env == api.Production {
		env, kind = tr.T("PRODUCTION"), statusWarn
	}
	m.setStatus(tr.F("Switched to profile %s (%s).", msg.name, env), kind)
	return tea.Batch(m.authCmd(), m.recoverSubmissions(), m.waitEvent(), m.confirmUnchecked(), m.waitChange(), m.activePane().activate(), m.pruneEvents())
}

// closeSession stops the commands that wait on the current session.
func (m *Model) closeSession() {
	if m.app.done != nil {
		close(m.app.done)
		m.app.done = nil
	}
}

// openWalletPicker is the quick wallet switcher: principal, the sub-accounts and the configured one.
func (m *Model) openWalletPicker() tea.Cmd {
	wv := m.wallets()
	items, loaded := wv.pickerItems()
	m.picker = newPicker(m.c, m.c.tr.T("Switch wallet"), items, func(v string) tea.Msg { return switchWalletMsg{wallet: v} })
	m.picker.kind = pickerWallets
	if !loaded {
		m.picker.loading = true
		return wv.load()
	}
	return nil
}

// wallets is the wallet view, which also feeds the quick picker.
func (m *Model) wallets() *walletsView { return m.panes[viewWallets].(*walletsView) }

// refreshPicker updates an open wallet picker after the wallet list changed.
func (m *Model) refreshPicker() {
	if m.picker != nil && m.picker.kind == pickerWallets {
		items, loaded := m.wallets().pickerItems()
		m.picker.setItems(items)
		m.picker.loading = !loaded
		m.picker.err = m.wallets().loadErr()
	}
}
