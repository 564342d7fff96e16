package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"pixdash/api"
	"pixdash/api/brdoc"
)

// Default payer of POST /_sandbox/charges/{id}/pay.
const (
	DefaultPayerName     = "Pagador Sandbox"
	DefaultPayerDocument = "12345678909"
)

// decodeOptional decodes a control body that may be empty.
func (c *call) decodeOptional(v any) bool {
	body, ok := c.readBody()
	if !ok {
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	return c.decodeObject(body, v)
}

// chargeOf finds a PIX charge of the caller's account (any wallet); nil when unknown.
func (s *Server) chargeOf(c *call, id string) *tx {
	t := s.txs[id]
	if t == nil || t.wallet.acct != c.acct || t.typ != api.TypePayment {
		return nil
	}
	return t
}

func (s *Server) handlePay(c *call) {
	var req struct {
		PayerName     *string `json:"payerName"`
		PayerDocument *string `json:"payerDocument"`
	}
	if !c.decodeOptional(&req) {
		return
	}
	name, doc := DefaultPayerName, DefaultPayerDocument
	if req.PayerName != nil && strings.TrimSpace(*req.PayerName) != "" {
		name = strings.TrimSpace(*req.PayerName)
		if utf8.RuneCountInString(name) > 255 {
			c.badRequest("payerName must be shorter than or equal to 255 characters")
			return
		}
	}
	if req.PayerDocument != nil && *req.PayerDocument != "" {
		// The same check as the dashboard's (api/brdoc): a CPF, or a CNPJ numeric or alphanumeric.
		_, d, err := brdoc.Document(*req.PayerDocument)
		if err != nil {
			c.badRequest("payerDocument must be a CPF (11 digits) or a CNPJ (14 characters): " + err.Error())
			return
		}
		doc = d
	}
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.chargeOf(c, id)
	if t == nil {
		c.notFound(resTransaction, id)
		return
	}
	now := s.clock.Now()
	s.expireDue(t, now)
	if t.status != api.StatusPending {
		c.conflict(fmt.Sprintf("Charge %s is %s: only pending charges can be paid", t.id, t.status))
		return
	}
	if len(doc) == brdoc.CNPJLen && t.wallet.acct.blockCNPJ {
		s.failBlocked(t, name, doc, now)
		txID := t.id
		t.timer = s.after(s.scaled(BlockedRefundDelay), func() {
			if cur := s.txs[txID]; cur != nil {
				s.confirmBlockedRefund(cur, s.clock.Now())
			}
		})
	} else {
		s.settle(t, name, doc, now)
	}
	c.json(http.StatusOK, t.view())
}

func (s *Server) handleExpire(c *call) {
	if !c.decodeOptional(&struct{}{}) {
		return
	}
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.chargeOf(c, id)
	if t == nil {
		c.notFound(resTransaction, id)
		return
	}
	if t.status != api.StatusPending {
		c.conflict(fmt.Sprintf("Charge %s is %s: only pending charges can expire", t.id, t.status))
		return
	}
	s.expire(t, s.clock.Now())
	c.json(http.StatusOK, t.view())
}

func (s *Server) handleRefund(c *call) {
	var req struct {
		Amount json.RawMessage `json:"amount"`
	}
	if !c.decodeOptional(&req) {
		return
	}
	amount, hasAmount, ok := c.optionalAmount(req.Amount)
	if !ok {
		return
	}
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.chargeOf(c, id)
	if t == nil {
		c.notFound(resTransaction, id)
		return
	}
	if msg := refundProblem(t); msg != "" {
		c.conflict(fmt.Sprintf("Transaction %s: %s", t.id, msg))
		return
	}
	left := t.amount - t.refunded
	if !hasAmount {
		amount = left
	}
	if amount > left {
		c.badRequest("amount must not be greater than " + left.Decimal() + " (what is left to refund)")
		return
	}
	line := s.refund(t, amount, s.clock.Now())
	c.json(http.StatusCreated, line.view())
}

func (s *Server) handleCreateBlock(c *call) {
	var req struct {
		TransactionID *string         `json:"transactionId"`
		Amount        json.RawMessage `json:"amount"`
		BlockType     *string         `json:"blockType"`
		Reason        *string         `json:"reason"`
	}
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &req) {
		return
	}
	if req.TransactionID == nil || *req.TransactionID == "" {
		c.badRequest("transactionId is required")
		return
	}
	blockType := api.BlockTypeMED
	if req.BlockType != nil && *req.BlockType != "" {
		blockType = *req.BlockType
		if !knownBlockType(blockType) {
			c.badRequest("blockType must be one of the following values: med, judicial, administrative")
			return
		}
	}
	reason := "Bloqueio cautelar (sandbox)"
	if req.Reason != nil && strings.TrimSpace(*req.Reason) != "" {
		reason = strings.TrimSpace(*req.Reason)
		if utf8.RuneCountInString(reason) > 255 {
			c.badRequest("reason must be shorter than or equal to 255 characters")
			return
		}
	}
	amount, hasAmount, ok := c.optionalAmount(req.Amount)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.chargeOf(c, *req.TransactionID)
	if t == nil {
		c.notFound(resTransaction, *req.TransactionID)
		return
	}
	if t.status != api.StatusCompleted {
		c.conflict(fmt.Sprintf("Transaction %s is %s: only completed payments can be blocked", t.id, t.status))
		return
	}
	if !hasAmount {
		amount = t.amount
	}
	if amount > t.amount {
		c.badRequest("amount must not be greater than the transaction amount " + t.amount.Decimal())
		return
	}
	b := s.newBlock(t, amount, blockType, reason, s.clock.Now())
	c.json(http.StatusCreated, b.view())
}

func (s *Server) handleResolveBlock(c *call) {
	var req struct {
		Status           *string `json:"status"`
		ResolutionReason *string `json:"resolutionReason"`
	}
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &req) {
		return
	}
	var status api.BlockStatus
	if req.Status != nil {
		status = api.BlockStatus(*req.Status)
	}
	if status != api.BlockDefended && status != api.BlockApproved && status != api.BlockRejected {
		c.badRequest("status must be one of the following values: defended, approved, rejected")
		return
	}
	reason := ""
	if req.ResolutionReason != nil {
		reason = strings.TrimSpace(*req.ResolutionReason)
		if utf8.RuneCountInString(reason) > 255 {
			c.badRequest("resolutionReason must be shorter than or equal to 255 characters")
			return
		}
	}
	id := c.params[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.blocks[id]
	if b == nil || b.wallet.acct != c.acct {
		c.notFound(resBalanceBlock, id)
		return
	}
	if !blockTransition(b.status, status) {
		c.conflict(fmt.Sprintf("Balance block %s is %s and cannot become %s", b.id, b.status, status))
		return
	}
	s.resolveBlock(b, status, reason, s.clock.Now())
	c.json(http.StatusOK, b.view())
}

func (s *Server) handleSetFee(c *call) {
	var req struct {
		PixFee        json.RawMessage `json:"pixFee"`
		WithdrawalFee json.RawMessage `json:"withdrawalFee"`
	}
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &req) {
		return
	}
	if isNull(req.PixFee) && isNull(req.WithdrawalFee) {
		c.badRequest("pixFee is required")
		return
	}
	var fees [2]*api.Money
	for i, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"pixFee", req.PixFee}, {"withdrawalFee", req.WithdrawalFee}} {
		if isNull(f.raw) {
			continue
		}
		fee, ok := c.feeValue(f.name, f.raw)
		if !ok {
			return
		}
		fees[i] = &fee
	}
	s.mu.Lock()
	if fees[0] != nil {
		c.acct.fee = *fees[0]
	}
	if fees[1] != nil {
		c.acct.wdFee = *fees[1]
	}
	reply := FeeRequest{PixFee: c.acct.fee.Decimal(), WithdrawalFee: c.acct.wdFee.Decimal()}
	s.mu.Unlock()
	c.json(http.StatusOK, reply)
}

// feeValue reads a fee given as a decimal string ("1.50") or a JSON number; ok is false after a 400.
func (c *call) feeValue(name string, raw json.RawMessage) (api.Money, bool) {
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			c.badRequest(name + " must be a decimal string such as \"1.50\"")
			return 0, false
		}
		raw = []byte(strings.TrimSpace(str))
	}
	fee, msg := parseAmount(raw, name)
	if msg != "" {
		c.badRequest(msg)
		return 0, false
	}
	if fee < 0 {
		c.badRequest(name + " must not be negative")
		return 0, false
	}
	return fee, true
}

func validHookURL(s string) bool {
	if len(s) > 2048 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

func (s *Server) handleDeliveries(c *call) {
	items := s.deliv.list(c.acct.id)
	c.json(http.StatusOK, listBody[Delivery]{Items: items, Total: len(items)})
}

func (s *Server) handleWallets(c *call) {
	s.mu.Lock()
	a := c.acct
	items := []Wallet{walletView(a.main())}
	for _, w := range a.walletOrder {
		items = append(items, walletView(w))
	}
	s.mu.Unlock()
	c.json(http.StatusOK, listBody[Wallet]{Items: items, Total: len(items)})
}

func walletView(w *wallet) Wallet {
	return Wallet{SubAccount: w.label(), ID: w.id, Name: w.name, Status: w.status, Available: w.available, Blocked: w.blocked, Currency: "BRL"}
}

// Snapshot of the recipient of POST /_sandbox/withdrawals.
const (
	controlWithdrawalKey    = "destino@sandbox.example"
	controlWithdrawalHolder = "Conta de destino (sandbox)"
)

// handleWithdraw serves POST /_sandbox/withdrawals: a withdrawal of amount (gross, the account's
// withdrawal fee included) from a wallet, to a fixed recipient, with its outcome applied at once.
func (s *Server) handleWithdraw(c *call) {
	var req struct {
		Amount     json.RawMessage `json:"amount"`
		SubAccount *string         `json:"subAccount"`
		Outcome    *string         `json:"outcome"`
	}
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &req) {
		return
	}
	if isNull(req.Amount) {
		c.invalid(api.FieldAmount, "amount is required")
		return
	}
	amount, msg := parseAmount(req.Amount, "amount")
	if msg != "" {
		c.invalid(api.FieldAmount, msg)
		return
	}
	if amount < api.Centavo {
		c.invalid(api.FieldAmount, "amount must not be less than 0.01")
		return
	}
	outcome := WithdrawalCompleted
	if req.Outcome != nil && *req.Outcome != "" {
		outcome = *req.Outcome
	}
	if outcome != WithdrawalCompleted && outcome != WithdrawalFailed && outcome != WithdrawalReversed {
		c.invalid("outcome", "outcome must be one of the following values: completed, failed, reversed")
		return
	}
	ref := ""
	if req.SubAccount != nil && *req.SubAccount != api.WalletPrincipal {
		ref = *req.SubAccount
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := c.acct.wallets[ref]
	if w == nil {
		c.subAccountError(http.StatusNotFound, api.CodeSubAccountNotFound, ref)
		return
	}
	r := &api.CreateWithdrawalRequest{PixKey: controlWithdrawalKey, PixKeyType: api.PixKeyEmail,
		HolderName: controlWithdrawalHolder, HolderDocument: DefaultPayerDocument, HolderDocumentType: api.DocumentCPF, Amount: &amount}
	gross, net, p := withdrawalFigures(r, c.acct.wdFee)
	if p != nil {
		c.validation([]api.FieldProblem{*p})
		return
	}
	if gross > spendable(w) {
		c.badRequest("amount exceeds the wallet's spendable balance of " + spendable(w).Decimal())
		return
	}
	now := s.clock.Now()
	wd := s.newWithdrawal(w, r, gross, net, "", "", now)
	switch outcome {
	case WithdrawalFailed:
		s.failWithdrawal(wd, "", now)
	default:
		s.completeWithdrawal(wd, now)
		if outcome == WithdrawalReversed {
			s.reverseWithdrawal(wd, "", now)
		}
	}
	c.json(http.StatusCreated, wd.tx.view())
}

// optionalAmount reads an optional "amount" of a control request: absent or null is no amount;
// present, it must be an exact amount of at least 0.01. ok is false after a 400 was sent.
func (c *call) optionalAmount(raw json.RawMessage) (amount api.Money, has, ok bool) {
	if isNull(raw) {
		return 0, false, true
	}
	m, msg := parseAmount(raw, "amount")
	if msg != "" {
		c.badRequest(msg)
		return 0, false, false
	}
	if m < api.Centavo {
		c.badRequest("amount must not be less than 0.01")
		return 0, false, false
	}
	return m, true, true
}
