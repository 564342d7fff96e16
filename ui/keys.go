package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyMap holds every binding; views pick the ones they show in help.
type keyMap struct {
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

func newKeyMap(tr catalog) keyMap {
	h := func(k, desc string) key.BindingOpt { return key.WithHelp(k, tr.T(desc)) }
	return keyMap{
		Quit:         key.NewBinding(key.WithKeys("q"), h("q", "quit")),
		ForceQuit:    key.NewBinding(key.WithKeys("ctrl+c"), h("ctrl+c", "quit")),
		Help:         key.NewBinding(key.WithKeys("?"), h("?", "help")),
		Back:         key.NewBinding(key.WithKeys("esc"), h("esc", "back")),
		View1:        key.NewBinding(key.WithKeys("1"), h("1", "charges")),
		View2:        key.NewBinding(key.WithKeys("2"), h("2", "inspector")),
		View3:        key.NewBinding(key.WithKeys("3"), h("3", "wallets")),
		View4:        key.NewBinding(key.WithKeys("4"), h("4", "blocks")),
		View5:        key.NewBinding(key.WithKeys("5"), h("5", "events")),
		View6:        key.NewBinding(key.WithKeys("6"), h("6", "sales")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), h("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), h("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+u"), h("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), h("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), h("g", "top")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), h("G", "bottom")),
		Enter:        key.NewBinding(key.WithKeys("enter"), h("enter", "open")),
		Filter:       key.NewBinding(key.WithKeys("/"), h("/", "filter")),
		StatusFilter: key.NewBinding(key.WithKeys("f"), h("f", "status")),
		Refresh:      key.NewBinding(key.WithKeys("r"), h("r", "refresh")),
		New:          key.NewBinding(key.WithKeys("n"), h("n", "new")),
		QR:           key.NewBinding(key.WithKeys("Q"), h("Q", "show QR")),
		Inspect:      key.NewBinding(key.WithKeys("i"), h("i", "inspect")),
		Wallets:      key.NewBinding(key.WithKeys("w"), h("w", "wallet")),
		Profiles:     key.NewBinding(key.WithKeys("P"), h("P", "profile")),
		Copy:         key.NewBinding(key.WithKeys("c"), h("c", "copy code")),
		SimulatePay:  key.NewBinding(key.WithKeys("$"), h("$", "simulate payment")),
		SimulateCNPJ: key.NewBinding(key.WithKeys("%"), h("%", "simulate CNPJ payer")),
		Expire:       key.NewBinding(key.WithKeys("x"), h("x", "expire now")),
		Reveal:       key.NewBinding(key.WithKeys("v"), h("v", "reveal document")),
		Submit:       key.NewBinding(key.WithKeys("ctrl+s"), h("ctrl+s", "submit")),
		NextField:    key.NewBinding(key.WithKeys("tab"), h("tab", "next")),
		PrevField:    key.NewBinding(key.WithKeys("shift+tab"), h("shift+tab", "previous")),
		Split:        key.NewBinding(key.WithKeys("ctrl+p"), h("ctrl+p", "split")),
		AddLeg:       key.NewBinding(key.WithKeys("ctrl+n"), h("ctrl+n", "add leg")),
		RemoveLeg:    key.NewBinding(key.WithKeys("ctrl+x"), h("ctrl+x", "remove leg")),
		MoveUp:       key.NewBinding(key.WithKeys("alt+up", "ctrl+k"), h("ctrl+k", "move leg up")),
		MoveDn:       key.NewBinding(key.WithKeys("alt+down", "ctrl+j"), h("ctrl+j", "move leg down")),
		CreateSub:    key.NewBinding(key.WithKeys("c"), h("c", "create sub-account")),
		KindFilter:   key.NewBinding(key.WithKeys("t"), h("t", "kind filter")),
		WalletFilter: key.NewBinding(key.WithKeys("W"), h("W", "wallet filter")),
		Yes:          yesKey(tr),
		No:           key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), h("n", "no")),
		PrevLeg:      key.NewBinding(key.WithKeys("up"), h("↑", "previous leg")),
		NextLeg:      key.NewBinding(key.WithKeys("down"), h("↓", "next leg")),
		PickWallet:   key.NewBinding(key.WithKeys("left", "right"), h("←/→", "choose wallet")),
		Lookup:       key.NewBinding(key.WithKeys("/"), h("/", "new lookup")),
		OpenTx:       key.NewBinding(key.WithKeys("enter"), h("enter", "inspect transaction")),
		Refund:       key.NewBinding(key.WithKeys("R"), h("R", "refund")),
		Export:       key.NewBinding(key.WithKeys("E"), h("E", "export list")),
		Search:       key.NewBinding(key.WithKeys("S"), h("S", "customer says they paid")),
		Withdraw:     key.NewBinding(key.WithKeys("s"), h("s", "withdraw (sacar)")),
		Period:       key.NewBinding(key.WithKeys("p"), h("p", "period")),
		PrevPeriod:   key.NewBinding(key.WithKeys("["), h("[", "earlier")),
		NextPeriod:   key.NewBinding(key.WithKeys("]"), h("]", "later")),
		Scope:        key.NewBinding(key.WithKeys("a"), h("a", "all wallets / this one")),
		Bars:         key.NewBinding(key.WithKeys("b"), h("b", "stacked / side by side")),
		CloseDay:     key.NewBinding(key.WithKeys("C"), h("C", "day's close")),
	}
}

// navigate applies the list keys (up, down, page up/down, top, bottom) to a cursor over n rows,
// paging by page; ok is false when km is none of them. The result is clamped to the rows.
func (k keyMap) navigate(km tea.KeyMsg, cursor, n, page int) (int, bool) {
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
func yesKey(tr catalog) key.Binding {
	if tr.lang == LangPT {
		return key.NewBinding(key.WithKeys("s", "S", "y", "Y"), key.WithHelp("s", tr.T("yes")))
	}
	return key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", tr.T("yes")))
}
