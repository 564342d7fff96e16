package common

import (
	"strconv"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
)

// Palette: adaptive colours so light and dark terminals both read well.
var (
	colSubtle   = lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	colText     = lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#E4E4E4"}
	colAccent   = lipgloss.AdaptiveColor{Light: "#0B6E4F", Dark: "#32D29B"}
	colSandbox  = lipgloss.AdaptiveColor{Light: "#8A6D00", Dark: "#F2C94C"}
	colProd     = lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF4D5E"}
	colOK       = lipgloss.AdaptiveColor{Light: "#1E7B34", Dark: "#4ADE80"}
	colWarn     = lipgloss.AdaptiveColor{Light: "#9A5B00", Dark: "#FBBF24"}
	colErr      = lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#F87171"}
	colMuted    = lipgloss.AdaptiveColor{Light: "#8C8C8C", Dark: "#6B6B6B"}
	colSelectBg = lipgloss.AdaptiveColor{Light: "#DDEFE8", Dark: "#1F3A31"}
)

// Styles holds every lipgloss style the UI uses; built once per session, never in View.
type Styles struct {
	App        lipgloss.Style
	ProdFrame  lipgloss.Style
	Header     lipgloss.Style
	Brand      lipgloss.Style
	Label      lipgloss.Style
	Value      lipgloss.Style
	Subtle     lipgloss.Style
	Muted      lipgloss.Style
	Bold       lipgloss.Style
	BadgeDemo  lipgloss.Style
	BadgeSand  lipgloss.Style
	BadgeProd  lipgloss.Style
	TabActive  lipgloss.Style
	TabIdle    lipgloss.Style
	Rule       lipgloss.Style
	Status     lipgloss.Style
	StatusErr  lipgloss.Style
	StatusOK   lipgloss.Style
	StatusWarn lipgloss.Style
	Help       lipgloss.Style
	Selected   lipgloss.Style
	ColHeader  lipgloss.Style
	OK         lipgloss.Style
	Warn       lipgloss.Style
	Err        lipgloss.Style
	Accent     lipgloss.Style
	FieldLabel lipgloss.Style
	FieldFocus lipgloss.Style
	FieldErr   lipgloss.Style
	Box        lipgloss.Style
	Overlay    lipgloss.Style
	QR         lipgloss.Style
	BigAmount  lipgloss.Style
	PaidBanner lipgloss.Style
	FailBanner lipgloss.Style
	ExpBanner  lipgloss.Style
	Confirm    lipgloss.Style
	ConfirmBox lipgloss.Style
	Key        lipgloss.Style
	// Event kinds by family (payments use OK and Err).
	EvRefund     lipgloss.Style
	EvWithdrawal lipgloss.Style
	EvBlock      lipgloss.Style
}

// NewStyles builds every style once, each colour converted once to the terminal's profile.
func NewStyles() *Styles {
	cc := profileColour
	s := &Styles{}
	s.App = lipgloss.NewStyle()
	s.ProdFrame = lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(cc(colProd))
	s.Header = lipgloss.NewStyle().Foreground(cc(colText))
	s.Brand = lipgloss.NewStyle().Bold(true).Foreground(cc(colAccent))
	s.Label = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.Value = lipgloss.NewStyle().Foreground(cc(colText))
	s.Subtle = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.Muted = lipgloss.NewStyle().Foreground(cc(colMuted))
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.BadgeDemo = lipgloss.NewStyle().Bold(true).Foreground(cc(lipgloss.Color("#000000"))).Background(cc(colSandbox)).Padding(0, 1)
	s.BadgeSand = s.BadgeDemo
	s.BadgeProd = lipgloss.NewStyle().Bold(true).Foreground(cc(lipgloss.Color("#FFFFFF"))).Background(cc(colProd)).Padding(0, 1)
	s.TabActive = lipgloss.NewStyle().Bold(true).Foreground(cc(colAccent)).Underline(true)
	s.TabIdle = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.Rule = lipgloss.NewStyle().Foreground(cc(colMuted))
	s.Status = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.StatusErr = lipgloss.NewStyle().Foreground(cc(colErr)).Bold(true)
	s.StatusOK = lipgloss.NewStyle().Foreground(cc(colOK))
	s.StatusWarn = lipgloss.NewStyle().Foreground(cc(colWarn))
	s.Help = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.Selected = lipgloss.NewStyle().Background(cc(colSelectBg)).Bold(true)
	s.ColHeader = lipgloss.NewStyle().Foreground(cc(colSubtle)).Bold(true)
	s.OK = lipgloss.NewStyle().Foreground(cc(colOK))
	s.Warn = lipgloss.NewStyle().Foreground(cc(colWarn))
	s.Err = lipgloss.NewStyle().Foreground(cc(colErr))
	s.Accent = lipgloss.NewStyle().Foreground(cc(colAccent))
	s.FieldLabel = lipgloss.NewStyle().Foreground(cc(colSubtle))
	s.FieldFocus = lipgloss.NewStyle().Foreground(cc(colAccent)).Bold(true)
	s.FieldErr = lipgloss.NewStyle().Foreground(cc(colErr))
	s.Box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cc(colMuted)).Padding(0, 1)
	s.Overlay = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cc(colAccent)).Padding(0, 2)
	// The QR is drawn black on white whatever the terminal theme, so phones can read it.
	s.QR = lipgloss.NewStyle().Foreground(cc(lipgloss.Color("#000000"))).Background(cc(lipgloss.Color("#FFFFFF")))
	s.BigAmount = lipgloss.NewStyle().Bold(true).Foreground(cc(colText))
	s.PaidBanner = lipgloss.NewStyle().Bold(true).Foreground(cc(lipgloss.Color("#FFFFFF"))).Background(cc(lipgloss.Color("#1E7B34"))).Padding(1, 6)
	s.FailBanner = lipgloss.NewStyle().Bold(true).Foreground(cc(lipgloss.Color("#FFFFFF"))).Background(cc(lipgloss.Color("#B00020"))).Padding(1, 6)
	s.ExpBanner = lipgloss.NewStyle().Bold(true).Foreground(cc(lipgloss.Color("#000000"))).Background(cc(lipgloss.Color("#BDBDBD"))).Padding(1, 6)
	s.Confirm = lipgloss.NewStyle().Bold(true).Foreground(cc(colProd))
	s.ConfirmBox = s.Overlay.BorderForeground(cc(colProd))
	s.Key = lipgloss.NewStyle().Foreground(cc(colAccent))
	s.EvRefund = lipgloss.NewStyle().Foreground(cc(lipgloss.AdaptiveColor{Light: "#7E22CE", Dark: "#C084FC"}))
	s.EvWithdrawal = lipgloss.NewStyle().Foreground(cc(lipgloss.AdaptiveColor{Light: "#1D4ED8", Dark: "#60A5FA"}))
	s.EvBlock = lipgloss.NewStyle().Foreground(cc(colWarn))
	return s
}

// Reverse video on and off (SGR 7 and 27): not a colour, so it stays under NO_COLOR.
const (
	SgrReverse   = "\x1b[7m"
	SgrNoReverse = "\x1b[27m"
)

// NoColour reports whether styles draw no colour at all (NO_COLOR, or a terminal without
// colours): lipgloss then strips every attribute, bold and reverse included.
func NoColour() bool { return lipgloss.ColorProfile() == termenv.Ascii }

// SelectedLine draws the selected row of a list: the Selected style, or reverse video without
// colours (NO_COLOR removes colour, not contrast: the row stays visible).
func (s *Styles) SelectedLine(line string) string {
	if NoColour() {
		return SgrReverse + line + SgrNoReverse
	}
	return s.Selected.Render(line)
}

// ActiveTab draws the active tab: the TabActive style, or reverse video without colours
// (underline and bold go with the colours under NO_COLOR; the tab must still stand out).
func (s *Styles) ActiveTab(label string) string {
	if NoColour() {
		return SgrReverse + label + SgrNoReverse
	}
	return s.TabActive.Render(label)
}

// tone is what a status means for the merchant's money, and so its colour.
type tone int

const (
	// toneOver: nothing more will happen and nothing was lost (expired, cancelled), or the
	// status is not known.
	toneOver tone = iota
	// toneGood: the money is the merchant's, or all is well (paid, a block rejected, an active
	// sub-account, a confirmed event).
	toneGood
	// toneWait: waiting for the payer, the service or the merchant (pending, a block awaiting
	// response, an account pending documents).
	toneWait
	// toneSent: the merchant did their part and waits for a decision (a block defended).
	toneSent
	// toneBad: the money is lost or refused (failed, a block approved: returned to the payer,
	// a disputed event, a suspended wallet).
	toneBad
)

// statusLook is how a status is drawn: its tone and a symbol, so colour is never the only signal.
type statusLook struct {
	tone   tone
	symbol string
}

// statusLooks is the one table of statuses the dashboard draws: charge states, balance-block
// statuses, event verdicts, sub-account and account statuses. Colours are from the merchant's
// side: a block approved gave the money back to the payer (bad), one rejected returned it to
// the merchant (good).
var statusLooks = map[any]statusLook{
	state.StatePaid:      {toneGood, "✓"},
	state.StatePending:   {toneWait, "○"},
	state.StateFailed:    {toneBad, "✗"},
	state.StateExpired:   {toneOver, "◌"},
	state.StateCancelled: {toneOver, "⊘"},
	state.StateUnknown:   {toneOver, "?"},
	// A payment whose money went back to the payer, or is held by a MED block: never goods.
	state.StateRefunded: {toneBad, "↩"},
	state.StateReturned: {toneBad, "↩"},
	state.StateBlocked:  {toneBad, "!"},
	state.StateNotFound: {toneOver, "?"},

	api.BlockAwaitingResponse: {toneWait, "○"},
	api.BlockDefended:         {toneSent, "◎"},
	api.BlockApproved:         {toneBad, "↩"},
	api.BlockRejected:         {toneGood, "✓"},

	state.VerdictUnchecked: {toneOver, "…"},
	state.VerdictConfirmed: {toneGood, "✓"},
	state.VerdictDisputed:  {toneBad, "✗"},
	state.VerdictUnknown:   {toneOver, "?"},

	api.SubAccountApproved:  {toneGood, "✓"},
	api.SubAccountActive:    {toneGood, "✓"},
	api.SubAccountSuspended: {toneBad, "⊘"},

	api.AccountApproved:        {toneGood, "✓"},
	api.AccountPending:         {toneWait, "!"},
	api.AccountPendingDocs:     {toneWait, "!"},
	api.AccountPendingApproval: {toneWait, "!"},
	api.AccountRejected:        {toneBad, "✗"},
	api.AccountSuspended:       {toneBad, "⊘"},
}

// lookOf is the look of a status value: from the table, else "?" (muted; a warning for the
// wallets' statuses, which decide whether a wallet can be used).
func lookOf(v any) statusLook {
	if l, ok := statusLooks[v]; ok {
		return l
	}
	switch v.(type) {
	case api.SubAccountStatus, api.AccountStatus:
		return statusLook{toneWait, "?"}
	}
	return statusLook{toneOver, "?"}
}

// tone is the style of a tone.
func (s *Styles) tone(t tone) *lipgloss.Style {
	switch t {
	case toneGood:
		return &s.OK
	case toneWait:
		return &s.Warn
	case toneSent:
		return &s.Accent
	case toneBad:
		return &s.Err
	}
	return &s.Muted
}

// StatusLine is the style and symbol of a status value (see statusLooks).
func (s *Styles) StatusLine(v any) (*lipgloss.Style, string) {
	l := lookOf(v)
	return s.tone(l.tone), l.symbol
}

// StateStyle picks the colour for a charge's display state.
func (s *Styles) StateStyle(cs state.ChargeState) lipgloss.Style { return *s.tone(lookOf(cs).tone) }

// StateSymbol is a shape per charge state, so colour is never the only signal.
func StateSymbol(cs state.ChargeState) string { return lookOf(cs).symbol }

// ColoursOnce makes NewStyles convert each colour to the terminal's colour profile once
// (issue 27: lipgloss converts a hex colour to the nearest of 256 on every Render, 12% of a
// busy dashboard's CPU). Only the benchmarks' "before" side turns it off.
var ColoursOnce = true

// profileColour is c as the terminal's profile draws it, resolved now: an adaptive colour's
// side for the terminal's background, and under 256 or 16 colours the palette code. Without
// colours (or with ColoursOnce off) c is returned as it is.
func profileColour(c lipgloss.TerminalColor) lipgloss.TerminalColor {
	p := lipgloss.ColorProfile()
	if !ColoursOnce || p == termenv.Ascii {
		return c
	}
	var hex string
	switch c := c.(type) {
	case lipgloss.AdaptiveColor:
		hex = c.Light
		if lipgloss.HasDarkBackground() {
			hex = c.Dark
		}
	case lipgloss.Color:
		hex = string(c)
	default:
		return c
	}
	switch tc := p.Color(hex).(type) {
	case termenv.ANSI256Color:
		return lipgloss.Color(strconv.Itoa(int(tc)))
	case termenv.ANSIColor:
		return lipgloss.Color(strconv.Itoa(int(tc)))
	}
	return lipgloss.Color(hex)
}
