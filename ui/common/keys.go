package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap holds every binding; views pick the ones they show in help.
type KeyMap struct {
	Quit, ForceQuit, Help, Back              key.Binding
	View1, View2, View3, View4, View5, View6 key.Binding
	Up, Down, PageUp, PageDown, Top, Bottom  key.Binding
	Enter, Filter, StatusFilter, Refresh     key.Binding
	New, QR, Inspect, Wallets, Profiles      key.Binding
	Copy, SimulatePay, SimulateCNPJ, Expire  key.Binding
	Reveal, Submit, NextField, PrevField     key.Binding
	Split, AddLeg, RemoveLeg, MoveUp, MoveDn key.Binding
	CreateSub, KindFilter, WalletFilter      key.Binding
	Yes, No                                  key.Binding
	PrevLeg, NextLeg, PickWallet             key.Binding
	Lookup, OpenTx                           key.Binding
	Refund                                   key.Binding
	Export                                   key.Binding
	Search                                   key.Binding
	Withdraw                                 key.Binding
	Period, PrevPeriod, NextPeriod           key.Binding
	Scope, Bars, CloseDay                    key.Binding
}

// NewKeyMap makes the key map.
func NewKeyMap(tr Catalog) KeyMap {
	h := func(k, desc string) key.BindingOpt { return key.WithHelp(k, tr.T(desc)) }
	return KeyMap{
		Quit:         key.NewBinding(key.WithKeys("q"), h("q", "keys.quit")),
		ForceQuit:    key.NewBinding(key.WithKeys("ctrl+c"), h("ctrl+c", "keys.quit")),
		Help:         key.NewBinding(key.WithKeys("?"), h("?", "keys.help")),
		Back:         key.NewBinding(key.WithKeys("esc"), h("esc", "keys.back")),
		View1:        key.NewBinding(key.WithKeys("1"), h("1", "keys.charges")),
		View2:        key.NewBinding(key.WithKeys("2"), h("2", "keys.inspector")),
		View3:        key.NewBinding(key.WithKeys("3"), h("3", "keys.wallets")),
		View4:        key.NewBinding(key.WithKeys("4"), h("4", "keys.blocks")),
		View5:        key.NewBinding(key.WithKeys("5"), h("5", "keys.events")),
		View6:        key.NewBinding(key.WithKeys("6"), h("6", "keys.sales")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), h("↑/k", "keys.up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), h("↓/j", "keys.down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+u"), h("pgup", "keys.page_up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), h("pgdn", "keys.page_down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), h("g", "keys.top")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), h("G", "keys.bottom")),
		Enter:        key.NewBinding(key.WithKeys("enter"), h("enter", "keys.open")),
		Filter:       key.NewBinding(key.WithKeys("/"), h("/", "keys.filter")),
		StatusFilter: key.NewBinding(key.WithKeys("f"), h("f", "keys.status")),
		Refresh:      key.NewBinding(key.WithKeys("r"), h("r", "keys.refresh")),
		New:          key.NewBinding(key.WithKeys("n"), h("n", "keys.new")),
		QR:           key.NewBinding(key.WithKeys("Q"), h("Q", "keys.show_qr")),
		Inspect:      key.NewBinding(key.WithKeys("i"), h("i", "keys.inspect")),
		Wallets:      key.NewBinding(key.WithKeys("w"), h("w", "keys.wallet")),
		Profiles:     key.NewBinding(key.WithKeys("P"), h("P", "keys.profile")),
		Copy:         key.NewBinding(key.WithKeys("c"), h("c", "keys.copy_code")),
		SimulatePay:  key.NewBinding(key.WithKeys("$"), h("$", "keys.simulate_payment")),
		SimulateCNPJ: key.NewBinding(key.WithKeys("%"), h("%", "keys.simulate_cnpj_payer")),
		Expire:       key.NewBinding(key.WithKeys("x"), h("x", "keys.expire_now")),
		Reveal:       key.NewBinding(key.WithKeys("v"), h("v", "keys.reveal_document")),
		Submit:       key.NewBinding(key.WithKeys("ctrl+s"), h("ctrl+s", "keys.submit")),
		NextField:    key.NewBinding(key.WithKeys("tab"), h("tab", "keys.next")),
		PrevField:    key.NewBinding(key.WithKeys("shift+tab"), h("shift+tab", "keys.previous")),
		Split:        key.NewBinding(key.WithKeys("ctrl+p"), h("ctrl+p", "keys.split")),
		AddLeg:       key.NewBinding(key.WithKeys("ctrl+n"), h("ctrl+n", "keys.add_leg")),
		RemoveLeg:    key.NewBinding(key.WithKeys("ctrl+x"), h("ctrl+x", "keys.remove_leg")),
		MoveUp:       key.NewBinding(key.WithKeys("alt+up", "ctrl+k"), h("ctrl+k", "keys.move_leg_up")),
		MoveDn:       key.NewBinding(key.WithKeys("alt+down", "ctrl+j"), h("ctrl+j", "keys.move_leg_down")),
		CreateSub:    key.NewBinding(key.WithKeys("c"), h("c", "keys.create_sub_account")),
		KindFilter:   key.NewBinding(key.WithKeys("t"), h("t", "keys.kind_filter")),
		WalletFilter: key.NewBinding(key.WithKeys("W"), h("W", "keys.wallet_filter")),
		Yes:          yesKey(tr),
		No:           key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), h("n", "keys.no")),
		PrevLeg:      key.NewBinding(key.WithKeys("up"), h("↑", "keys.previous_leg")),
		NextLeg:      key.NewBinding(key.WithKeys("down"), h("↓", "keys.next_leg")),
		PickWallet:   key.NewBinding(key.WithKeys("left", "right"), h("←/→", "keys.choose_wallet")),
		Lookup:       key.NewBinding(key.WithKeys("/"), h("/", "keys.new_lookup")),
		OpenTx:       key.NewBinding(key.WithKeys("enter"), h("enter", "keys.inspect_transaction")),
		Refund:       key.NewBinding(key.WithKeys("R"), h("R", "keys.refund")),
		Export:       key.NewBinding(key.WithKeys("E"), h("E", "keys.export_list")),
		Search:       key.NewBinding(key.WithKeys("S"), h("S", "keys.customer_says_they_paid")),
		Withdraw:     key.NewBinding(key.WithKeys("s"), h("s", "keys.withdraw_sacar")),
		Period:       key.NewBinding(key.WithKeys("p"), h("p", "keys.period")),
		PrevPeriod:   key.NewBinding(key.WithKeys("["), h("[", "keys.earlier")),
		NextPeriod:   key.NewBinding(key.WithKeys("]"), h("]", "keys.later")),
		Scope:        key.NewBinding(key.WithKeys("a"), h("a", "keys.all_wallets_this_one")),
		Bars:         key.NewBinding(key.WithKeys("b"), h("b", "keys.stacked_side_by_side")),
		CloseDay:     key.NewBinding(key.WithKeys("C"), h("C", "keys.day_s_close")),
	}
}

// Navigate applies the list keys (up, down, page up/down, top, bottom) to a cursor over n rows,
// paging by page; ok is false when km is none of them. The result is clamped to the rows.
func (k KeyMap) Navigate(km tea.KeyMsg, cursor, n, page int) (int, bool) {
	switch {
	case key.Matches(km, k.Up):
		cursor--
	case key.Matches(km, k.Down):
		cursor++
	case key.Matches(km, k.PageUp):
		cursor -= page
	case key.Matches(km, k.PageDown):
		cursor += page
	case key.Matches(km, k.Top):
		cursor = 0
	case key.Matches(km, k.Bottom):
		cursor = n - 1
	default:
		return cursor, false
	}
	return max(min(cursor, n-1), 0), true
}

// yesKey is the key that answers yes to a question, in the merchant's language: y in English,
// s (sim) in Portuguese, which also takes y; the questions say "(y/N)" and "(s/N)" to match.
func yesKey(tr Catalog) key.Binding {
	if tr.Lang == LangPT {
		return key.NewBinding(key.WithKeys("s", "S", "y", "Y"), key.WithHelp("s", tr.T("keys.yes")))
	}
	return key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", tr.T("keys.yes")))
}
