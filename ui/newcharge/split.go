package newcharge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// MaxDraftLegs caps the legs the builder holds: room to show the 10-leg rule broken, no more.
const MaxDraftLegs = 2 * api.MaxSplitItems

// whatIfFeeRise is how much higher a fee the settlement preview plays out (spec rule 7).
const whatIfFeeRise = api.Real

// The two cells of a leg, in tab order.
const (
	ColDest = iota
	ColAmount
)

// feeSource says where the builder's fee comes from.
type feeSource int

// Where the split's fee comes from: unknown, the profile's pix_fee, or learned from the service.
const (
	feeUnknown feeSource = iota
	feeProfile           // the profile's pix_fee
	FeeLearned           // revealed by the service in a split refusal
)

// SplitWalletsMsg brings the account's sub-accounts to the builder (when the wallets view has not loaded them).
type SplitWalletsMsg struct {
	Tag   common.Tag
	Items []api.SubAccount
	err   error
}

// learnedNote remembers the fee the service revealed while this builder was open, and the one it replaced.
type learnedNote struct {
	fee, was api.Money
	wasKnown bool
}

// SplitBuilder edits the split of the new-charge form: legs in the order they settle, every rule of the
// spec checked live by api.CheckSplit, totals against the originator's fee, and a settlement preview.
type SplitBuilder struct {
	C      *common.Common
	origin string // the wallet creating the charge: "principal" or a sub-account reference
	Draft  state.SplitDraft
	leg    int // selected leg
	col    int // colDest or colAmount
	in     textinput.Model

	gross      api.Money
	grossKnown bool

	subs        []api.SubAccount // loaded here when the wallets view has not loaded the list
	subsLoaded  bool
	subsLoading bool
	subsErr     string

	learned *learnedNote
	// server is the service's refusal of this split, shown on serverLeg (-1: on the split as a whole).
	server    string
	serverLeg int
	dirty     bool // the legs changed since the form last looked

	width, height int
}

// NewSplitBuilder makes the split builder.
func NewSplitBuilder(c *common.Common, origin string) *SplitBuilder {
	if origin == "" {
		origin = api.WalletPrincipal
	}
	ti := common.NewInput()
	ti.Prompt = ""
	return &SplitBuilder{C: c, origin: origin, in: ti, serverLeg: -1, width: 80, height: 20}
}

// SetSize gives it its room in cells.
func (b *SplitBuilder) SetSize(w, h int) tea.Cmd {
	b.width, b.height = w, h
	b.FocusCell(b.leg, b.col)
	return nil
}

// SetGross tells the builder the charge amount typed in the form.
func (b *SplitBuilder) SetGross(gross api.Money, known bool) { b.gross, b.grossKnown = gross, known }

// HasLegs reports whether the split has any leg.
func (b *SplitBuilder) HasLegs() bool { return len(b.Draft.Legs) > 0 }

// takeDirty reports (once) whether the legs changed.
func (b *SplitBuilder) takeDirty() bool {
	d := b.dirty
	b.dirty = false
	return d
}

// fromMain reports whether the charge is created by the main account.
func (b *SplitBuilder) fromMain() bool { return b.origin == "" || b.origin == api.WalletPrincipal }

// fee returns the originator's fee: learned from the service, else the profile's pix_fee.
func (b *SplitBuilder) fee() (api.Money, feeSource) {
	if b.learned != nil {
		return b.learned.fee, FeeLearned
	}
	if s := b.C.App.Sess; s != nil {
		if s.Store != nil {
			if lf, ok := s.Store.LearnedFee(); ok {
				return lf.Fee, FeeLearned
			}
		}
		if s.HasPixFee {
			return s.PixFee, feeProfile
		}
	}
	return 0, feeUnknown
}

// learn adopts the fee the service revealed.
func (b *SplitBuilder) learn(fee api.Money) {
	was, src := b.fee()
	b.learned = &learnedNote{fee: fee, was: was, wasKnown: src != feeUnknown}
}

// Wallets returns the account's sub-accounts and whether the list is known.
func (b *SplitBuilder) Wallets() ([]api.SubAccount, bool) {
	if b.C.App.SubAccounts != nil {
		return b.C.App.SubAccounts, true
	}
	if b.subsLoaded {
		return b.subs, true
	}
	return nil, false
}

// walletStatus answers existence and activity from the wallet list; nil when it is not loaded
// (api.CheckSplit then leaves existence to the service).
func (b *SplitBuilder) walletStatus() api.WalletStatus {
	subs, ok := b.Wallets()
	if !ok {
		return nil
	}
	return func(ref string) (bool, bool) {
		for _, s := range subs {
			if s.Reference == ref {
				return true, s.Status.Usable()
			}
		}
		return false, false
	}
}

// subAccountLister loads the account's sub-accounts (*workflow.Session does).
type subAccountLister interface {
	ListSubAccounts(ctx context.Context) ([]api.SubAccount, error)
}

// loadWallets fetches the sub-account list when nobody has yet.
func (b *SplitBuilder) loadWallets() tea.Cmd {
	if _, ok := b.Wallets(); ok || b.subsLoading || b.C.App.Sess == nil {
		return nil
	}
	b.subsLoading = true
	var sl subAccountLister = b.C.App.Sess
	t := b.C.App.Tag()
	return b.C.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		items, err := sl.ListSubAccounts(ctx)
		return SplitWalletsMsg{Tag: t, Items: items, err: err}
	})
}

// OnWallets takes the wallets the split can send to.
func (b *SplitBuilder) OnWallets(msg SplitWalletsMsg) {
	if b.C.App.Stale(msg.Tag) {
		return
	}
	b.subsLoading = false
	if msg.err != nil {
		b.subsErr = msg.err.Error()
		return
	}
	b.subs, b.subsLoaded, b.subsErr = msg.Items, true, ""
	if b.subs == nil {
		b.subs = []api.SubAccount{}
	}
}

// Suggestions are the destinations left/right cycle through: active sub-accounts other than the
// originator, plus principal for a sub-account's charge, minus those other legs already use.
func (b *SplitBuilder) Suggestions() []string {
	subs, _ := b.Wallets()
	used := map[string]bool{}
	for i, l := range b.Draft.Legs {
		if i != b.leg {
			used[strings.TrimSpace(l.Dest)] = true
		}
	}
	var out []string
	for _, s := range subs {
		// A reference that breaks the reference rule is not one the service accepts: never offered.
		if s.Status.Usable() && s.Reference != b.origin && !used[s.Reference] && api.ValidateSubAccountRef(s.Reference) == nil {
			out = append(out, s.Reference)
		}
	}
	if !b.fromMain() && !used[api.WalletPrincipal] {
		out = append(out, api.WalletPrincipal)
	}
	return out
}

// --- editing ---

func (b *SplitBuilder) cellWidths() (dest, amount int) {
	return min(max(b.width-44, 12), 32), 12
}

// FocusCell puts the text cursor on a leg's cell.
func (b *SplitBuilder) FocusCell(i, col int) {
	n := len(b.Draft.Legs)
	if n == 0 {
		b.leg, b.col = 0, ColDest
		b.in.Blur()
		return
	}
	b.leg, b.col = min(max(i, 0), n-1), col
	dw, aw := b.cellWidths()
	l := b.Draft.Legs[b.leg]
	if col == ColDest {
		b.in.CharLimit = 40
		b.in.Placeholder = b.C.Tr.T("split.reference_or_principal")
		b.in.Width = dw - 1
		b.in.SetValue(l.Dest)
	} else {
		b.in.CharLimit = 20
		b.in.Placeholder = "0,00"
		b.in.Width = aw - 1
		b.in.SetValue(l.AmountText)
	}
	b.in.CursorEnd()
	b.in.Focus()
}

// touch records an edit: the service's last refusal no longer applies.
func (b *SplitBuilder) touch() {
	b.dirty = true
	b.server, b.serverLeg = "", -1
}

// storeCell copies the input into the focused cell.
func (b *SplitBuilder) storeCell() {
	if b.leg >= len(b.Draft.Legs) {
		return
	}
	v, l := b.in.Value(), &b.Draft.Legs[b.leg]
	switch {
	case b.col == ColDest && l.Dest != v:
		l.Dest = v
		b.touch()
	case b.col == ColAmount && l.AmountText != v:
		l.AmountText = v
		b.touch()
	}
}

func (b *SplitBuilder) addLeg() tea.Cmd {
	if len(b.Draft.Legs) >= MaxDraftLegs {
		return common.AnswerStatus(b.C.Tr.F("split.the_builder_holds_at_most_legs", MaxDraftLegs, api.MaxSplitItems), common.StatusWarn)
	}
	i := b.Draft.Add()
	b.touch()
	b.FocusCell(i, ColDest)
	return nil
}

func (b *SplitBuilder) removeLeg() {
	if len(b.Draft.Legs) == 0 {
		return
	}
	b.Draft.Remove(b.leg)
	b.touch()
	b.FocusCell(b.leg, b.col)
}

func (b *SplitBuilder) move(delta int) {
	if len(b.Draft.Legs) == 0 {
		return
	}
	j := b.Draft.Move(b.leg, delta)
	if j != b.leg {
		b.touch()
	}
	b.FocusCell(j, b.col)
}

// step moves through the cells in tab order, wrapping around.
func (b *SplitBuilder) step(d int) {
	n := 2 * len(b.Draft.Legs)
	if n == 0 {
		return
	}
	i := ((b.leg*2+b.col+d)%n + n) % n
	b.FocusCell(i/2, i%2)
}

// cycle replaces an empty or suggested destination with the next suggestion; false when it does not apply.
func (b *SplitBuilder) cycle(d int) bool {
	sug := b.Suggestions()
	cur := strings.TrimSpace(b.in.Value())
	idx := -1
	for i, s := range sug {
		if s == cur {
			idx = i
		}
	}
	if len(sug) == 0 || (cur != "" && idx < 0) {
		return false
	}
	switch {
	case idx < 0 && d < 0:
		idx = len(sug) - 1
	case idx < 0:
		idx = 0
	default:
		idx = ((idx+d)%len(sug) + len(sug)) % len(sug)
	}
	b.in.SetValue(sug[idx])
	b.in.CursorEnd()
	b.storeCell()
	return true
}

// dropEmpty removes legs where nothing was typed (closing the builder after opening it by mistake).
func (b *SplitBuilder) dropEmpty() {
	for i := len(b.Draft.Legs) - 1; i >= 0; i-- {
		l := b.Draft.Legs[i]
		if strings.TrimSpace(l.Dest) == "" && strings.TrimSpace(l.AmountText) == "" {
			b.Draft.Remove(i)
		}
	}
	b.FocusCell(b.leg, b.col)
}

// Update handles a key; done is true when the merchant finished (enter on the last cell).
func (b *SplitBuilder) Update(km tea.KeyMsg) (cmd tea.Cmd, done bool) {
	k := b.C.Keys
	switch {
	case key.Matches(km, k.AddLeg):
		return b.addLeg(), false
	case key.Matches(km, k.RemoveLeg):
		b.removeLeg()
		return nil, false
	case key.Matches(km, k.MoveUp):
		b.move(-1)
		return nil, false
	case key.Matches(km, k.MoveDn):
		b.move(1)
		return nil, false
	case key.Matches(km, k.NextField):
		b.step(1)
		return nil, false
	case key.Matches(km, k.PrevField):
		b.step(-1)
		return nil, false
	case key.Matches(km, k.PrevLeg):
		b.FocusCell(b.leg-1, b.col)
		return nil, false
	case key.Matches(km, k.NextLeg):
		b.FocusCell(b.leg+1, b.col)
		return nil, false
	}
	if len(b.Draft.Legs) == 0 {
		return nil, km.Type == tea.KeyEnter
	}
	switch km.Type {
	case tea.KeyEnter:
		if b.leg == len(b.Draft.Legs)-1 && b.col == ColAmount {
			return nil, true
		}
		b.step(1)
		return nil, false
	case tea.KeyLeft, tea.KeyRight:
		d := 1
		if km.Type == tea.KeyLeft {
			d = -1
		}
		if b.col == ColDest && b.cycle(d) {
			return nil, false
		}
	}
	b.in, cmd = b.in.Update(km)
	b.storeCell()
	return cmd, false
}

// setServer shows the service's refusal of the split on the leg it names.
func (b *SplitBuilder) setServer(msg string) {
	b.server, b.serverLeg = msg, -1
	find := func(ref string) {
		for i, l := range b.Draft.Legs {
			if strings.TrimSpace(l.Dest) == ref {
				b.serverLeg = i
				return
			}
		}
	}
	switch {
	case strings.HasPrefix(msg, "Subconta '"):
		rest := strings.TrimPrefix(msg, "Subconta '")
		if i := strings.IndexByte(rest, '\''); i >= 0 {
			find(rest[:i])
		}
	case strings.HasPrefix(msg, "A conta que origina"):
		find(b.origin)
	case strings.HasPrefix(msg, "A cobrança foi criada"):
		find(api.WalletPrincipal)
	case strings.HasPrefix(msg, "split."):
		var i int
		if _, err := fmt.Sscanf(msg, "split.%d.", &i); err == nil && i >= 0 && i < len(b.Draft.Legs) {
			b.serverLeg = i
		}
	}
}

// --- rules ---

// splitCheck is the result of checking the legs: the spec's rules (api.CheckSplit) and the amounts' text.
type splitCheck struct {
	items      []api.SplitItem
	LegMsgs    [][]string // messages on each leg
	Sum        api.Money
	gross, Net api.Money
	grossKnown bool
	Fee        api.Money
	FeeSrc     feeSource
	badText    map[int]bool // legs whose amount text does not parse
	// First is the first problem with its leg number, for the form; short is its few-word form.
	First, short string
}

func (ck splitCheck) Ok() bool { return ck.First == "" }

// Check runs every rule on the legs. The rules are api.CheckSplit's; this only places each problem on
// the leg that breaks it and words it for the merchant.
func (b *SplitBuilder) Check() splitCheck {
	tr := b.C.Tr
	items, perr := b.Draft.Parse()
	ck := splitCheck{items: items, LegMsgs: make([][]string, len(items)), gross: b.gross, grossKnown: b.grossKnown}
	ck.Fee, ck.FeeSrc = b.fee()
	ck.Sum = api.SplitSum(items)
	ck.Net = api.SplitNet(b.gross, ck.Fee) // with the fee unknown this is the gross: a ceiling the split can never pass
	type issue struct {
		leg, rank   int // on each leg: the count rule, then the destination, the amount, the sum
		msg, shortM string
	}
	var issues []issue
	rank := 1
	add := func(leg int, msg, short string) {
		issues = append(issues, issue{leg: leg, rank: rank, msg: msg, shortM: short})
	}
	badText := map[int]bool{}
	ck.badText = badText
	rank = 2
	for _, e := range perr {
		badText[e.Index] = true
		add(e.Index, b.LegErrorText(e), tr.T("split.amount_not_valid"))
	}
	status := b.walletStatus()
	for _, p := range api.CheckSplit(items, b.origin, b.gross, ck.Fee, status) {
		switch p.Rule {
		case api.SplitTooMany:
			rank = 0
		case api.SplitAmountTooSmall:
			rank = 2
		case api.SplitSumExceedsNet:
			rank = 3
		default:
			rank = 1
		}
		switch p.Rule {
		case api.SplitTooMany:
			for i := api.MaxSplitItems; i < len(items); i++ {
				add(i, tr.F("split.at_most_legs_per_split_remove", api.MaxSplitItems), tr.T("split.too_many_legs"))
			}
		case api.SplitAmountTooSmall:
			if !badText[p.Index] {
				add(p.Index, tr.T("split.each_leg_must_be_at_least"), tr.T("split.amount_below_r_0_01"))
			}
		case api.SplitBadReference:
			if p.Ref == "" {
				add(p.Index, tr.T("split.choose_a_destination_a_sub_account"), tr.T("split.no_destination"))
			} else {
				add(p.Index, tr.F("split.is_not_a_sub_account_reference", p.Ref), tr.T("split.invalid_destination"))
			}
		case api.SplitSelf:
			add(p.Index, tr.F("split.creates_this_charge_the_originator_cannot", p.Ref), tr.T("split.originator_in_its_own_split"))
		case api.SplitPrincipalFromMain:
			add(p.Index, tr.T("split.principal_may_receive_a_split_only"), tr.T("split.principal_from_the_main_account"))
		case api.SplitUnknownDestination:
			if exists, _ := status(p.Ref); exists {
				add(p.Index, tr.F("split.sub_account_is_suspended_it_cannot", p.Ref), tr.T("split.suspended_destination"))
			} else {
				add(p.Index, tr.F("split.no_active_sub_account_in_this", p.Ref), tr.T("split.unknown_destination"))
			}
		case api.SplitDuplicate:
			first := 0
			for j := 0; j < p.Index; j++ {
				if items[j].SubAccount == p.Ref {
					first = j
					break
				}
			}
			add(p.Index, tr.F("split.already_receives_leg_a_destination_may", p.Ref, first+1), tr.T("split.destination_twice"))
		case api.SplitSumExceedsNet:
			if !b.grossKnown {
				continue // the form asks for the amount; there is nothing to compare with yet
			}
			// The leg where the running sum passes the net is the one that breaks the ceiling.
			leg := p.Over
			switch over := p.Sum - p.Net; {
			case ck.FeeSrc == feeUnknown:
				add(leg, tr.F("split.the_split_exceeds_the_charge_amount", p.Sum.BRL(), p.Gross.BRL()), tr.T("split.sum_exceeds_the_amount"))
			case over > 0:
				add(leg, tr.F("split.the_split_exceeds_the_net_by", p.Sum.BRL(), p.Net.BRL(), over.BRL()), tr.T("split.sum_exceeds_net"))
			default:
				add(leg, tr.F("split.the_split_exceeds_the_net", p.Sum.BRL(), p.Net.BRL()), tr.T("split.sum_exceeds_net"))
			}
		}
	}
	sort.SliceStable(issues, func(i, j int) bool {
		if issues[i].leg != issues[j].leg {
			return issues[i].leg < issues[j].leg
		}
		return issues[i].rank < issues[j].rank
	})
	for _, is := range issues {
		if is.leg >= 0 && is.leg < len(ck.LegMsgs) {
			ck.LegMsgs[is.leg] = append(ck.LegMsgs[is.leg], is.msg)
		}
	}
	if len(issues) > 0 {
		is := issues[0]
		ck.First = tr.F("split.leg", is.leg+1, is.msg)
		ck.short = tr.F("split.leg", is.leg+1, is.shortM)
		if is.shortM == tr.T("split.sum_exceeds_net") || is.shortM == tr.T("split.sum_exceeds_the_amount") {
			ck.short = is.shortM
		}
	}
	return ck
}

// LegErrorText words a leg's amount text problem.
func (b *SplitBuilder) LegErrorText(e state.LegError) string {
	tr := b.C.Tr
	switch e.Kind {
	case state.LegAmountMissing:
		return tr.T("split.enter_the_amount_in_reais_e")
	case state.LegAmountPrecision:
		return tr.T("split.at_most_2_decimal_places_the")
	case state.LegAmountRange:
		return tr.T("split.amount_too_large")
	}
	if errors.Is(e.Err, api.ErrMoneyAmbiguous) {
		return common.AmountError(tr, e.Err).Error()
	}
	return tr.T("split.not_an_amount_use_digits_and")
}

// Summary is the form's one-line view of the split ("2 legs · R$ 12,00 of R$ 11,35 net ✗ sum exceeds net").
func (b *SplitBuilder) Summary(ck splitCheck) string {
	st, tr := b.C.St, b.C.Tr
	n := len(ck.items)
	s := tr.N("split.legs_n", n)
	switch {
	case !ck.grossKnown:
		s += " · " + ck.Sum.BRL()
	case ck.FeeSrc == feeUnknown:
		s += " · " + tr.F("split.fee_unknown", ck.Sum.BRL())
	default:
		s += " · " + tr.F("split.of_net", ck.Sum.BRL(), ck.Net.BRL())
	}
	switch {
	case !ck.Ok():
		s += " " + st.FieldErr.Render("✗ "+ck.short)
	case ck.grossKnown && ck.FeeSrc != feeUnknown:
		s += " " + st.OK.Render("✓ "+tr.F("split.keeps", (ck.Net-ck.Sum).BRL()))
	default:
		s += " " + st.OK.Render("✓")
	}
	if b.learned != nil {
		s += st.Warn.Render(" · " + tr.F("split.fee_learned", b.learned.fee.BRL()))
	}
	return s
}

// --- view ---

// ShortHelp lists the builder's own keys, drawn above the footer; the footer has the form's
// (submit, back), so they are not repeated here.
func (b *SplitBuilder) ShortHelp() []key.Binding {
	k := b.C.Keys
	return []key.Binding{k.AddLeg, k.RemoveLeg, k.MoveUp, k.MoveDn, k.PickWallet, k.NextField}
}

func (b *SplitBuilder) feeLabel(src feeSource) string {
	switch src {
	case FeeLearned:
		return b.C.Tr.T("split.learned_from_the_service")
	case feeProfile:
		return b.C.Tr.T("split.profile_pix_fee")
	}
	return ""
}

// headerLines: title, the totals, and notes about the fee, the wallet list and the service's refusal.
func (b *SplitBuilder) headerLines(ck splitCheck, w int) []string {
	st, tr := b.C.St, b.C.Tr
	var out []string
	title := st.Bold.Render(tr.T("split.split")) + st.Muted.Render(" · "+tr.F("split.new_charge_from", b.origin)+" · "+tr.T("split.legs_settle_in_this_order"))
	out = append(out, title)
	var money string
	switch {
	case !ck.grossKnown:
		money = st.Label.Render(tr.T("split.gross")) + st.Warn.Render(tr.T("split.not_set_type_the_charge_amount"))
	case ck.FeeSrc == feeUnknown:
		money = st.Label.Render(tr.T("split.gross")) + st.Value.Render(ck.gross.BRL()) + st.Muted.Render(" · ") +
			st.Warn.Render(tr.T("split.fee_unknown_the_net_cannot_be"))
	default:
		money = st.Label.Render(tr.T("split.gross")) + st.Value.Render(ck.gross.BRL()) +
			st.Label.Render(" − "+tr.T("split.fee")) + st.Value.Render(ck.Fee.BRL()) + st.Muted.Render(" ("+b.feeLabel(ck.FeeSrc)+")") +
			st.Label.Render(" = "+tr.T("split.net")) + st.Bold.Render(ck.Net.BRL())
	}
	out = append(out, money)
	alloc := st.Label.Render(tr.T("split.allocated")) + st.Value.Render(ck.Sum.BRL())
	if ck.grossKnown {
		keeps := ck.Net - ck.Sum
		label := tr.T("split.originator_keeps")
		if ck.FeeSrc == feeUnknown {
			label = tr.T("split.originator_keeps_before_the_fee")
		}
		ks := st.Value.Render(keeps.BRL())
		if keeps < 0 {
			ks = st.Err.Render(keeps.BRL())
		}
		alloc += st.Muted.Render(" · ") + st.Label.Render(label) + ks
		switch {
		case keeps < 0:
			alloc += " " + st.Err.Render("✗ "+tr.T("split.sum_exceeds_net"))
		case keeps == 0 && len(ck.items) > 0 && ck.FeeSrc != feeUnknown:
			alloc += " " + st.OK.Render("✓ "+tr.T("split.equal_to_the_net_accepted"))
		case ck.FeeSrc != feeUnknown && len(ck.items) > 0:
			alloc += " " + st.OK.Render("✓ "+tr.T("split.within_the_net"))
		}
	}
	out = append(out, alloc)
	if l := b.learned; l != nil {
		was := tr.T("split.unknown")
		if l.wasKnown {
			was = l.was.BRL()
		}
		out = append(out, st.Warn.Render(tr.F("split.fee_learned_from_the_service_was", l.fee.BRL(), was)))
	}
	if _, ok := b.Wallets(); !ok {
		note := tr.T("split.wallet_list_not_loaded_existence_checked")
		if b.subsLoading {
			note = tr.T("split.loading_the_wallet_list_until_then")
		}
		out = append(out, st.Muted.Render(note))
	}
	if b.server != "" && (b.serverLeg < 0 || b.serverLeg >= len(b.Draft.Legs)) {
		out = append(out, st.Err.Render("✗ "+tr.F("split.the_service_refused_the_split", common.Sanitize(b.server))))
	}
	for i := range out {
		out[i] = common.TruncateWidth(out[i], w)
	}
	return append(out, "")
}

// legLines draws the table rows; sel is the range of lines of the selected leg.
func (b *SplitBuilder) legLines(ck splitCheck, w int) (lines []string, selFirst, selLast int) {
	st, tr := b.C.St, b.C.Tr
	dw, aw := b.cellWidths()
	for i, l := range b.Draft.Legs {
		if i == b.leg {
			selFirst = len(lines)
		}
		mark := "  "
		if i == b.leg {
			mark = st.FieldFocus.Render("› ")
		}
		cell := func(col int, text string, width int) string {
			if i == b.leg && b.col == col {
				return st.FieldFocus.Render("[") + common.PadRight(b.in.View(), width) + st.FieldFocus.Render("]")
			}
			if text == "" {
				return "[" + common.PadRight(st.Muted.Render("·"), width) + "]"
			}
			return "[" + common.PadRight(common.Sanitize(text), width) + "]"
		}
		parsed := ""
		if !ck.badText[i] && strings.TrimSpace(l.AmountText) != "" {
			parsed = "= " + ck.items[i].Amount.BRL()
		}
		mark2 := st.OK.Render("✓")
		msgs := ck.LegMsgs[i]
		if i == b.leg && strings.TrimSpace(l.Dest) == "" && strings.TrimSpace(l.AmountText) == "" {
			// A blank leg being filled in: no complaints yet (a submit still refuses it).
			msgs, mark2 = nil, " "
		}
		if b.server != "" && b.serverLeg == i {
			msgs = append(msgs[:len(msgs):len(msgs)], tr.F("split.the_service_refused_it", common.Sanitize(b.server)))
		}
		if len(msgs) > 0 {
			mark2 = st.Err.Render("✗")
		}
		row := mark + common.PadLeft(fmt.Sprint(i+1), 2) + "  " + cell(ColDest, l.Dest, dw) + " " + cell(ColAmount, l.AmountText, aw) +
			" " + common.PadLeft(st.Muted.Render(parsed), 14) + " " + mark2
		lines = append(lines, common.TruncateWidth(row, w))
		for _, m := range msgs {
			for _, l := range strings.Split(ansi.Wrap("✗ "+m, max(w-6, 10), ""), "\n") {
				lines = append(lines, common.Spaces(6)+st.FieldErr.Render(l))
			}
		}
		if i == b.leg {
			selLast = len(lines) - 1
		}
	}
	return lines, selFirst, selLast
}

// previewLines play the settlement (spec rule 7): legs in the order sent, under the fee known now and
// under a fee R$ 1,00 higher, saying which legs would be reduced or dropped.
func (b *SplitBuilder) previewLines(ck splitCheck, w int) []string {
	st, tr := b.C.St, b.C.Tr
	title := st.Bold.Render(tr.T("split.settlement_preview"))
	switch {
	case len(ck.items) == 0:
		return nil
	case !ck.grossKnown:
		return []string{common.TruncateWidth(title+st.Muted.Render(" · "+tr.T("split.needs_the_charge_amount")), w)}
	case ck.FeeSrc == feeUnknown:
		return []string{common.TruncateWidth(title+st.Muted.Render(" · "+tr.T("split.needs_the_fee_unknown_the_service")), w)}
	}
	higher := ck.Fee + whatIfFeeRise
	pv := b.Draft.Preview(ck.gross, ck.Fee, higher)
	reduced, dropped := 0, 0
	for _, p := range pv {
		switch {
		case p.Dropped():
			dropped++
		case p.Reduced():
			reduced++
		}
	}
	verdict := st.OK.Render(tr.T("split.every_leg_still_paid_in_full"))
	if reduced+dropped > 0 {
		verdict = st.Warn.Render(tr.F("split.reduced_dropped", reduced, dropped))
	}
	out := []string{common.TruncateWidth(title+st.Muted.Render(" · "+tr.F("split.if_the_fee_rose_to", higher.BRL()))+verdict, w)}
	dw := min(max(w-60, 12), 24)
	head := "   # " + common.PadRight(tr.T("split.destination_caps"), dw) + " " + common.PadLeft(tr.T("split.amount_caps"), 13) + " " + common.PadLeft(tr.T("split.now_caps"), 13) + " " + common.PadLeft(tr.F("split.fee_2", higher.BRL()), 15)
	out = append(out, common.TruncateWidth(st.ColHeader.Render(head), w))
	for i, p := range pv {
		note := ""
		switch {
		case p.Dropped():
			note = st.Err.Render(tr.T("split.dropped"))
		case p.Reduced():
			note = st.Warn.Render(tr.T("split.reduced"))
		}
		now := p.Paid.BRL()
		if p.Paid < p.Leg.Amount {
			now = st.Warn.Render(now)
		}
		row := common.PadLeft(fmt.Sprint(i+1), 4) + " " + common.PadRight(common.Sanitize(p.Leg.SubAccount), dw) + " " + common.PadLeft(p.Leg.Amount.BRL(), 13) + " " +
			common.PadLeft(now, 13) + " " + common.PadLeft(p.PaidIfHigher.BRL(), 15) + " " + note
		out = append(out, common.TruncateWidth(row, w))
	}
	return out
}

// footerLines: the destination suggestions and the builder's keys.
func (b *SplitBuilder) footerLines(w int) []string {
	st, tr := b.C.St, b.C.Tr
	var out []string
	if len(b.Draft.Legs) > 0 && b.col == ColDest {
		if _, ok := b.Wallets(); ok || !b.fromMain() {
			if sug := b.Suggestions(); len(sug) > 0 {
				out = append(out, common.TruncateWidth(st.Label.Render(tr.T("split.wallets"))+strings.Join(sug, " · "), w))
			} else {
				out = append(out, common.TruncateWidth(st.Muted.Render(tr.T("split.no_other_active_wallet_to_suggest")), w))
			}
		}
	}
	var parts []string
	for _, kb := range b.ShortHelp() {
		h := kb.Help()
		parts = append(parts, st.Key.Render(h.Key)+" "+st.Help.Render(h.Desc))
	}
	// Wrap the keys on at most two lines.
	line := ""
	var keyLines []string
	for _, p := range parts {
		cand := p
		if line != "" {
			cand = line + st.Help.Render(" · ") + p
		}
		if line != "" && lipgloss.Width(cand) > w {
			keyLines = append(keyLines, line)
			line = p
			continue
		}
		line = cand
	}
	if line != "" {
		keyLines = append(keyLines, line)
	}
	if len(keyLines) > 2 {
		keyLines = keyLines[:2]
	}
	for _, l := range keyLines {
		out = append(out, common.TruncateWidth(l, w))
	}
	return out
}

// View renders it at the size it was given; it changes nothing.
func (b *SplitBuilder) View() string {
	w, h := b.width, b.height
	st, tr := b.C.St, b.C.Tr
	ck := b.Check()
	top := b.headerLines(ck, w)
	bottom := b.footerLines(w)
	room := h - len(top) - len(bottom)
	if room < 2 {
		all := append(top, bottom...)
		return strings.Join(all[:min(len(all), max(h, 0))], "\n")
	}
	var legs []string
	selFirst, selLast := 0, 0
	if len(b.Draft.Legs) == 0 {
		legs = []string{st.Muted.Render(common.TruncateWidth(tr.T("split.no_legs_ctrl_n_adds_one"), w))}
	} else {
		legs, selFirst, selLast = b.legLines(ck, w)
	}
	dw, aw := b.cellWidths()
	head := common.Spaces(6) + common.PadRight(tr.T("split.destination_caps"), dw+2) + " " + common.PadRight(tr.T("split.amount_r_caps"), aw+2)
	if n := len(b.Draft.Legs); n > 0 {
		head += "  " + tr.F("split.leg_of", b.leg+1, n)
	}
	head = common.TruncateWidth(st.ColHeader.Render(head), w)
	prev := b.previewLines(ck, w)
	legsNeed := 1 + len(legs)
	prevNeed := 0
	if len(prev) > 0 {
		prevNeed = 1 + len(prev)
	}
	legsRoom := legsNeed
	if legsNeed+prevNeed > room {
		legsRoom = min(legsNeed, max(room-prevNeed, room*2/3))
	}
	prevRoom := room - legsRoom
	if prevRoom < 2 {
		legsRoom, prevRoom = min(legsNeed, room), 0
	}
	// Window the leg lines around the selected leg.
	n := legsRoom - 1
	start := 0
	if len(legs) > n && n > 0 {
		start = selFirst - (n-(selLast-selFirst+1))/2
		start = min(max(start, 0), len(legs)-n)
		if selFirst < start {
			start = selFirst
		}
	}
	var out []string
	out = append(out, top...)
	if legsRoom > 0 {
		out = append(out, head)
		if n > 0 {
			out = append(out, legs[start:min(start+n, len(legs))]...)
		}
	}
	if prevRoom >= 2 && len(prev) > 0 {
		out = append(out, "")
		// prev is the title, the column header, then one row per leg.
		show, avail := prev, prevRoom-1
		switch {
		case len(show) <= avail:
		case avail >= 4:
			show = append(prev[:avail-1:avail-1], st.Muted.Render(tr.N("split.more_legs_n", len(prev)-(avail-1))))
		case avail >= 2:
			show = []string{prev[0], st.Muted.Render(tr.N("split.more_legs_n", len(prev)-2))}
		default:
			show = prev[:1]
		}
		out = append(out, show...)
	}
	for len(out) < h-len(bottom) {
		out = append(out, "")
	}
	out = append(out, bottom...)
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}

// ServiceErr is the outcome of the call to the service, for the header's light.
func (m SplitWalletsMsg) ServiceErr() error { return m.err }

// ClockKey says nothing on the split builder changes with the clock (see common.Clocked).
func (b *SplitBuilder) ClockKey(time.Time) string { return "" }
