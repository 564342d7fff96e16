package sandbox

import (
	"fmt"
	"net"
	"strings"
	"time"

	"pixdash/api"
)

// Permission names used by the routes.
const (
	permFull        = "FULL_ACCESS"
	permPixWrite    = "PIX:WRITE"
	permTxRead      = "TRANSACTION:READ"
	permSubWrite    = "SUBACCOUNT:WRITE"
	permSubRead     = "SUBACCOUNT:READ"
	permAccountRead = "ACCOUNT:READ"
	permBlockRead   = "BALANCE_BLOCK:READ"
	permProjectRead = "PROJECT:READ"
	// permProjectWrite and permWithdrawalWrite guard POST /projects and POST /withdrawals.
	permProjectWrite    = "PROJECT:WRITE"
	permWithdrawalWrite = "WITHDRAWAL:WRITE"
)

// ispb is the (fictional) institution code inside generated end-to-end ids.
const ispb = "99990001"

type account struct {
	id          string
	name        string
	city        string
	env         api.Environment
	pixKey      string
	fee         api.Money
	wdFee       api.Money // withdrawal fee (fixture withdrawal_fee, default the PIX fee)
	blockCNPJ   bool
	selfRouting bool
	quota       int
	wallets     map[string]*wallet // "" is the main wallet
	walletOrder []*wallet          // sub-accounts in creation order
	projects    []*project
	psps        []*psp
	endpoints   []*endpoint
	customers   map[string]string // document -> customer id
	withdrawals map[string]*withdrawal
}

func (a *account) main() *wallet { return a.wallets[""] }

// subAccounts counts the sub-accounts (any status).
func (a *account) subAccounts() int { return len(a.walletOrder) }

type credential struct {
	clientID  string
	secret    api.Secret
	acct      *account
	perms     map[string]bool
	subAccess bool
	allow     []*net.IPNet
	revoked   bool
}

func (c *credential) has(perm string) bool { return perm == "" || c.perms[permFull] || c.perms[perm] }

func (c *credential) allowed(remoteAddr string) bool {
	if len(c.allow) == 0 {
		return true
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil {
		return false
	}
	if ip4 := ip.To4(); ip4 != nil {
		ip = ip4
	}
	for _, n := range c.allow {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

type wallet struct {
	acct      *account
	ref       string // "" for the main account
	id        string
	name      string
	status    api.SubAccountStatus
	createdAt time.Time
	available api.Money
	blocked   api.Money
	promo     api.Money // promotional credit (fixture only; never spent by the emulator)
	balanceAt time.Time // last change of a balance figure (GET /account's updatedAt)
	txs       map[string]*tx
	byExtRef  map[string]*tx
	byIdemKey map[string]*tx
	blocks    []*block
}

// label is the wallet's name on the wire: its reference, or "principal".
func (w *wallet) label() string {
	if w.ref == "" {
		return api.WalletPrincipal
	}
	return w.ref
}

// touch records that a balance figure of w changed at now.
func (w *wallet) touch(now time.Time) {
	if now.After(w.balanceAt) {
		w.balanceAt = now
	}
}

type project struct {
	id, name, color, description, logoURL string
	createdAt, updatedAt                  time.Time
}

type psp struct {
	id, name                      string
	enabled, active, outCap, down bool
}

type endpoint struct {
	id         string
	url        string
	subAccount string // "" for the main account
	secret     string
	createdAt  time.Time
}

type tx struct {
	id          string
	wallet      *wallet
	status      api.TxStatus
	typ         api.TxType
	method      api.PaymentMethod
	amount      api.Money
	description string
	externalRef string
	customerID  string
	projectID   string
	metadata    map[string]any
	copyPaste   string
	expiresAt   time.Time
	paidAt      *time.Time
	e2eID       string
	cpName      string
	cpDoc       string
	failure     string
	blocked     *api.BlockedDeposit
	createdAt   time.Time
	updatedAt   time.Time
	parentID    string // statement link of fee, split and refund lines
	seq         uint64 // creation order

	// Charge-only fields.
	split        []api.SplitItem
	pspCredID    string
	pspPaymentID string
	idemKey      string
	refunded     api.Money
	timer        uint64 // expiry, blocked-refund or refund-confirmation timer, 0 when none

	// Refund-line field.
	pspRefundID string
}

// view renders the transaction as GET /transactions/{id} returns it.
func (t *tx) view() api.Transaction {
	v := api.Transaction{
		ID: t.id, Status: t.status, Type: t.typ, PaymentMethod: t.method, Amount: t.amount, Currency: "BRL",
		Description: t.description, ExternalReference: t.externalRef, CustomerID: t.customerID, ProjectID: t.projectID,
		Metadata: t.metadata, E2EID: t.e2eID, CounterpartName: t.cpName, CounterpartDocument: t.cpDoc,
		FailureReason: t.failure, CreatedAt: t.createdAt.UTC(),
	}
	if t.status == api.StatusPending && t.typ == api.TypePayment {
		v.PixCopyPaste = t.copyPaste
		e := t.expiresAt.UTC()
		v.ExpiresAt = &e
	}
	if t.paidAt != nil {
		p := t.paidAt.UTC()
		v.PaidAt = &p
	}
	if t.blocked != nil {
		bd := *t.blocked
		if t.blocked.Refund != nil {
			r := *t.blocked.Refund
			if r.SettledAt != nil {
				st := r.SettledAt.UTC()
				r.SettledAt = &st
			}
			bd.Refund = &r
		}
		v.BlockedDeposit = &bd
	}
	if !t.updatedAt.IsZero() {
		u := t.updatedAt.UTC()
		v.UpdatedAt = &u
	}
	return v
}

type block struct {
	id, txID         string
	wallet           *wallet
	amount           api.Money
	status           api.BlockStatus
	blockType        string
	referenceNumber  string
	reason           string
	externalRef      string
	e2eID            string
	resolutionReason string
	createdAt        time.Time
	resolvedAt       *time.Time
}

func (b *block) view() api.BalanceBlock {
	v := api.BalanceBlock{
		ID: b.id, TransactionID: b.txID, Amount: b.amount, Status: b.status, BlockType: b.blockType,
		ReferenceNumber: b.referenceNumber, Reason: b.reason, CreatedAt: b.createdAt.UTC(),
		ExternalReference: b.externalRef, E2EID: b.e2eID, ResolutionReason: b.resolutionReason,
	}
	if b.resolvedAt != nil {
		r := b.resolvedAt.UTC()
		v.ResolvedAt = &r
	}
	return v
}

// idemEntry is a cached 201 of POST /pix (charge, without its QR code) or POST /withdrawals (body).
type idemEntry struct {
	hash       string
	charge     api.PixCharge
	withdrawal []byte
	created    time.Time
}

type idemQItem struct {
	key     string
	created time.Time
}

// --- loading the fixture ----------------------------------------------------------------------

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// load builds the accounts of fx and replays their seeded history; s.mu is held.
func (s *Server) load(fx *Fixture) {
	now := s.clock.Now()
	seenIDs := map[string]bool{}
	for i := range fx.Accounts {
		af := &fx.Accounts[i]
		if err := checkAccount(af); err != nil {
			s.log.Warn("sandbox: fixture account skipped", "index", i, "err", err)
			continue
		}
		a := &account{
			id: s.ids.uuid(), name: strings.TrimSpace(af.Name), city: af.City, env: api.Environment(af.Environment),
			pixKey: s.ids.uuid(), blockCNPJ: af.BlockCNPJPayers, selfRouting: af.SelfRouting, quota: af.SubAccountQuota,
			wallets: map[string]*wallet{}, customers: map[string]string{}, withdrawals: map[string]*withdrawal{},
		}
		if strings.TrimSpace(a.city) == "" {
			a.city = DefaultCity
		}
		if af.PixFee != "" {
			a.fee, _ = api.ParseDecimal(af.PixFee)
		}
		a.wdFee = a.fee
		if af.WithdrawalFee != "" {
			a.wdFee, _ = api.ParseDecimal(af.WithdrawalFee)
		}
		a.wallets[""] = newWallet(a, "", a.id, a.name, api.SubAccountApproved, now)
		if af.Promotional != "" {
			a.main().promo, _ = api.ParseDecimal(af.Promotional)
		}
		for j, cf := range af.Credentials {
			if err := checkCredential(cf, a.env); err != nil || seenIDs[cf.ClientID] {
				s.log.Warn("sandbox: fixture credential skipped", "account", a.name, "index", j, "err", err)
				continue
			}
			seenIDs[cf.ClientID] = true
			c := &credential{clientID: cf.ClientID, secret: cf.ClientSecret, acct: a, perms: map[string]bool{},
				subAccess: cf.SubAccountAccess, revoked: cf.Revoked}
			for _, p := range cf.Permissions {
				c.perms[p] = true
			}
			for _, e := range cf.IPAllowlist {
				n, _ := parseAllowEntry(e)
				c.allow = append(c.allow, n)
			}
			s.creds[c.clientID] = c
		}
		for j, sf := range af.SubAccounts {
			if err := checkSubAccount(sf); err != nil || a.wallets[sf.Reference] != nil {
				s.log.Warn("sandbox: fixture sub-account skipped", "account", a.name, "index", j, "err", err)
				continue
			}
			st := api.SubAccountStatus(sf.Status)
			if st == "" {
				st = api.SubAccountApproved
			}
			w := newWallet(a, sf.Reference, s.ids.uuid(), sf.Name, st, now.Add(-72*time.Hour))
			if sf.Promotional != "" {
				w.promo, _ = api.ParseDecimal(sf.Promotional)
			}
			a.wallets[w.ref] = w
			a.walletOrder = append(a.walletOrder, w)
		}
		for j, pf := range af.Projects {
			if err := checkProject(pf); err != nil {
				s.log.Warn("sandbox: fixture project skipped", "account", a.name, "index", j, "err", err)
				continue
			}
			created := now.Add(-time.Duration(30-j) * 24 * time.Hour)
			a.projects = append(a.projects, &project{id: s.ids.uuid(), name: pf.Name, color: pf.Color,
				description: pf.Description, logoURL: pf.LogoURL, createdAt: created, updatedAt: created.Add(time.Duration(j+1) * time.Hour)})
		}
		for j, pf := range af.PSPCredentials {
			if err := checkPSP(pf); err != nil {
				s.log.Warn("sandbox: fixture psp credential skipped", "account", a.name, "index", j, "err", err)
				continue
			}
			a.psps = append(a.psps, &psp{id: strings.ToLower(pf.ID), name: pf.Name, enabled: boolOr(pf.Enabled, true),
				active: boolOr(pf.Active, true), outCap: boolOr(pf.OutCapacity, true), down: pf.Down})
		}
		s.accounts = append(s.accounts, a)
		s.seedHistory(a, af, now)
		s.loadEndpoints(a, af)
	}
}

func newWallet(a *account, ref, id, name string, st api.SubAccountStatus, created time.Time) *wallet {
	return &wallet{acct: a, ref: ref, id: id, name: name, status: st, createdAt: created, balanceAt: created,
		txs: map[string]*tx{}, byExtRef: map[string]*tx{}, byIdemKey: map[string]*tx{}}
}

// --- timers ----------------------------------------------------------------------------------

// after schedules f (run with s.mu held) on the clock; s.mu is held by the caller.
func (s *Server) after(d time.Duration, f func()) uint64 {
	if s.closed {
		return 0
	}
	s.nextTimer++
	id := s.nextTimer
	s.timers[id] = s.clock.AfterFunc(d, func() {
		s.mu.Lock()
		if _, live := s.timers[id]; !live || s.closed {
			s.mu.Unlock()
			return
		}
		delete(s.timers, id)
		f()
		s.mu.Unlock()
		_ = s.save() // logged when it fails; the next change saves again
	})
	return id
}

// cancelTimer stops a timer scheduled by after; s.mu is held.
func (s *Server) cancelTimer(id uint64) {
	if t, ok := s.timers[id]; ok {
		t.Stop()
		delete(s.timers, id)
	}
}

func (s *Server) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * s.scale)
}

// --- money movements (s.mu held) --------------------------------------------------------------

// addLine records a statement line in w and moves its amount into w's available balance.
func (s *Server) addLine(w *wallet, typ api.TxType, amount api.Money, desc, parentID string, now time.Time) *tx {
	t := &tx{id: s.ids.uuid(), wallet: w, status: api.StatusCompleted, typ: typ, method: api.MethodPix,
		amount: amount, description: desc, parentID: parentID, createdAt: now, updatedAt: now}
	s.store(t)
	w.available += amount
	w.touch(now)
	return t
}

func (s *Server) e2e(prefix string, at time.Time) string {
	return prefix + ispb + at.UTC().Format("200601021504") + s.ids.alnum(11)
}

// settle confirms a pending charge: credit, fee, split legs, payment_completed; s.mu is held.
func (s *Server) settle(t *tx, payerName, payerDoc string, now time.Time) {
	w := t.wallet
	a := w.acct
	s.cancelTimer(t.timer)
	t.timer = 0
	t.status = api.StatusCompleted
	paid := now
	t.paidAt = &paid
	t.updatedAt = now
	t.e2eID = s.e2e("E", now)
	t.cpName, t.cpDoc = payerName, payerDoc
	w.available += t.amount
	w.touch(now)
	fee := a.fee
	if fee > 0 {
		s.addLine(w, api.TypeFee, -fee, "Taxa PIX da cobrança "+t.id, t.id, now)
	}
	var distributed []api.SplitItem
	for _, leg := range api.DistributeSplit(t.split, api.SplitNet(t.amount, fee)) {
		dest := a.wallets[leg.SubAccount]
		if leg.SubAccount == api.WalletPrincipal {
			dest = a.main()
		}
		if dest == nil {
			// The destination vanished after validation (not possible today): keep the money.
			continue
		}
		out := "Split enviado para " + leg.SubAccount
		if dest.ref == "" {
			out = "Split enviado para a conta principal"
		}
		s.addLine(w, api.TypeInternalTransfer, -leg.Amount, out, t.id, now)
		s.addLine(dest, api.TypeInternalTransfer, leg.Amount, "Split recebido do pagamento "+t.id, t.id, now)
		distributed = append(distributed, leg)
	}
	d := chargeData(t, fee)
	d.Split = distributed
	s.emit(w, api.EventPaymentCompleted, d, now)
}

// failBlocked refuses a CNPJ deposit: failed, no credit, no fee, refund pending; s.mu is held.
func (s *Server) failBlocked(t *tx, payerName, payerDoc string, now time.Time) {
	s.cancelTimer(t.timer)
	t.timer = 0
	t.status = api.StatusFailed
	t.updatedAt = now
	t.e2eID = s.e2e("E", now)
	t.cpName, t.cpDoc = payerName, payerDoc
	t.failure = "Depósito recusado: a conta não aceita pagamentos de pessoa jurídica (CNPJ); o valor será devolvido ao pagador"
	t.blocked = &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundPending}}
	d := chargeData(t, 0)
	bd := *t.blocked
	r := *bd.Refund
	bd.Refund = &r
	d.BlockedDeposit = &bd
	s.emit(t.wallet, api.EventPaymentFailed, d, now)
}

// confirmBlockedRefund settles the return of a blocked deposit; s.mu is held.
func (s *Server) confirmBlockedRefund(t *tx, now time.Time) {
	t.timer = 0
	if t.blocked == nil || t.blocked.Refund == nil || t.blocked.Refund.Status != api.RefundPending {
		return
	}
	e := s.e2e("D", now)
	at := now
	t.blocked.Refund = &api.Refund{Status: api.RefundConfirmed, E2EID: &e, SettledAt: &at}
	t.updatedAt = now
}

// expire cancels a pending charge that reached expiresAt (or was forced); s.mu is held.
func (s *Server) expire(t *tx, now time.Time) {
	s.cancelTimer(t.timer)
	t.timer = 0
	t.status = api.StatusCancelled
	t.updatedAt = now
	s.emit(t.wallet, api.EventPaymentExpired, chargeData(t, 0), now)
}

// armExpiry schedules the charge's expiry on the clock; s.mu is held.
func (s *Server) armExpiry(t *tx, now time.Time) {
	id := t.id
	t.timer = s.after(t.expiresAt.Sub(now), func() {
		if cur := s.txs[id]; cur != nil && cur.status == api.StatusPending {
			cur.timer = 0
			s.expire(cur, s.clock.Now())
		}
	})
}

// expireDue expires t if its time has come but its timer has not fired yet (fake clocks); s.mu is held.
func (s *Server) expireDue(t *tx, now time.Time) {
	if t.typ == api.TypePayment && t.status == api.StatusPending && !now.Before(t.expiresAt) {
		s.expire(t, now)
	}
}

// refundProblem says why charge t cannot be refunded now ("" when it can); s.mu is held.
func refundProblem(t *tx) string {
	switch {
	case t.typ != api.TypePayment || t.status != api.StatusCompleted:
		return "Only completed payments can be refunded"
	case t.amount-t.refunded <= 0:
		return "Transaction already refunded"
	}
	return ""
}

// startRefund returns amount of completed charge t to its payer: the refund line is recorded
// (pending) and amount plus the refund fee leave the originator only (it may go negative);
// confirmRefund settles it. s.mu is held.
func (s *Server) startRefund(t *tx, amount api.Money, now time.Time) *tx {
	w := t.wallet
	line := s.addLine(w, api.TypeRefund, -amount, "Estorno da cobrança "+t.id, t.id, now)
	line.status = api.StatusPending
	line.cpName, line.cpDoc = t.cpName, t.cpDoc
	line.pspRefundID = "ref_" + s.ids.hex(24)
	if refundFee > 0 {
		s.addLine(w, api.TypeFee, -refundFee, "Taxa de estorno da cobrança "+t.id, t.id, now)
	}
	t.refunded += amount
	t.updatedAt = now
	return line
}

// confirmRefund settles a pending refund line: completed, e2eId of the return, refund_completed.
// s.mu is held.
func (s *Server) confirmRefund(line *tx, now time.Time) {
	if line.status != api.StatusPending {
		return
	}
	line.timer = 0
	line.status = api.StatusCompleted
	line.e2eID = s.e2e("D", now)
	line.updatedAt = now
	d := &refundEventData{ID: line.id, TransactionID: line.parentID, OriginalTransactionID: line.parentID,
		Amount: -line.amount, NetAmount: -line.amount, FeeAmount: refundFee, Status: string(api.StatusCompleted), E2EID: line.e2eID}
	s.emit(line.wallet, api.EventRefundCompleted, d, now)
}

// refund returns amount of a completed charge at once (control endpoint, seeds); s.mu is held.
func (s *Server) refund(t *tx, amount api.Money, now time.Time) *tx {
	line := s.startRefund(t, amount, now)
	s.confirmRefund(line, now)
	return line
}

// refundFee is what a refund costs the merchant on top of the refunded amount.
const refundFee api.Money = 0

// newBlock holds amount of t's wallet under a balance block; s.mu is held.
func (s *Server) newBlock(t *tx, amount api.Money, blockType, reason string, now time.Time) *block {
	w := t.wallet
	prefix := map[string]string{api.BlockTypeMED: "MED", api.BlockTypeJudicial: "JUD", api.BlockTypeAdministrative: "ADM"}[blockType]
	b := &block{id: s.ids.uuid(), txID: t.id, wallet: w, amount: amount, status: api.BlockAwaitingResponse,
		blockType: blockType, reason: reason, externalRef: t.externalRef, e2eID: t.e2eID, createdAt: now,
		referenceNumber: fmt.Sprintf("%s-%s-%s", prefix, now.UTC().Format("20060102"), s.ids.digits(6))}
	w.available -= amount
	w.blocked += amount
	w.touch(now)
	w.blocks = append(w.blocks, b)
	s.blocks[b.id] = b
	s.emit(w, api.EventBalanceBlockCreated, b.view(), now)
	return b
}

// resolveBlock moves a block to status; approved keeps the debit (money to the payer), rejected releases it.
func (s *Server) resolveBlock(b *block, status api.BlockStatus, reason string, now time.Time) {
	w := b.wallet
	b.status = status
	if reason != "" {
		b.resolutionReason = reason
	}
	switch status {
	case api.BlockApproved:
		w.blocked -= b.amount
		w.touch(now)
		at := now
		b.resolvedAt = &at
		s.emit(w, api.EventBalanceBlockApproved, b.view(), now)
	case api.BlockRejected:
		w.blocked -= b.amount
		w.available += b.amount
		w.touch(now)
		at := now
		b.resolvedAt = &at
		s.emit(w, api.EventBalanceBlockRejected, b.view(), now)
	}
}

// blockTransition reports whether a block may move from cur to next.
func blockTransition(cur, next api.BlockStatus) bool {
	switch cur {
	case api.BlockAwaitingResponse:
		return next == api.BlockDefended || next == api.BlockApproved || next == api.BlockRejected
	case api.BlockDefended:
		return next == api.BlockApproved || next == api.BlockRejected
	}
	return false
}

// Format prints a credential without its secret, for every verb.
func (c credential) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "credential{%s}", c.clientID)
}

// Format prints an endpoint without its signing secret, for every verb.
func (e endpoint) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "endpoint{%s %s}", e.id, e.url)
}
