package ui

import "pixdash/ui/common"

// noteDamage reports, once per session, that the check the store ran at open found its
// database damaged: the figures read from it may be wrong until it is repaired. It reads an
// atomic only (no I/O).
func (m *Model) noteDamage() {
	s := m.app.Sess
	if s == nil || s.Store == nil || m.damageShown == m.app.Gen+1 {
		return
	}
	err := s.Store.Damage()
	if err == nil {
		return
	}
	m.damageShown = m.app.Gen + 1
	m.setStatus(m.c.Tr.F("damage.the_state_database_is_damaged_and", s.Profile, common.LocalError(m.c.Tr, err)), common.StatusError)
}

// withDamageWarning adds to the header, in red, that the session's database is damaged.
func (m *Model) withDamageWarning(left string) string {
	s := m.app.Sess
	if s == nil || s.Store == nil || s.Store.Damage() == nil {
		return left
	}
	st := m.c.St
	return left + st.Muted.Render(" │ ") + st.Err.Render("⚠ "+m.c.Tr.T("damage.database_damaged_pixdash_db_repair"))
}
