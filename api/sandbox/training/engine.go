package training

import (
	"context"
	"fmt"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// ActionKind names something the trainee did that only the dashboard sees.
type ActionKind int

// What the dashboard reports.
const (
	// HandOver: the trainee handed the goods over for ChargeID.
	HandOver ActionKind = iota + 1
	// ViewBlocks: the trainee opened the balance blocks view.
	ViewBlocks
	// CloseDay: the trainee opened the day's close.
	CloseDay
	// Decline: the trainee told the customer of ChargeID there is no payment (no goods).
	Decline
)

// Action is one thing the trainee did.
type Action struct {
	Kind     ActionKind
	ChargeID string
}

// StepState is where a checklist line stands.
type StepState int

// The states of a checklist line.
const (
	StepTodo StepState = iota
	StepNow
	StepRight
	StepMissed
)

// Line is one line of the checklist.
type Line struct {
	Label string
	State StepState
}

// Item is one line of the summary: done right or missed.
type Item struct {
	Right bool
	Text  string
}

// State is what the dashboard draws: the checklist, what to do now and, at the end, the summary.
type State struct {
	Title   string
	Lines   []Line
	Now     string // what to do now ("" once finished)
	Offline bool   // the simulated network is down
	Done    bool
	Summary []Item
}

// Options configures an Engine.
type Options struct {
	// Lang is "en" for English; anything else is Brazilian Portuguese.
	Lang string
	// Scale is how long a scenario second lasts (1s when zero); tests shorten it.
	Scale time.Duration
	// Tick is how often the engine looks at the emulator (250ms when zero).
	Tick time.Duration
}

// Engine plays a scenario against an emulator: it drives the customers through control and
// watches the charges and the trainee's actions.
type Engine struct {
	sc       *Scenario
	en       bool
	scale    time.Duration
	tick     time.Duration
	srv      *sandbox.Server
	clientID string
	ctl      *sandbox.Control
	net      *Network

	actions chan Action
	updates chan State

	// Owned by Run.
	cur      int
	verdicts []*Item // per step, nil until decided
	extra    []Item
	known    map[string]bool
	bound    map[string]string // customer → charge id
	who      map[string]string // charge id → customer
	handed   map[string]handover
	declined map[string]bool
	refunds  map[string]api.Money // charge id → refunded seen
	timers   []timer
	stepAt   time.Time // when the current step began
	blocked  bool      // the current block step's block is open
	sawBlock bool
	closed   bool
	last     *State
}

type handover struct {
	paid, offline bool
}

type timer struct {
	at time.Time
	do func(context.Context)
}

// New prepares an engine for scenario sc on emulator srv, acting as credential clientID's
// customers through ctl (a path the simulated network drop does not cut) and dropping net.
func New(sc *Scenario, srv *sandbox.Server, clientID string, ctl *sandbox.Control, network *Network, o Options) *Engine {
	if o.Scale <= 0 {
		o.Scale = time.Second
	}
	if o.Tick <= 0 {
		o.Tick = 250 * time.Millisecond
	}
	e := &Engine{sc: sc, en: o.Lang == "en", scale: o.Scale, tick: o.Tick, srv: srv, clientID: clientID, ctl: ctl, net: network,
		actions: make(chan Action, 64), updates: make(chan State, 1),
		verdicts: make([]*Item, len(sc.Steps)), known: map[string]bool{}, bound: map[string]string{},
		who: map[string]string{}, handed: map[string]handover{}, declined: map[string]bool{}, refunds: map[string]api.Money{}}
	for _, f := range srv.ChargeFacts(clientID) {
		e.known[f.ID], e.refunds[f.ID] = true, f.Refunded // history is not the trainee's
	}
	return e
}

// Updates delivers the newest state after each change; only the latest is kept.
func (e *Engine) Updates() <-chan State { return e.updates }

// Observe reports a trainee's action; it never blocks (a flood beyond the buffer is dropped).
func (e *Engine) Observe(a Action) {
	select {
	case e.actions <- a:
	default:
	}
}

// Run plays the scenario until it ends or ctx is done; it returns the final state.
func (e *Engine) Run(ctx context.Context) State {
	defer e.net.SetDown(false)
	t := time.NewTicker(e.tick)
	defer t.Stop()
	e.enter(ctx)
	e.publish()
	for {
		select {
		case <-ctx.Done():
			return e.state()
		case a := <-e.actions:
			e.act(a)
		case <-t.C:
		}
		e.step(ctx)
		e.publish()
		if e.cur >= len(e.sc.Steps) {
			return e.state()
		}
	}
}

func (e *Engine) sec(n int) time.Duration { return time.Duration(n) * e.scale }

func (e *Engine) pick(pt, en string) string {
	if e.en && en != "" {
		return en
	}
	return pt
}

func (e *Engine) money(m api.Money) string {
	if e.en {
		return "R$ " + m.Decimal()
	}
	return m.BRL()
}

// enter starts the current step.
func (e *Engine) enter(ctx context.Context) {
	e.stepAt = time.Now()
	if e.cur >= len(e.sc.Steps) {
		return
	}
	if st := e.sc.Steps[e.cur]; st.Kind == KindOutage {
		e.net.SetDown(true)
	}
	_ = ctx
}

func (e *Engine) act(a Action) {
	switch a.Kind {
	case HandOver:
		if _, dup := e.handed[a.ChargeID]; dup {
			return
		}
		paid := false
		for _, f := range e.srv.ChargeFacts(e.clientID) {
			if f.ID == a.ChargeID {
				paid = f.Status == api.StatusCompleted && f.PaidAt != nil
			}
		}
		h := handover{paid: paid, offline: e.net.Down()}
		e.handed[a.ChargeID] = h
		if !paid || h.offline {
			// A hand-over the current step does not judge is judged here.
			st, judged := e.currentStep()
			if !judged || st.Kind != KindHandover || e.bound[st.Customer] != a.ChargeID {
				if !e.judgedLater(a.ChargeID) {
					e.extra = append(e.extra, Item{Text: e.early(a.ChargeID, h)})
				}
			}
		}
	case Decline:
		if e.declined[a.ChargeID] {
			return
		}
		e.declined[a.ChargeID] = true
		for _, f := range e.srv.ChargeFacts(e.clientID) {
			if f.ID == a.ChargeID && f.Status == api.StatusCompleted {
				e.extra = append(e.extra, Item{Text: fmt.Sprintf(e.pick("Recusou a entrega para %s, que tinha pagado", "Refused %s the goods though they had paid"), e.name(a.ChargeID))})
			}
		}
	case ViewBlocks:
		if e.blocked {
			e.sawBlock = true
		}
	case CloseDay:
		e.closed = true
	}
}

// judgedLater: a later handover or refuse step of the charge's customer will judge it.
func (e *Engine) judgedLater(id string) bool {
	c, ok := e.who[id]
	if !ok {
		return false
	}
	for i := e.cur; i < len(e.sc.Steps); i++ {
		if st := e.sc.Steps[i]; st.Customer == c && (st.Kind == KindHandover || st.Kind == KindRefuse) {
			return true
		}
	}
	return false
}

func (e *Engine) currentStep() (Step, bool) {
	if e.cur >= len(e.sc.Steps) {
		return Step{}, false
	}
	return e.sc.Steps[e.cur], true
}

func (e *Engine) name(id string) string {
	if c, ok := e.who[id]; ok {
		return c
	}
	return e.pick("sem cliente", "no customer")
}

func (e *Engine) early(id string, h handover) string {
	if h.offline {
		return fmt.Sprintf(e.pick("Entregou a mercadoria (%s) com a internet fora, sem ver PAGO", "Handed the goods over (%s) while offline, without seeing PAID"), e.name(id))
	}
	return fmt.Sprintf(e.pick("Entregou a mercadoria (%s) antes do PAGO", "Handed the goods over (%s) before PAID"), e.name(id))
}

// step runs the timers, takes new charges and refunds in and judges the current step.
func (e *Engine) step(ctx context.Context) {
	now := time.Now()
	keep := e.timers[:0]
	var due []timer
	for _, t := range e.timers {
		if now.Before(t.at) {
			keep = append(keep, t)
		} else {
			due = append(due, t)
		}
	}
	e.timers = keep
	for _, t := range due {
		t.do(ctx)
	}
	facts := map[string]sandbox.ChargeFact{}
	var fresh []sandbox.ChargeFact
	for _, f := range e.srv.ChargeFacts(e.clientID) {
		facts[f.ID] = f
		if !e.known[f.ID] {
			e.known[f.ID] = true
			fresh = append(fresh, f)
		}
	}
	var refunded []string
	for id, f := range facts {
		if f.Refunded > e.refunds[id] {
			e.refunds[id] = f.Refunded
			refunded = append(refunded, id)
		}
	}
	for e.cur < len(e.sc.Steps) {
		st := e.sc.Steps[e.cur]
		v, done := e.judge(ctx, st, facts, &fresh, &refunded, now)
		if !done {
			return
		}
		e.verdicts[e.cur] = &v
		if st.Kind == KindOutage {
			e.net.SetDown(false)
		}
		e.cur++
		e.blocked, e.sawBlock = false, false
		e.enter(ctx)
	}
}

func (e *Engine) judge(ctx context.Context, st Step, facts map[string]sandbox.ChargeFact, fresh *[]sandbox.ChargeFact, refunded *[]string, now time.Time) (Item, bool) {
	id := e.bound[st.Customer]
	f := facts[id]
	switch st.Kind {
	case KindCharge:
		if len(*fresh) == 0 {
			return Item{}, false
		}
		c := (*fresh)[0]
		*fresh = (*fresh)[1:]
		e.bound[st.Customer], e.who[c.ID] = c.ID, st.Customer
		e.schedule(st, c.ID, now)
		if c.Amount != st.amount {
			return Item{Text: fmt.Sprintf(e.pick("Cobrou %s da cliente %s, que devia pagar %s", "Charged %s to %s, who owed %s"),
				e.money(c.Amount), st.Customer, e.money(st.amount))}, true
		}
		return Item{Right: true, Text: fmt.Sprintf(e.pick("Criou a cobrança de %s para %s", "Created the %s charge for %s"), e.money(st.amount), st.Customer)}, true
	case KindHandover:
		h, ok := e.handed[id]
		if !ok {
			return Item{}, false
		}
		if !h.paid || h.offline {
			return Item{Text: e.early(id, h)}, true
		}
		return Item{Right: true, Text: fmt.Sprintf(e.pick("Entregou para %s depois do PAGO", "Handed %s the goods after PAID"), st.Customer)}, true
	case KindRefuse:
		if _, ok := e.handed[id]; ok {
			return Item{Text: fmt.Sprintf(e.pick("Entregou a mercadoria para %s sem pagamento", "Handed %s the goods without a payment"), st.Customer)}, true
		}
		if !e.declined[id] {
			return Item{}, false
		}
		return Item{Right: true, Text: fmt.Sprintf(e.pick("Não entregou para %s: o pagamento não entrou", "Did not hand %s anything: the payment never came"), st.Customer)}, true
	case KindOutage:
		if now.Sub(e.stepAt) < e.sec(st.Duration) {
			return Item{}, false
		}
		for cid, h := range e.handed {
			if h.offline {
				return Item{Text: fmt.Sprintf(e.pick("Entregou a mercadoria (%s) durante a queda da internet", "Handed the goods over (%s) while the network was down"), e.name(cid))}, true
			}
		}
		return Item{Right: true, Text: e.pick("Esperou a internet voltar sem entregar nada", "Waited for the network without handing anything over")}, true
	case KindBlock:
		if !e.blocked {
			if f.Status != api.StatusCompleted {
				return Item{}, false // the block opens once the charge is paid
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := e.ctl.CreateBlock(cctx, sandbox.BlockRequest{TransactionID: id, BlockType: "med",
				Reason: e.pick("Cliente contestou o pagamento (MED)", "The payer disputed the payment (MED)")})
			cancel()
			if err != nil {
				return Item{}, false // tried again next tick
			}
			e.blocked = true
		}
		if !e.sawBlock {
			return Item{}, false
		}
		return Item{Right: true, Text: fmt.Sprintf(e.pick("Viu o bloqueio MED de %s na aba Bloqueios", "Saw %s's MED block in the Blocks view"), st.Customer)}, true
	case KindRefund:
		if len(*refunded) == 0 {
			return Item{}, false
		}
		got := (*refunded)[0]
		*refunded = (*refunded)[1:]
		if got != id {
			return Item{Text: fmt.Sprintf(e.pick("Devolveu a cobrança errada (%s) em vez da de %s", "Refunded the wrong charge (%s) instead of %s's"), e.name(got), st.Customer)}, true
		}
		if g := facts[got]; g.Refunded < g.Amount {
			return Item{Text: fmt.Sprintf(e.pick("Devolveu só %s dos %s de %s", "Refunded only %s of %s's %s"), e.money(g.Refunded), e.money(g.Amount), st.Customer)}, true
		}
		return Item{Right: true, Text: fmt.Sprintf(e.pick("Devolveu os %s de %s", "Refunded %s to %s"), e.money(f.Amount), st.Customer)}, true
	case KindClose:
		if !e.closed {
			return Item{}, false
		}
		return Item{Right: true, Text: e.pick("Fez o fechamento do dia", "Ran the day's close")}, true
	}
	return Item{}, true
}

// Documents the simulated payers use: a valid CPF and a valid CNPJ.
const (
	payerCPF  = "12345678909"
	payerCNPJ = "11222333000181"
)

// schedule sets what the customer of step st does about their new charge id.
func (e *Engine) schedule(st Step, id string, now time.Time) {
	switch st.Pays {
	case PaysCPF, PaysCNPJ:
		doc := payerCPF
		if st.Pays == PaysCNPJ {
			doc = payerCNPJ
		}
		e.timers = append(e.timers, timer{at: now.Add(e.sec(st.After)), do: func(ctx context.Context) {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if err := e.ctl.Pay(cctx, id, st.Customer, doc); err != nil && ctx.Err() == nil {
				// Paid already or gone (the trainee expired it): nothing to retry.
				_ = err
			}
		}})
	case PaysNever:
		e.timers = append(e.timers, timer{at: now.Add(e.sec(st.GivesUp)), do: func(ctx context.Context) {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_ = e.ctl.Expire(cctx, id) // the customer left; an answered charge stays as it is
		}})
	}
}

// state is the current picture.
func (e *Engine) state() State {
	s := State{Title: e.pick(e.sc.Title, e.sc.TitleEN), Offline: e.net.Down(), Done: e.cur >= len(e.sc.Steps)}
	for i, st := range e.sc.Steps {
		l := Line{Label: e.pick(st.Label, st.LabelEN)}
		switch v := e.verdicts[i]; {
		case v != nil && v.Right:
			l.State = StepRight
		case v != nil:
			l.State = StepMissed
		case i == e.cur:
			l.State = StepNow
			s.Now = e.pick(st.Text, st.TextEN)
		}
		s.Lines = append(s.Lines, l)
	}
	if s.Done {
		for _, v := range e.verdicts {
			if v != nil {
				s.Summary = append(s.Summary, *v)
			}
		}
		s.Summary = append(s.Summary, e.extra...)
	}
	return s
}

// publish sends the state when it changed, replacing one not yet taken.
func (e *Engine) publish() {
	s := e.state()
	if e.last != nil && same(*e.last, s) {
		return
	}
	e.last = &s
	for {
		select {
		case e.updates <- s:
			return
		default:
		}
		select {
		case <-e.updates:
		default:
		}
	}
}

func same(a, b State) bool {
	if a.Now != b.Now || a.Offline != b.Offline || a.Done != b.Done || len(a.Lines) != len(b.Lines) || len(a.Summary) != len(b.Summary) {
		return false
	}
	for i := range a.Lines {
		if a.Lines[i] != b.Lines[i] {
			return false
		}
	}
	return true
}
