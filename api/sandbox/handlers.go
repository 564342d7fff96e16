package sandbox

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rsc.io/qr"

	"pixdash/api"
)

// Messages of authentication failures (the spec fixes only the /auth bodies).
const (
	msgTokenRequired = "Access token is required: send Authorization: Bearer <ACCESS_TOKEN>"
	msgTokenInvalid  = "Invalid access token"
	msgTokenExpired  = "Access token expired: call POST /auth again"
	msgIPNotAllowed  = "Requests from this IP address are not allowed for this credential"
	msgMissingPerm   = "Insufficient permissions. Required: "
)

// maxBRCodeAmount is the largest amount a PIX code's field 54 can carry (13 characters).
const maxBRCodeAmount api.Money = 999_999_999_999

// --- POST /auth -------------------------------------------------------------------------------

func (s *Server) handleAuth(c *call) {
	body, err := readLimited(c.r)
	if err != nil {
		c.authError(http.StatusBadRequest, "Bad Request", api.MessageCredentialsRequired)
		return
	}
	var req struct {
		ClientID     any `json:"client_id"`
		ClientSecret any `json:"client_secret"`
	}
	if json.Unmarshal(body, &req) != nil {
		c.authError(http.StatusBadRequest, "Bad Request", api.MessageCredentialsRequired)
		return
	}
	id, ok1 := req.ClientID.(string)
	secret, ok2 := req.ClientSecret.(string)
	if !ok1 || !ok2 || id == "" || secret == "" {
		c.authError(http.StatusBadRequest, "Bad Request", api.MessageCredentialsRequired)
		return
	}
	s.mu.Lock()
	cred := s.creds[id]
	valid := cred != nil && subtle.ConstantTimeCompare([]byte(cred.secret.Reveal()), []byte(secret)) == 1 && !cred.revoked
	var tok string
	ipOK := false
	if valid {
		ipOK = cred.allowed(c.r.RemoteAddr)
		if ipOK {
			tok = s.issueToken(cred, s.clock.Now())
		}
	}
	s.mu.Unlock()
	switch {
	case !valid:
		c.authError(http.StatusUnauthorized, "Unauthorized", api.MessageInvalidCredentials)
	case !ipOK:
		c.authError(http.StatusForbidden, "Forbidden", msgIPNotAllowed)
	default:
		c.json(http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(api.TokenLifetime / time.Second)})
	}
}

func readLimited(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err == nil && len(b) > MaxBodyBytes {
		err = errors.New("body too large")
	}
	return b, err
}

// --- authentication, permissions and the wallet of X-Sub-Account -------------------------------

// authenticate resolves the token, credential, permission and wallet; false when the request was answered.
func (s *Server) authenticate(c *call, rt *route) bool {
	h := strings.TrimSpace(c.r.Header.Get("Authorization"))
	scheme, tok, _ := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if h == "" || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		c.fail(http.StatusUnauthorized, api.KindUnauthorized, msgTokenRequired, nil)
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	clientID, verdict := s.checkToken(tok, s.clock.Now())
	switch verdict {
	case tokenInvalid:
		c.fail(http.StatusUnauthorized, api.KindUnauthorized, msgTokenInvalid, nil)
		return false
	case tokenExpired:
		c.fail(http.StatusUnauthorized, api.KindUnauthorized, msgTokenExpired, nil)
		return false
	}
	cred := s.creds[clientID]
	if cred == nil || cred.revoked {
		c.fail(http.StatusUnauthorized, api.KindUnauthorized, api.MessageInvalidCredentials, nil)
		return false
	}
	if !cred.allowed(c.r.RemoteAddr) {
		c.fail(http.StatusForbidden, api.KindForbidden, msgIPNotAllowed, nil)
		return false
	}
	if !cred.has(rt.perm) {
		c.fail(http.StatusForbidden, api.KindForbidden, msgMissingPerm+rt.perm, nil)
		return false
	}
	c.cred, c.acct = cred, cred.acct
	c.wallet = cred.acct.main()
	if !rt.subHdr {
		return true
	}
	ref := strings.TrimSpace(c.r.Header.Get("X-Sub-Account"))
	if ref == "" || ref == api.WalletPrincipal {
		return true
	}
	if api.ValidateWallet(ref) != nil {
		c.badRequest("X-Sub-Account must be 'principal' or match the pattern ^[a-z0-9][a-z0-9_-]{1,31}$")
		return false
	}
	if !cred.subAccess {
		c.subAccountError(http.StatusForbidden, api.CodeSubAccountForbidden, ref)
		return false
	}
	w := cred.acct.wallets[ref]
	if w == nil {
		c.subAccountError(http.StatusNotFound, api.CodeSubAccountNotFound, ref)
		return false
	}
	if !w.status.Usable() {
		c.subAccountError(http.StatusForbidden, api.CodeSubAccountSuspended, ref)
		return false
	}
	c.wallet = w
	return true
}

// --- POST /pix --------------------------------------------------------------------------------

// pixBody is POST /pix's body with the fields whose wire form is checked by hand kept raw.
type pixBody struct {
	Amount            json.RawMessage `json:"amount"`
	Description       *string         `json:"description"`
	Customer          *api.Customer   `json:"customer"`
	ProjectID         *string         `json:"projectId"`
	PspCredentialID   *string         `json:"pspCredentialId"`
	ExpiresIn         json.RawMessage `json:"expiresIn"`
	ExternalReference *string         `json:"externalReference"`
	Metadata          json.RawMessage `json:"metadata"`
	Split             json.RawMessage `json:"split"`
}

type splitBody struct {
	SubAccount json.RawMessage `json:"subAccount"`
	Amount     json.RawMessage `json:"amount"`
}

// parsedPix is a POST /pix body that passed the wire checks.
type parsedPix struct {
	api.CreatePixRequest
	expiresIn int
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// parseAmount reads a JSON number as exact money, naming field in the message.
func parseAmount(raw json.RawMessage, field string) (api.Money, string) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
		return 0, field + " must be a number"
	}
	m, err := api.ParseDecimal(string(t))
	if err != nil {
		if strings.Contains(err.Error(), api.ErrMoneyPrecision.Error()) {
			return 0, field + " must have at most 2 decimal places"
		}
		if strings.Contains(err.Error(), api.ErrMoneyRange.Error()) {
			return 0, field + " is too large"
		}
		return 0, field + " must be a number"
	}
	return m, ""
}

// parsePix checks POST /pix's body on the wire and against the field limits; it returns every
// problem found (a body that is not a JSON object, or a member of the wrong JSON type, stops at once).
func parsePix(body []byte) (*parsedPix, []api.FieldProblem) {
	var b pixBody
	if p := decodeObject(body, &b); p != nil {
		return nil, []api.FieldProblem{*p}
	}
	var ps []api.FieldProblem
	bad := map[string]bool{} // fields with a wire problem: CheckCreatePix does not repeat them
	add := func(field, msg string) {
		ps = append(ps, api.FieldProblem{Field: field, Msg: msg})
		bad[field] = true
	}
	p := &parsedPix{expiresIn: api.DefaultExpiresIn}
	if isNull(b.Amount) {
		add(api.FieldAmount, "amount is required")
	} else if amt, msg := parseAmount(b.Amount, "amount"); msg != "" {
		add(api.FieldAmount, msg)
	} else {
		p.Amount = amt
	}
	if b.Description != nil {
		p.Description = *b.Description
	}
	if b.Customer != nil {
		for _, f := range []struct{ name, v string }{
			{"name", b.Customer.Name}, {"document", b.Customer.Document}, {"email", b.Customer.Email}, {"phone", b.Customer.Phone},
		} {
			if utf8.RuneCountInString(f.v) > 255 {
				add("customer."+f.name, "customer."+f.name+" must be shorter than or equal to 255 characters")
			}
		}
		if !b.Customer.IsZero() {
			cu := *b.Customer
			p.Customer = &cu
		}
	}
	if b.ProjectID != nil {
		p.ProjectID = *b.ProjectID
		if p.ProjectID == "" {
			add(api.FieldProjectID, "projectId must be a UUID")
		}
	}
	if b.PspCredentialID != nil {
		p.PspCredentialID = *b.PspCredentialID
		if p.PspCredentialID == "" {
			add(api.FieldPspCredID, "pspCredentialId must be a UUID")
		}
	}
	if !isNull(b.ExpiresIn) {
		t := string(bytes.TrimSpace(b.ExpiresIn))
		n, err := strconv.Atoi(t)
		switch digits := strings.TrimPrefix(t, "-"); {
		case digits == "" || strings.Trim(digits, "0123456789") != "":
			add(api.FieldExpiresIn, "expiresIn must be an integer number")
		case err != nil && t[0] == '-', err == nil && n < api.MinExpiresIn:
			add(api.FieldExpiresIn, "expiresIn must not be less than 300")
		case err != nil, n > api.MaxExpiresIn:
			add(api.FieldExpiresIn, "expiresIn must not be greater than 604800")
		default:
			p.ExpiresIn = n
			p.expiresIn = n
		}
	}
	if b.ExternalReference != nil {
		p.ExternalReference = *b.ExternalReference
	}
	if !isNull(b.Metadata) {
		t := bytes.TrimSpace(b.Metadata)
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		var m map[string]any
		if t[0] != '{' || dec.Decode(&m) != nil {
			add("metadata", "metadata must be an object")
		} else {
			p.Metadata = m
		}
	}
	if !isNull(b.Split) {
		if msg := parseSplit(b.Split, p); msg != "" {
			add(api.FieldSplit, msg)
		}
	}
	for _, pr := range api.CheckCreatePix(&p.CreatePixRequest) {
		if !bad[pr.Field] && !strings.HasPrefix(pr.Field, api.FieldSplit) {
			ps = append(ps, pr)
			bad[pr.Field] = true
		}
	}
	if !bad[api.FieldAmount] && p.Amount > maxBRCodeAmount {
		add(api.FieldAmount, "amount must not be greater than "+maxBRCodeAmount.Decimal())
	}
	if len(ps) > 0 {
		slices.SortStableFunc(ps, func(a, b api.FieldProblem) int { return pixFieldRank(a.Field) - pixFieldRank(b.Field) })
		return nil, ps
	}
	return p, nil
}

// pixFieldOrder is the order of POST /pix's body fields in the spec; problems are listed in it.
var pixFieldOrder = []string{api.FieldAmount, api.FieldDescription, "customer", api.FieldProjectID, api.FieldPspCredID,
	api.FieldExpiresIn, api.FieldExternalRef, "metadata", api.FieldSplit}

func pixFieldRank(field string) int {
	root, _, _ := strings.Cut(field, ".")
	if i := slices.Index(pixFieldOrder, root); i >= 0 {
		return i
	}
	return len(pixFieldOrder)
}

// parseSplit reads the split items into p; "" or the first wire problem. The split rules
// themselves (count, minimum, references, sum) are checkSplit's.
func parseSplit(raw json.RawMessage, p *parsedPix) string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return "split must be an array"
	}
	for i, raw := range items {
		var it splitBody
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &it) != nil {
			return fmt.Sprintf("split.%d must be an object", i)
		}
		var ref string
		if !isNull(it.SubAccount) && json.Unmarshal(it.SubAccount, &ref) != nil {
			return fmt.Sprintf("split.%d.subAccount must be a string", i)
		}
		if isNull(it.Amount) {
			return fmt.Sprintf("split.%d.amount must not be less than 0.01", i)
		}
		m, msg := parseAmount(it.Amount, fmt.Sprintf("split.%d.amount", i))
		if msg != "" {
			return msg
		}
		p.Split = append(p.Split, api.SplitItem{SubAccount: ref, Amount: m})
	}
	return ""
}

// canonicalHash identifies a body for idempotency: key order and spacing do not matter.
func canonicalHash(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	src := body
	if json.Valid(body) && dec.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			src = b
		}
	}
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// idemFind returns the live cache entry for ikey, or nil; s.mu is held.
func (s *Server) idemFind(ikey string, now time.Time) *idemEntry {
	s.sweepIdem(now)
	e := s.idem[ikey]
	if e != nil && now.Sub(e.created) >= api.IdempotencyTTL {
		delete(s.idem, ikey)
		return nil
	}
	return e
}

// idemAnswer replays a cached 201 (a charge's QR code rebuilt: the code is deterministic) or
// refuses a different body with 422.
func (s *Server) idemAnswer(c *call, e *idemEntry, hash string) {
	if e.hash != hash {
		c.fail(http.StatusUnprocessableEntity, kindUnprocessable,
			"Idempotency-Key was already used with a different request body", map[string]any{"field": "Idempotency-Key"})
		return
	}
	if e.withdrawal != nil {
		c.raw(http.StatusCreated, e.withdrawal)
		c.w.Header().Set("Idempotent-Replayed", "true")
		return
	}
	resp := e.charge
	uri, err := qrDataURI(resp.PixCopyPaste)
	if err != nil {
		s.log.Error("sandbox: build QR code", "err", err)
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return
	}
	resp.QRCodeBase64 = uri
	c.json(http.StatusCreated, resp)
	c.w.Header().Set("Idempotent-Replayed", "true")
}

// qrDataURI renders text as a PNG QR code data URI.
func qrDataURI(text string) (string, error) {
	qc, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(qc.PNG()), nil
}

// sweepIdem drops cache entries older than the TTL, and the oldest beyond the cap; s.mu is held.
func (s *Server) sweepIdem(now time.Time) {
	for len(s.idemQ) > 0 {
		q := s.idemQ[0]
		if now.Sub(q.created) < api.IdempotencyTTL && len(s.idem) <= maxIdempotencyEntries {
			break
		}
		if e := s.idem[q.key]; e != nil && e.created.Equal(q.created) {
			delete(s.idem, q.key)
		}
		s.idemQ[0] = idemQItem{}
		s.idemQ = s.idemQ[1:]
	}
}

// idemKey reads the optional Idempotency-Key (8 to 255 characters); ok is false after a 400.
func (c *call) idemKey() (key string, has, ok bool) {
	vals, present := c.r.Header["Idempotency-Key"]
	if !present || len(vals) == 0 {
		return "", false, true
	}
	if err := api.ValidateIdempotencyKey(vals[0]); err != nil {
		c.invalid(api.FieldIdempotencyKeyHeader, "Idempotency-Key must be between 8 and 255 characters")
		return "", false, false
	}
	return vals[0], true, true
}

// idemLookup answers from the cache when the key of endpoint (scoped to account and wallet) was
// used in the last 24 h: true when the request was answered. It returns the cache key and body hash.
func (s *Server) idemLookup(c *call, endpoint, key string, body []byte) (ikey, hash string, answered bool) {
	ikey = c.acct.id + "\x00" + c.wallet.ref + "\x00" + endpoint + "\x00" + key
	hash = canonicalHash(body)
	s.mu.Lock()
	e := s.idemFind(ikey, s.clock.Now())
	var cached idemEntry
	if e != nil {
		cached = *e
	}
	s.mu.Unlock()
	if e != nil {
		s.idemAnswer(c, &cached, hash)
		return ikey, hash, true
	}
	return ikey, hash, false
}

// idemStore caches a 201 under ikey; s.mu is held.
func (s *Server) idemStore(ikey string, e *idemEntry) {
	s.idem[ikey] = e
	s.idemQ = append(s.idemQ, idemQItem{key: ikey, created: e.created})
}

// idempotentBody reads an idempotent create's body and, when it carries an Idempotency-Key
// already used in scope, answers from the cache (or 422) and reports false; otherwise it
// returns the body, the key, its cache key and the body's hash (all "" without a key).
func (s *Server) idempotentBody(c *call, scope string) (body []byte, key, ikey, hash string, ok bool) {
	key, hasKey, ok := c.idemKey()
	if !ok {
		return nil, "", "", "", false
	}
	if body, ok = c.readBody(); !ok {
		return nil, "", "", "", false
	}
	if !hasKey {
		return body, "", "", "", true
	}
	ikey, hash, answered := s.idemLookup(c, scope, key, body)
	if answered {
		return nil, "", "", "", false
	}
	return body, key, ikey, hash, true
}

func (s *Server) handleCreatePix(c *call) {
	body, key, ikey, hash, ok := s.idempotentBody(c, "pix")
	if !ok {
		return
	}
	a := c.acct
	w := c.wallet
	hasKey := key != ""
	p, ps := parsePix(body)
	if len(ps) > 0 {
		c.validation(ps)
		return
	}
	id := s.ids.uuid()
	// The service's codes carry only the GUI and the key in the merchant account field (no
	// description subfield): the code's length does not grow with the description.
	code, err := api.EncodeBRCode(api.BRCodeParams{
		PixKey: a.pixKey, MerchantName: a.name, MerchantCity: a.city,
		TxID: strings.ReplaceAll(id, "-", "")[:api.BRCodeMaxTxID], Amount: p.Amount,
	})
	if err != nil {
		s.log.Error("sandbox: build PIX code", "err", err)
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return
	}
	qrURI, err := qrDataURI(code)
	if err != nil {
		s.log.Error("sandbox: build QR code", "err", err)
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
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
	if !s.checkSplit(c, p) {
		return
	}
	projectID, ok := c.projectOf(a, p.ProjectID)
	if !ok {
		return
	}
	if p.ProjectID == "" && len(a.projects) == 1 {
		projectID = a.projects[0].id
	}
	pspID, ok := s.route(c, p.PspCredentialID)
	if !ok {
		return
	}
	t := &tx{
		id: id, wallet: w, status: api.StatusPending, typ: api.TypePayment, method: api.MethodPix, amount: p.Amount,
		description: p.Description, externalRef: p.ExternalReference, projectID: projectID, metadata: p.Metadata,
		copyPaste: code, expiresAt: now.Add(time.Duration(p.expiresIn) * time.Second), createdAt: now, updatedAt: now,
		split: p.Split, pspPaymentID: "psp_" + s.ids.hex(24),
	}
	if p.PspCredentialID != "" {
		t.pspCredID = pspID
	}
	if p.Customer != nil {
		t.customerID = s.customerID(a, p.Customer.Document)
	}
	s.store(t)
	s.armExpiry(t, now)
	resp := api.PixCharge{
		ID: t.id, Status: t.status, Amount: t.amount, Currency: "BRL", PixCopyPaste: code,
		ExpiresAt: t.expiresAt.UTC(), CreatedAt: now.UTC(), QRCodeBase64: qrURI, PspPaymentID: t.pspPaymentID,
		PspCredentialID: t.pspCredID, ExternalReference: t.externalRef, Split: t.split,
	}
	b, err := json.Marshal(resp)
	if err != nil {
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return
	}
	if hasKey {
		t.idemKey = key
		w.byIdemKey[key] = t
		cached := resp
		cached.QRCodeBase64 = "" // rebuilt on replay: keeps the cache small
		s.idemStore(ikey, &idemEntry{hash: hash, charge: cached, created: now})
	}
	c.raw(http.StatusCreated, b)
}

// store indexes a new transaction; s.mu is held.
func (s *Server) store(t *tx) {
	w := t.wallet
	s.txSeq++
	t.seq = s.txSeq
	w.txs[t.id] = t
	s.txs[t.id] = t
	if t.externalRef != "" {
		w.byExtRef[t.externalRef] = t
	}
}

func (s *Server) customerID(a *account, doc string) string {
	if doc == "" {
		return s.ids.uuid()
	}
	if id, ok := a.customers[doc]; ok {
		return id
	}
	id := s.ids.uuid()
	a.customers[doc] = id
	return id
}

// checkSplit applies the split rules and sub-account access to a charge; false when answered. s.mu is held.
func (s *Server) checkSplit(c *call, p *parsedPix) bool {
	if len(p.Split) == 0 {
		p.Split = nil
		return true
	}
	a, w := c.acct, c.wallet
	wallets := func(ref string) (bool, bool) {
		x := a.wallets[ref]
		return x != nil && ref != "", x != nil && x.status.Usable()
	}
	ps := api.CheckSplit(p.Split, w.ref, p.Amount, a.fee, wallets)
	report := func(pr api.SplitProblem) {
		d := map[string]any{"field": "split"}
		if pr.Index >= 0 {
			d["index"] = pr.Index
		}
		if pr.Ref != "" {
			d["subAccount"] = pr.Ref
		}
		if pr.Rule == api.SplitSumExceedsNet {
			d["sum"], d["net"], d["gross"], d["fee"] = pr.Sum, pr.Net, pr.Gross, pr.Fee
		}
		c.fail(http.StatusBadRequest, pr.SpecKind(), pr.SpecMessage(), d)
	}
	if len(ps) > 0 && (ps[0].Rule == api.SplitTooMany || ps[0].Rule == api.SplitAmountTooSmall) {
		report(ps[0])
		return false
	}
	if !c.cred.subAccess {
		for _, l := range p.Split {
			if l.SubAccount != api.WalletPrincipal {
				c.subAccountError(http.StatusForbidden, api.CodeSubAccountForbidden, l.SubAccount)
				return false
			}
		}
	}
	if len(ps) > 0 {
		report(ps[0])
		return false
	}
	return true
}

// route picks the issuing institution: the pinned one after the pinning rules, or the first healthy one.
// It returns the pinned id in canonical form; false when answered. s.mu is held.
func (s *Server) route(c *call, pinned string) (string, bool) {
	a := c.acct
	if pinned == "" {
		if len(a.psps) == 0 {
			return "", true // the emulator's built-in institution
		}
		for _, p := range a.psps {
			if p.enabled && p.active && !p.down {
				return "", true
			}
		}
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessagePaymentServiceDown, nil)
		return "", false
	}
	refuse := func(reason, msg string) (string, bool) {
		c.fail(http.StatusBadRequest, api.KindBadRequest, msg, map[string]any{"reason": reason, "field": api.FieldPspCredID, "pspCredentialId": pinned})
		return "", false
	}
	if !a.selfRouting {
		return refuse(api.ReasonSelfRoutingDisabled, "Institution choice (pspCredentialId) is not enabled for this account")
	}
	var p *psp
	for _, x := range a.psps {
		if strings.EqualFold(x.id, pinned) {
			p = x
		}
	}
	switch {
	case p == nil:
		return refuse(api.ReasonCredentialNotLinked, "pspCredentialId is not a PIX institution of this account")
	case !p.enabled:
		return refuse(api.ReasonCredentialNotEnabled, "The chosen institution is not enabled for receiving charges")
	case !p.active:
		return refuse(api.ReasonCredentialInactive, "The chosen institution is currently inactive")
	case !p.outCap:
		return refuse(api.ReasonOutCapacityExhausted, "The chosen institution has no outbound capacity in this cycle")
	case p.down:
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessagePaymentServiceDown, map[string]any{"pspCredentialId": pinned})
		return "", false
	}
	return p.id, true
}

// --- GET /transactions/{id} -------------------------------------------------------------------

func (s *Server) handleGetTransaction(c *call) {
	id := c.params[0]
	s.mu.Lock()
	t := c.wallet.lookup(id)
	if t == nil {
		s.mu.Unlock()
		c.notFound(resTransaction, id)
		return
	}
	s.expireDue(t, s.clock.Now())
	v := t.view()
	s.mu.Unlock()
	c.json(http.StatusOK, v)
}

// lookup resolves id in w as GET /transactions/{id} does: the transaction id, then the
// externalReference, then the Idempotency-Key used at creation (a withdrawal's transaction
// exists from its creation, so one still processing resolves too); s.mu is held.
func (w *wallet) lookup(id string) *tx {
	if t := w.txs[id]; t != nil {
		return t
	}
	if t := w.byExtRef[id]; t != nil {
		return t
	}
	return w.byIdemKey[id]
}

// --- sub-accounts -----------------------------------------------------------------------------

func (s *Server) handleCreateSubAccount(c *call) {
	body, ok := c.readBody()
	if !ok {
		return
	}
	var req struct {
		Reference *string `json:"reference"`
		Name      *string `json:"name"`
	}
	if !c.decodeObject(body, &req) {
		return
	}
	if req.Reference == nil || *req.Reference == "" {
		c.invalid(api.FieldReference, "reference is required")
		return
	}
	ref := *req.Reference
	if ref == api.WalletPrincipal {
		c.fail(http.StatusBadRequest, api.KindBadRequest, "'principal' is reserved for the main account",
			map[string]any{"code": api.CodeSubAccountInvalidReference, "field": "reference", "value": ref})
		return
	}
	if api.ValidateSubAccountRef(ref) != nil {
		// The SDK's README gives this route's 400 the code SUB_ACCOUNT_INVALID_REFERENCE.
		c.fail(http.StatusBadRequest, api.KindBadRequest, "reference must match the pattern ^[a-z0-9][a-z0-9_-]{1,31}$ (2 to 32 characters)",
			map[string]any{"code": api.CodeSubAccountInvalidReference, "field": api.FieldReference, "value": ref})
		return
	}
	if req.Name == nil || strings.TrimSpace(*req.Name) == "" {
		c.invalid(api.FieldName, "name is required")
		return
	}
	if utf8.RuneCountInString(*req.Name) > api.MaxSubAccountName {
		c.invalid(api.FieldName, "name must be shorter than or equal to 255 characters")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := c.acct
	if a.wallets[ref] != nil {
		c.fail(http.StatusConflict, api.KindConflict, fmt.Sprintf("reference '%s' is already used in this account", ref),
			map[string]any{"resource": resSubAccount, "field": "reference", "value": ref, "code": api.CodeSubAccountReferenceTaken})
		return
	}
	if a.quota > 0 && a.subAccounts() >= a.quota {
		c.fail(http.StatusConflict, api.KindConflict, fmt.Sprintf("the account reached its maximum of %d sub-accounts", a.quota),
			map[string]any{"resource": resSubAccount, "field": "quota", "value": a.quota, "code": api.CodeSubAccountQuotaExceeded})
		return
	}
	w := newWallet(a, ref, s.ids.uuid(), *req.Name, api.SubAccountApproved, s.clock.Now())
	a.wallets[ref] = w
	a.walletOrder = append(a.walletOrder, w)
	c.json(http.StatusCreated, subAccountView(w))
}

func subAccountView(w *wallet) api.SubAccount {
	return api.SubAccount{ID: w.id, Reference: w.ref, Name: w.name, Status: w.status, CreatedAt: w.createdAt.UTC()}
}

func (s *Server) handleListSubAccounts(c *call) {
	s.mu.Lock()
	items := make([]api.SubAccount, 0, len(c.acct.walletOrder))
	for _, w := range c.acct.walletOrder {
		items = append(items, subAccountView(w))
	}
	s.mu.Unlock()
	c.json(http.StatusOK, map[string]any{"data": items})
}

// --- GET /account -----------------------------------------------------------------------------

// accountBody is GET /account: the wallet's account record and its balances.
type accountBody struct {
	Account struct {
		ID     string            `json:"id"`
		Status api.AccountStatus `json:"status"`
	} `json:"account"`
	Balance struct {
		Available   balanceFigure `json:"available"`
		Promotional balanceFigure `json:"promotional"`
		Held        balanceFigure `json:"held"`
		Total       balanceFigure `json:"total"`
		Currency    string        `json:"currency"`
		UpdatedAt   string        `json:"updatedAt"`
	} `json:"balance"`
}

// balanceFigure is one balance of GET /account: integer centavos and the same in reais.
type balanceFigure struct {
	Amount          int64       `json:"amount"`
	AmountFormatted reaisNumber `json:"amountFormatted"`
}

func figure(m api.Money) balanceFigure {
	return balanceFigure{Amount: int64(m), AmountFormatted: reaisNumber(m)}
}

// reaisNumber marshals centavos as a JSON number of reais in its shortest form, as the service
// writes amountFormatted (150.75, 49.9, 25, 0), computed without floating point.
type reaisNumber api.Money

// MarshalJSON writes the shortest decimal form.
func (r reaisNumber) MarshalJSON() ([]byte, error) {
	d := api.Money(r).Decimal()
	d = strings.TrimSuffix(strings.TrimRight(d, "0"), ".")
	if d == "" || d == "-" || d == "-0" {
		d = "0"
	}
	return []byte(d), nil
}

// accountStatus is the account status GET /account reports for a wallet: suspended for a
// suspended sub-account, approved otherwise (the emulator has no pending or rejected accounts).
func accountStatus(w *wallet) api.AccountStatus {
	if w.status == api.SubAccountSuspended {
		return api.AccountSuspended
	}
	return api.AccountApproved
}

func (s *Server) handleGetAccount(c *call) {
	s.mu.Lock()
	w := c.wallet
	var v accountBody
	v.Account.ID, v.Account.Status = w.id, accountStatus(w)
	v.Balance.Available = figure(w.available)
	v.Balance.Promotional = figure(w.promo)
	v.Balance.Held = figure(w.blocked)
	v.Balance.Total = figure(w.available + w.promo + w.blocked)
	v.Balance.Currency = "BRL"
	v.Balance.UpdatedAt = w.balanceAt.UTC().Format(timeLayout)
	s.mu.Unlock()
	c.json(http.StatusOK, v)
}

// --- GET /balance-blocks ----------------------------------------------------------------------

func (s *Server) handleListBlocks(c *call) {
	q := c.r.URL.Query()
	status := api.BlockStatus(q.Get("status"))
	if _, present := q["status"]; present && !status.Known() {
		c.badRequest("status must be one of the following values: awaiting_response, defended, approved, rejected")
		return
	}
	s.mu.Lock()
	items := []blockBody{}
	for _, b := range c.wallet.blocks {
		if status == "" || b.status == status {
			items = append(items, b.wire())
		}
	}
	s.mu.Unlock()
	sort.SliceStable(items, func(i, j int) bool { return items[i].CreatedAt.After(items[j].CreatedAt) })
	c.json(http.StatusOK, map[string]any{"items": items, "total": len(items)})
}

// --- GET /projects ----------------------------------------------------------------------------

// Projects listing defaults.
const (
	DefaultProjectPage  = 1
	DefaultProjectLimit = 20 // the service's default page size
)

// projectBody is a project of GET /projects/{id}; a project without a logo has logoUrl null,
// as the service writes it.
type projectBody struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Color       string     `json:"color,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   *time.Time `json:"updatedAt,omitempty"` // absent from the items of GET /projects
	Description string     `json:"description,omitempty"`
	LogoURL     *string    `json:"logoUrl"`
}

func (p *project) body() projectBody {
	u := p.updatedAt.UTC()
	return projectBody{ID: p.id, Name: p.name, Color: p.color, CreatedAt: p.createdAt.UTC(),
		UpdatedAt: &u, Description: p.description, LogoURL: optString(p.logoURL)}
}

// listItem is the project as an item of GET /projects: the service's list items carry no updatedAt.
func (b projectBody) listItem() projectBody {
	b.UpdatedAt = nil
	return b
}

func (s *Server) handleListProjects(c *call) {
	q := c.r.URL.Query()
	intParam := func(name string, def, lo, hi int, msg string) (int, bool) {
		if _, ok := q[name]; !ok {
			return def, true
		}
		n, err := strconv.Atoi(strings.TrimSpace(q.Get(name)))
		if err != nil || n < lo || n > hi {
			c.badRequest(msg)
			return 0, false
		}
		return n, true
	}
	page, ok := intParam("page", DefaultProjectPage, 1, 1<<30, "page must be an integer not less than 1")
	if !ok {
		return
	}
	limit, ok := intParam("limit", DefaultProjectLimit, api.MinProjectPageSize, api.MaxProjectPageSize, "limit must be an integer from 1 to 100")
	if !ok {
		return
	}
	sortBy := "createdAt"
	if _, present := q["sortBy"]; present {
		sortBy = q.Get("sortBy")
		if sortBy != "createdAt" && sortBy != "updatedAt" && sortBy != "name" {
			c.badRequest("sortBy must be one of the following values: createdAt, updatedAt, name")
			return
		}
	}
	order := "desc"
	if _, present := q["sortOrder"]; present {
		order = q.Get("sortOrder")
		if order != "asc" && order != "desc" {
			c.badRequest("sortOrder must be one of the following values: asc, desc")
			return
		}
	}
	s.mu.Lock()
	all := make([]projectBody, 0, len(c.acct.projects))
	for _, p := range c.acct.projects {
		all = append(all, p.body())
	}
	s.mu.Unlock()
	less := func(a, b projectBody) int {
		switch sortBy {
		case "name":
			return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case "updatedAt":
			return a.UpdatedAt.Compare(*b.UpdatedAt)
		}
		return a.CreatedAt.Compare(b.CreatedAt)
	}
	sort.SliceStable(all, func(i, j int) bool {
		d := less(all[i], all[j])
		if d == 0 {
			return all[i].ID < all[j].ID
		}
		if order == "asc" {
			return d < 0
		}
		return d > 0
	})
	total := len(all)
	items := []projectBody{}
	if start := (page - 1) * limit; start < total {
		end := min(start+limit, total)
		for _, p := range all[start:end] {
			items = append(items, p.listItem())
		}
	}
	totalPages := (total + limit - 1) / limit
	c.json(http.StatusOK, map[string]any{"items": items, "total": total, "page": page, "limit": limit, "totalPages": totalPages})
}
