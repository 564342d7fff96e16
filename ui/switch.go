package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/wallets"
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
	tr := m.c.Tr
	if m.opts.OpenProfile == nil || len(m.opts.Profiles) == 0 {
		m.setOwnedStatus(common.OwnerAnswer, tr.T("switch.no_other_profiles_add_profiles_name"), common.StatusWarn)
		return nil
	}
	var items []common.PickerItem
	for _, p := range m.opts.Profiles {
		note := tr.T("switch.sandbox")
		if p.Env == api.Production {
			note = tr.T("switch.production_caps")
		}
		items = append(items, common.PickerItem{Label: p.Name, Value: p.Name, Note: note, Current: p.Name == m.app.Sess.Profile})
	}
	p := common.NewPicker(m.c, tr.T("switch.switch_profile"), items, func(v string) tea.Msg { return switchProfileMsg{name: v} })
	p.Kind = common.PickerProfiles
	return m.push(p)
}

// switchProfile asks for confirmation before entering production, then opens the profile.
func (m *Model) switchProfile(name string) tea.Cmd {
	var closing tea.Cmd
	if p, ok := m.openPicker(); ok {
		closing = m.closeOverlay(p)
	}
	if name == m.app.Sess.Profile {
		return closing
	}
	// The profile opens (and says so) only once it is confirmed.
	open := func() tea.Msg { return openProfileMsg{name: name} }
	for _, p := range m.opts.Profiles {
		if p.Name == name && p.Env == api.Production {
			return tea.Batch(closing, m.push(common.NewConfirm(m.c, m.c.Tr.F("switch.switch_to_the_production_profile_y", name), open)))
		}
	}
	return tea.Batch(closing, open)
}

// openProfileMsg opens a profile the merchant chose (and confirmed, for production).
type openProfileMsg struct{ name string }

// openProfileCmd opens a profile in a command and says so.
func (m *Model) openProfileCmd(name string) tea.Cmd {
	m.setStatus(m.c.Tr.F("switch.opening_profile", name), common.StatusInfo)
	open := m.opts.OpenProfile
	// Not the current session's context: the new session outlives the one it replaces.
	return common.WithTimeout(profileOpenTimeout, func(ctx context.Context) tea.Msg {
		s, err := open(ctx, name)
		return profileOpenedMsg{name: name, sess: s, err: err}
	})
}

// onProfileOpened replaces the session: new generation, empty screen data, the new profile's state.
func (m *Model) onProfileOpened(msg profileOpenedMsg) tea.Cmd {
	tr := m.c.Tr
	if msg.err != nil {
		m.setStatus(tr.F("switch.could_not_open_profile", msg.name, msg.err), common.StatusError)
		return nil
	}
	old, oldEng := m.app.Sess, m.eng
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
	env := tr.T("switch.sandbox")
	kind := common.StatusOK
	if msg.sess.Env == api.Production {
		env, kind = tr.T("switch.production_caps"), common.StatusWarn
	}
	m.setStatus(tr.F("switch.switched_to_profile", msg.name, env), kind)
	return tea.Batch(closeOld, m.authCmd(), m.waitEngine(), m.waitChange(), m.focusActive(), m.pruneEvents())
}

// closeSession cancels the current session's context: the commands still running for it
// (calls to the service, store reads, the event and change feeds) stop.
func (m *Model) closeSession() {
	if m.app.Cancel != nil {
		m.app.Cancel()
	}
}

// openWalletPicker is the quick wallet switcher: principal, the sub-accounts and the configured one.
func (m *Model) openWalletPicker() tea.Cmd {
	wv := m.wallets()
	items, loaded := wv.PickerItems()
	p := common.NewPicker(m.c, m.c.Tr.T("switch.switch_wallet"), items, func(v string) tea.Msg { return common.SwitchWalletMsg{Wallet: v} })
	p.Kind = common.PickerWallets
	cmd := m.push(p)
	if !loaded {
		p.Loading = true
		return tea.Batch(cmd, m.addressTo(wv, wv.Load()))
	}
	return cmd
}

// wallets is the wallet view, which also feeds the quick picker.
func (m *Model) wallets() *wallets.View { return m.panes[viewWallets].(*wallets.View) }

// refreshPicker updates an open wallet picker after the wallet list changed.
func (m *Model) refreshPicker() {
	if p, ok := m.openPicker(); ok && p.Kind == common.PickerWallets {
		items, loaded := m.wallets().PickerItems()
		p.SetItems(items)
		p.Loading = !loaded
		p.Err = m.wallets().LoadErr()
	}
}
