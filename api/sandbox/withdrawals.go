package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"pixdash/api"
	"pixdash/api/brdoc"
)

// Delays on the emulator clock (multiplied by WithWebhookScale, like the other delays).
const (
	// WithdrawalDelay is how long a withdrawal stays pending before it completes on its own.
	WithdrawalDelay = 3 * time.Second
	// RefundConfirmDelay is how long a refund asked through POST /transactions/{id}/refund stays
	// pending before refund_completed.
	RefundConfirmDelay = 3 * time.Second
)

// Failure reasons the emulator writes when the caller gives none.
const (
	defaultWithdrawalFailure  = "Saque recusado pela instituição de pagamento (simulação)"
	defaultWithdrawalReversal = "Saque devolvido pela instituição de pagamento (simulação)"
)

// pspProvider is the institution name POST /transactions/{id}/refund reports.
const pspProvider = "sandbox"

// maxWithdrawalText bounds the text fields of a withdrawal (the service's bounds are not documented).
const maxWithdrawalText = api.MaxWithdrawalText

// withdrawal is a PIX withdrawal; its statement transaction (same id, type withdrawal, amount
// -gross) exists from creation, pending until the outcome.
type withdrawal struct {
	id            string
	wallet        *wallet
	tx            *tx
	projectID     string
	amount        api.Money // gross, debited at creation
	fee           api.Money
	net           api.Money // what the recipient receives
	status        api.WithdrawalStatus
	pixKey        string
	pixKeyType    api.PixKeyType
	holderName    string
	holderDoc     string
	holderDocType api.DocumentType
	failure       string
	pspRef        string
	externalRef   string
	createdAt     time.Time
	processedAt   *time.Time
	timer         uint64
}

// withdrawalBody is the 201 body of POST /withdrawals; absent values are null, as the service sends.
type withdrawalBody struct {
	ID                     string               `json:"id"`
	ProjectID              *string              `json:"projectId"`
	Amount                 api.Money            `json:"amount"`
	FeeAmount              api.Money            `json:"feeAmount"`
	NetAmount              api.Money            `json:"netAmount"`
	Status                 api.WithdrawalStatus `json:"status"`
	SnapshotPixKey         string               `json:"snapshotPixKey"`
	SnapshotPixKeyType     api.PixKeyType       `json:"snapshotPixKeyType"`
	SnapshotHolderName     string               `json:"snapshotHolderName"`
	SnapshotHolderDocument string               `json:"snapshotHolderDocument"`
	FailureReason          *string              `json:"failureReason"`
	PspReference           *string              `json:"pspReference"`
	CreatedAt              string               `json:"createdAt"`
	ProcessedAt            *string              `json:"processedAt"`
	ExternalReference      *string              `json:"externalReference"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (wd *withdrawal) body() withdrawalBody {
	b := withdrawalBody{ID: wd.id, ProjectID: optString(wd.projectID), Amount: wd.amount, FeeAmount: wd.fee,
		NetAmount: wd.net, Status: wd.status, SnapshotPixKey: wd.pixKey, SnapshotPixKeyType: wd.pixKeyType,
		SnapshotHolderName: wd.holderName, SnapshotHolderDocument: wd.holderDoc, FailureReason: optString(wd.failure),
		PspReference: optString(wd.pspRef), CreatedAt: wd.createdAt.UTC().Format(timeLayout),
		ExternalReference: optString(wd.externalRef)}
	if wd.processedAt != nil {
		b.ProcessedAt = optString(wd.processedAt.UTC().Format(timeLayout))
	}
	return b
}

func (wd *withdrawal) eventData() *withdrawalEventData {
	d := &withdrawalEventData{ID: wd.id, WithdrawalID: wd.id, Amount: wd.amount, FeeAmount: wd.fee, NetAmount: wd.net,
		Status: string(wd.status), FailureReason: wd.failure, ExternalReference: wd.externalRef, PspReference: wd.pspRef}
	if wd.processedAt != nil {
		p := wd.processedAt.UTC()
		d.ProcessedAt = &p
	}
	return d
}

// withdrawalFigures returns gross, fee and net of a request: with netAmount the gross is net
// plus the fee; with amount (gross) the net is what is left after the fee, which must be positive.
func withdrawalFigures(r *api.CreateWithdrawalRequest, fee api.Money) (gross, net api.Money, p *api.FieldProblem) {
	if r.NetAmount != nil {
		return *r.NetAmount + fee, *r.NetAmount, nil
	}
	gross = *r.Amount
	if gross <= fee {
		return 0, 0, &api.FieldProblem{Field: api.FieldAmount, Msg: "amount must be greater than the withdrawal fee of " + fee.Decimal()}
	}
	return gross, gross - fee, nil
}

// newWithdrawal debits gross from w at once and records the withdrawal pending; it completes
// on its own after WithdrawalDelay unless an outcome is forced first. s.mu is held.
func (s *Server) newWithdrawal(w *wallet, r *api.CreateWithdrawalRequest, gross, net api.Money, projectID, idemKey string, now time.Time) *withdrawal {
	a := w.acct
	wd := &withdrawal{id: s.ids.uuid(), wallet: w, projectID: projectID, amount: gross, fee: gross - net, net: net,
		status: api.WithdrawalPending, pixKey: r.PixKey, pixKeyType: r.PixKeyType, holderName: r.HolderName,
		holderDoc: r.HolderDocument, holderDocType: r.HolderDocumentType, externalRef: r.ExternalReference, createdAt: now}
	t := &tx{id: wd.id, wallet: w, status: api.StatusPending, typ: api.TypeWithdrawal, method: api.MethodPix,
		amount: -gross, description: "Saque PIX para " + wd.holderName, externalRef: wd.externalRef, projectID: projectID,
		cpName: wd.holderName, cpDoc: wd.holderDoc, createdAt: now, updatedAt: now, idemKey: idemKey}
	wd.tx = t
	s.store(t)
	if idemKey != "" {
		w.byIdemKey[idemKey] = t
	}
	w.available -= gross
	w.touch(now)
	a.withdrawals[wd.id] = wd
	id := wd.id
	wd.timer = s.after(s.scaled(WithdrawalDelay), func() {
		if cur := a.withdrawals[id]; cur != nil {
			cur.timer = 0
			s.completeWithdrawal(cur, s.clock.Now())
		}
	})
	return wd
}

// completeWithdrawal settles a pending withdrawal: completed, processedAt, pspReference (the
// end-to-end id), withdrawal_completed. s.mu is held.
func (s *Server) completeWithdrawal(wd *withdrawal, now time.Time) bool {
	if wd.status != api.WithdrawalPending {
		return false
	}
	s.cancelTimer(wd.timer)
	wd.timer = 0
	wd.status = api.WithdrawalCompleted
	at := now
	wd.processedAt = &at
	wd.pspRef = s.e2e("E", now)
	t := wd.tx
	t.status, t.e2eID, t.updatedAt = api.StatusCompleted, wd.pspRef, now
	paid := now
	t.paidAt = &paid
	s.emit(wd.wallet, api.EventWithdrawalCompleted, wd.eventData(), now)
	return true
}

// failWithdrawal refuses a pending withdrawal: the gross returns to the wallet, withdrawal_failed.
// s.mu is held.
func (s *Server) failWithdrawal(wd *withdrawal, reason string, now time.Time) bool {
	if wd.status != api.WithdrawalPending {
		return false
	}
	s.cancelTimer(wd.timer)
	wd.timer = 0
	if reason == "" {
		reason = defaultWithdrawalFailure
	}
	wd.status, wd.failure = api.WithdrawalFailed, reason
	at := now
	wd.processedAt = &at
	wd.wallet.available += wd.amount
	wd.wallet.touch(now)
	t := wd.tx
	t.status, t.failure, t.updatedAt = api.StatusFailed, reason, now
	s.emit(wd.wallet, api.EventWithdrawalFailed, wd.eventData(), now)
	return true
}

// reverseWithdrawal returns a completed withdrawal (the institution sent it back): the gross
// returns to the wallet, the transaction ends failed, withdrawal_reversed. s.mu is held.
func (s *Server) reverseWithdrawal(wd *withdrawal, reason string, now time.Time) bool {
	if wd.status != api.WithdrawalCompleted {
		return false
	}
	if reason == "" {
		reason = defaultWithdrawalReversal
	}
	wd.status, wd.failure = api.WithdrawalReversed, reason
	wd.wallet.available += wd.amount
	wd.wallet.touch(now)
	t := wd.tx
	t.status, t.failure, t.updatedAt = api.StatusFailed, reason, now
	s.emit(wd.wallet, api.EventWithdrawalReversed, wd.eventData(), now)
	return true
}

// withdrawalWire is POST /withdrawals's body with the amounts kept raw.
type withdrawalWire struct {
	PixKey             *string         `json:"pixKey"`
	PixKeyType         *string         `json:"pixKeyType"`
	HolderName         *string         `json:"holderName"`
	HolderDocument     *string         `json:"holderDocument"`
	HolderDocumentType *string         `json:"holderDocumentType"`
	Amount             json.RawMessage `json:"amount"`
	NetAmount          json.RawMessage `json:"netAmount"`
	ProjectID          *string         `json:"projectId"`
	ExternalReference  *string         `json:"externalReference"`
}

// parseWithdrawal checks POST /withdrawals's body: the wire forms, then api.CheckCreateWithdrawal,
// the text lengths and the holder document's digit count for its type. Every problem is returned.
func parseWithdrawal(body []byte) (*api.CreateWithdrawalRequest, []api.FieldProblem) {
	var b withdrawalWire
	if p := decodeObject(body, &b); p != nil {
		return nil, []api.FieldProblem{*p}
	}
	var ps []api.FieldProblem
	bad := map[string]bool{}
	add := func(field, msg string) {
		ps = append(ps, api.FieldProblem{Field: field, Msg: msg})
		bad[field] = true
	}
	r := &api.CreateWithdrawalRequest{}
	str := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	str(&r.PixKey, b.PixKey)
	str((*string)(&r.PixKeyType), b.PixKeyType)
	str(&r.HolderName, b.HolderName)
	str(&r.HolderDocument, b.HolderDocument)
	str((*string)(&r.HolderDocumentType), b.HolderDocumentType)
	str(&r.ProjectID, b.ProjectID)
	str(&r.ExternalReference, b.ExternalReference)
	for _, m := range []struct {
		field string
		raw   json.RawMessage
		dst   **api.Money
	}{{api.FieldAmount, b.Amount, &r.Amount}, {api.FieldNetAmount, b.NetAmount, &r.NetAmount}} {
		if isNull(m.raw) {
			continue
		}
		v, msg := parseAmount(m.raw, m.field)
		if msg != "" {
			add(m.field, msg)
			continue
		}
		*m.dst = &v
	}
	for _, pr := range api.CheckCreateWithdrawal(r) {
		if !bad[pr.Field] {
			ps = append(ps, pr)
			bad[pr.Field] = true
		}
	}
	if !bad[api.FieldPixKey] && (r.PixKeyType == api.PixKeyCPF || r.PixKeyType == api.PixKeyCNPJ) {
		// A document key is checked as the dashboard checks it (api/brdoc) and kept compact.
		if k, err := brdoc.PixKey(brdoc.KeyType(r.PixKeyType), r.PixKey); err != nil {
			add(api.FieldPixKey, fmt.Sprintf("pixKey must be a valid %s: %s", strings.ToUpper(string(r.PixKeyType)), err))
		} else {
			r.PixKey = k
		}
	}
	for _, f := range []struct{ field, v string }{{api.FieldPixKey, r.PixKey}, {api.FieldHolderName, r.HolderName}} {
		if !bad[f.field] && utf8.RuneCountInString(f.v) > maxWithdrawalText {
			add(f.field, f.field+" must be shorter than or equal to 255 characters")
		}
	}
	if !bad[api.FieldHolderDocument] && !bad[api.FieldHolderDocumentType] {
		// The dashboard's check (api/brdoc): a CNPJ may be alphanumeric since July 2026.
		check, kind := brdoc.CheckCPF, "a CPF of 11 digits"
		if r.HolderDocumentType == api.DocumentCNPJ {
			check, kind = brdoc.CheckCNPJ, "a CNPJ of 14 characters"
		}
		d, err := check(r.HolderDocument)
		switch {
		case errors.Is(err, brdoc.ErrNotCPF) || errors.Is(err, brdoc.ErrNotCNPJ) || errors.Is(err, brdoc.ErrCharacters):
			add(api.FieldHolderDocument, "holderDocument must be "+kind)
		case err != nil:
			add(api.FieldHolderDocument, "holderDocument: "+err.Error())
		}
		r.HolderDocument = d
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return r, nil
}

// handleCreateWithdrawal serves POST /withdrawals (Idempotency-Key as POST /pix): checks, fee
// (netAmount mode: gross = net + fee), spendable balance, then the gross leaves the wallet at
// once and the withdrawal answers 201 pending.
func (s *Server) handleCreateWithdrawal(c *call) {
	body, key, ikey, hash, ok := s.idempotentBody(c, "withdrawals")
	if !ok {
		return
	}
	hasKey := key != ""
	r, ps := parseWithdrawal(body)
	if len(ps) > 0 {
		c.validation(ps)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if hasKey {
		if e := s.idemFind(ikey, now); e != nil {
			s.idemAnswer(c, e, hash) // a concurrent retry with the same key won the race
			return
		}
	}
	a, w := c.acct, c.wallet
	gross, net, p := withdrawalFigures(r, a.wdFee)
	if p != nil {
		c.validation([]api.FieldProblem{*p})
		return
	}
	projectID, ok := c.projectOf(a, r.ProjectID)
	if !ok {
		return
	}
	if gross > spendable(w) {
		c.badRequest(insufficientBalance(w, gross))
		return
	}
	wd := s.newWithdrawal(w, r, gross, net, projectID, key, now)
	b, err := json.Marshal(wd.body())
	if err != nil {
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return
	}
	if hasKey {
		s.idemStore(ikey, &idemEntry{hash: hash, withdrawal: b, created: now})
	}
	c.raw(http.StatusCreated, b)
}

// spendable is what w may withdraw: its available balance, which in the emulator already has
// any open chargeback debt (refunds and approved blocks beyond the balance) subtracted.
func spendable(w *wallet) api.Money { return max(w.available, 0) }

func insufficientBalance(w *wallet, need api.Money) string {
	return fmt.Sprintf("Insufficient balance: spendable %s, required %s", spendable(w).Decimal(), need.Decimal())
}

// withdrawalOf finds a withdrawal of the caller's account (any wallet); nil when unknown. s.mu is held.
func withdrawalOf(c *call, id string) *withdrawal {
	return c.acct.withdrawals[id]
}

// handleWithdrawalOutcome serves the control endpoints that force a withdrawal's outcome.
func (s *Server) handleWithdrawalOutcome(c *call, verb string, apply func(wd *withdrawal, reason string, now time.Time) bool) {
	reason, ok := c.optionalReason(maxWithdrawalText)
	if !ok {
		return
	}
	reason = strings.TrimSpace(reason)
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	wd := withdrawalOf(c, id)
	if wd == nil {
		c.notFound(resWithdrawal, id)
		return
	}
	if !apply(wd, reason, s.clock.Now()) {
		c.conflict(fmt.Sprintf("Withdrawal %s is %s and cannot be %s", wd.id, wd.status, verb))
		return
	}
	c.json(http.StatusOK, wd.body())
}

// handleCompleteWithdrawal serves POST /_sandbox/withdrawals/{id}/complete (pending only).
func (s *Server) handleCompleteWithdrawal(c *call) {
	s.handleWithdrawalOutcome(c, "completed", func(wd *withdrawal, _ string, now time.Time) bool {
		return s.completeWithdrawal(wd, now)
	})
}

// handleFailWithdrawal serves POST /_sandbox/withdrawals/{id}/fail (pending only; money returned).
func (s *Server) handleFailWithdrawal(c *call) {
	s.handleWithdrawalOutcome(c, "failed", s.failWithdrawal)
}

// handleReverseWithdrawal serves POST /_sandbox/withdrawals/{id}/reverse (completed only; money returned).
func (s *Server) handleReverseWithdrawal(c *call) {
	s.handleWithdrawalOutcome(c, "reversed", s.reverseWithdrawal)
}

// refundBody is the 201 reply of POST /transactions/{id}/refund.
type refundBody struct {
	OriginalTransactionID  string `json:"originalTransactionId"`
	PspProvider            string `json:"pspProvider"`
	PspRefundTransactionID string `json:"pspRefundTransactionId"`
	Status                 string `json:"status"`
}

// handleRefundTransaction serves POST /transactions/{id}/refund: the whole remaining amount of a
// completed payment of the wallet, if the originator can pay it (amount + refund fee within its
// spendable balance); answered PENDING, confirmed with refund_completed RefundConfirmDelay later.
func (s *Server) handleRefundTransaction(c *call) {
	reason, ok := c.optionalReason(api.MaxRefundReason)
	if !ok {
		return
	}
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	t := c.wallet.lookup(id)
	if t == nil {
		c.notFound(resTransaction, id)
		return
	}
	now := s.clock.Now()
	s.expireDue(t, now)
	if msg := refundProblem(t); msg != "" {
		c.badRequest(msg)
		return
	}
	amount := t.amount - t.refunded
	if need := amount + refundFee; need > spendable(t.wallet) {
		c.badRequest(insufficientBalance(t.wallet, need))
		return
	}
	line := s.startRefund(t, amount, now)
	if reason != "" {
		line.metadata = map[string]any{"reason": reason}
	}
	lineID := line.id
	line.timer = s.after(s.scaled(RefundConfirmDelay), func() {
		if cur := s.txs[lineID]; cur != nil {
			s.confirmRefund(cur, s.clock.Now())
		}
	})
	c.json(http.StatusCreated, refundBody{OriginalTransactionID: t.id, PspProvider: pspProvider,
		PspRefundTransactionID: line.pspRefundID, Status: string(api.RefundRequestPending)})
}

// optionalReason reads an optional body {"reason"?} of at most maxLen characters; on a bad body
// it answers 400 and reports false.
func (c *call) optionalReason(maxLen int) (string, bool) {
	var req struct {
		Reason *string `json:"reason"`
	}
	if !c.decodeOptional(&req) {
		return "", false
	}
	if req.Reason == nil {
		return "", true
	}
	if utf8.RuneCountInString(*req.Reason) > maxLen {
		c.invalid("reason", fmt.Sprintf("reason must be shorter than or equal to %d characters", maxLen))
		return "", false
	}
	return *req.Reason, true
}
