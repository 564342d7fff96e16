package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// EventKind names a webhook event; unknown kinds are kept.
type EventKind string

// Event kinds from the spec.
const (
	EventPaymentCompleted     EventKind = "payment_completed"
	EventPaymentExpired       EventKind = "payment_expired"
	EventPaymentFailed        EventKind = "payment_failed"
	EventRefundCompleted      EventKind = "refund_completed"
	EventWithdrawalCompleted  EventKind = "withdrawal_completed"
	EventWithdrawalFailed     EventKind = "withdrawal_failed"
	EventWithdrawalReversed   EventKind = "withdrawal_reversed"
	EventBalanceBlockCreated  EventKind = "balance_block_created"
	EventBalanceBlockApproved EventKind = "balance_block_approved"
	EventBalanceBlockRejected EventKind = "balance_block_rejected"
)

// EventKinds lists every kind the spec names.
var EventKinds = []EventKind{
	EventPaymentCompleted, EventPaymentExpired, EventPaymentFailed, EventRefundCompleted,
	EventWithdrawalCompleted, EventWithdrawalFailed, EventWithdrawalReversed,
	EventBalanceBlockCreated, EventBalanceBlockApproved, EventBalanceBlockRejected,
}

// Known reports whether k is one of the spec's kinds.
func (k EventKind) Known() bool {
	for _, e := range EventKinds {
		if k == e {
			return true
		}
	}
	return false
}

// IsPayment reports whether k is about a charge's payment.
func (k EventKind) IsPayment() bool {
	return k == EventPaymentCompleted || k == EventPaymentExpired || k == EventPaymentFailed
}

// ReadBack reports whether events of kind k are read back against the service before they
// count: the payments (their charge), the refunds (their refund line), the withdrawals (their
// transaction) and the balance blocks (the wallet's list of blocks).
func (k EventKind) ReadBack() bool {
	return k.IsPayment() || k == EventRefundCompleted || k.IsWithdrawal() || k.IsBalanceBlock()
}

// IsBalanceBlock reports whether k is about a balance block.
func (k EventKind) IsBalanceBlock() bool {
	return k == EventBalanceBlockCreated || k == EventBalanceBlockApproved || k == EventBalanceBlockRejected
}

// IsWithdrawal reports whether k is about a withdrawal.
func (k EventKind) IsWithdrawal() bool {
	return k == EventWithdrawalCompleted || k == EventWithdrawalFailed || k == EventWithdrawalReversed
}

// Event is a webhook payload. The service sends an envelope {"event","eventId","timestamp",
// "subAccount"?,"data":{...}} with the per-event fields inside data; a flat body with the same
// fields at the top level (the emulator's former shape) is read the same way. Beyond eventId,
// subAccount, split, blockedDeposit and the refund amounts, the fields of data are assumptions
// (README's ASSUMPTIONS).
type Event struct {
	EventID   string    `json:"eventId"`
	Kind      EventKind `json:"event"`
	CreatedAt time.Time `json:"createdAt"`
	// SubAccount is the wallet the event belongs to ("" or "principal": the main account).
	SubAccount string `json:"subAccount,omitempty"`
	// ID is data.id: the id of the event's object (the transaction for payment events, the
	// withdrawal or the balance block for theirs).
	ID string `json:"id,omitempty"`
	// TransactionID is the charge the event is about: data.transactionId, else
	// data.originalTransactionId, else data.id for payment events.
	TransactionID         string `json:"transactionId,omitempty"`
	OriginalTransactionID string `json:"originalTransactionId,omitempty"`
	// WithdrawalID is data.withdrawalId, else data.id for withdrawal events.
	WithdrawalID        string          `json:"withdrawalId,omitempty"`
	ExternalReference   string          `json:"externalReference,omitempty"`
	Status              TxStatus        `json:"status,omitempty"`
	Amount              Money           `json:"amount,omitempty"`
	NetAmount           Money           `json:"netAmount,omitempty"`
	FeeAmount           Money           `json:"feeAmount,omitempty"`
	Split               []SplitItem     `json:"split,omitempty"`
	BlockedDeposit      *BlockedDeposit `json:"blockedDeposit,omitempty"`
	E2EID               string          `json:"e2eId,omitempty"`
	PaidAt              *time.Time      `json:"paidAt,omitempty"`
	CounterpartName     string          `json:"counterpartName,omitempty"`
	CounterpartDocument string          `json:"counterpartDocument,omitempty"`
	FailureReason       string          `json:"failureReason,omitempty"`
	BalanceBlock        *BalanceBlock   `json:"balanceBlock,omitempty"`
	// Environment is the environment the event comes from ("sandbox" or "production"; "" when
	// the payload does not say), at the top level or in data as the service's Node SDK names it.
	Environment Environment `json:"environment,omitempty"`
	// Variants the service's Node SDK names: BlockID is data.blockId (a balance block event's
	// block, else data.id), RefundTransactionID data.refundTransactionId (refund_completed's
	// refund line, else data.id), ReversalTransactionID data.reversalTransactionId (the line that
	// returned a reversed withdrawal's money).
	BlockID               string `json:"blockId,omitempty"`
	RefundTransactionID   string `json:"refundTransactionId,omitempty"`
	ReversalTransactionID string `json:"reversalTransactionId,omitempty"`
	// When the event's fact happened, by the name the Node SDK gives it per kind: completedAt
	// (payment_completed: PaidAt when paidAt is absent; withdrawal_completed), expiredAt,
	// refundedAt, failedAt. OccurredAt picks the one of the event's kind.
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	ExpiredAt   *time.Time `json:"expiredAt,omitempty"`
	RefundedAt  *time.Time `json:"refundedAt,omitempty"`
	FailedAt    *time.Time `json:"failedAt,omitempty"`
	// Raw is the payload exactly as received.
	Raw json.RawMessage `json:"-"`
	// Envelope is true when the fields came inside a data member.
	Envelope bool `json:"-"`
	// DecodeErr lists the fields that were present but could not be read (left empty), e.g.
	// "createdAt: ...; amount: ..."; "" when every field decoded. The event is still valid.
	DecodeErr string `json:"-"`
}

// Wallet returns the wallet the event belongs to ("principal" when subAccount is absent).
func (e *Event) Wallet() string {
	if e.SubAccount == "" {
		return WalletPrincipal
	}
	return e.SubAccount
}

// ErrEventInvalid reports a payload that is not a usable event.
var ErrEventInvalid = errors.New("invalid event payload")

// Limits of DecodeErr, so a strange payload cannot make it large.
const (
	maxDecodeProblems    = 8
	maxDecodeProblemText = 160
)

// DecodeEvent parses a webhook payload, keeping the raw bytes. The body must be a JSON object
// with a non-empty string eventId and event; anything else is ErrEventInvalid. A field in an
// unexpected format (a createdAt that is not RFC 3339, an amount with 3 decimals, a split that
// is not a list) does not make the event invalid: that field is left empty, the rest is decoded
// and DecodeErr says what could not be read. A signed event is then never refused for ever
// (the sender gives up after 5 attempts and the event would be lost). Members are matched to
// fields as encoding/json does (exact name first, then case-insensitively; the last one wins).
func DecodeEvent(body []byte) (*Event, error) {
	// One pass validates the JSON (as json.Valid does) while it reads the members; whatever it
	// finds wrong, the error comes from encoding/json.
	i := skipBlank(body, 0)
	if i >= len(body) || body[i] != '{' {
		if end := skipValue(body, i, 0); end >= 0 && skipBlank(body, end) == len(body) {
			return nil, fmt.Errorf("%w: not a JSON object", ErrEventInvalid)
		}
		return nil, invalidJSON(body)
	}
	var (
		e        Event
		problems []string
		idErr    error
		kindErr  error
		data     []byte // the envelope's data object, read after the top level
	)
	note := func(name string, err error) {
		if len(problems) == maxDecodeProblems {
			problems = append(problems, "…")
		}
		if len(problems) > maxDecodeProblems {
			return
		}
		problems = append(problems, truncate(name+": "+err.Error(), maxDecodeProblemText))
	}
	i = skipBlank(body, i+1)
	if i < len(body) && body[i] == '}' {
		i++
	} else {
		for {
			if i >= len(body) || body[i] != '"' {
				return nil, invalidJSON(body)
			}
			kEnd := skipString(body, i)
			if kEnd < 0 {
				return nil, invalidJSON(body)
			}
			key := body[i+1 : kEnd-1]
			if bytes.IndexByte(key, '\\') >= 0 {
				k, err := unquote(body[i:kEnd])
				if err != nil { // cannot happen for a valid string; be safe
					return nil, fmt.Errorf("%w: %w", ErrEventInvalid, err)
				}
				key = []byte(k)
			}
			i = skipBlank(body, kEnd)
			if i >= len(body) || body[i] != ':' {
				return nil, invalidJSON(body)
			}
			vStart := skipBlank(body, i+1)
			vEnd := skipValue(body, vStart, 1)
			if vEnd < 0 {
				return nil, invalidJSON(body)
			}
			if string(key) == "data" && body[vStart] == '{' {
				data, e.Envelope = body[vStart:vEnd], true // read once the envelope's kind is known
			} else {
				switch name, err := e.decodeMember(key, body[vStart:vEnd]); {
				case err == nil:
				case name == "eventId":
					idErr = err
				case name == "event":
					kindErr = err
				default:
					note(name, err)
				}
			}
			i = skipBlank(body, vEnd)
			if i < len(body) && body[i] == ',' {
				i = skipBlank(body, i+1)
				continue
			}
			if i < len(body) && body[i] == '}' {
				i++
				break
			}
			return nil, invalidJSON(body)
		}
	}
	if skipBlank(body, i) != len(body) {
		return nil, invalidJSON(body)
	}
	if data != nil {
		e.decodeData(data, note)
	}
	e.resolveIDs()
	if e.EventID == "" {
		if idErr != nil {
			return nil, fmt.Errorf("%w: eventId: %w", ErrEventInvalid, idErr)
		}
		return nil, fmt.Errorf("%w: eventId missing", ErrEventInvalid)
	}
	if e.Kind == "" {
		if kindErr != nil {
			return nil, fmt.Errorf("%w: event: %w", ErrEventInvalid, kindErr)
		}
		return nil, fmt.Errorf("%w: event kind missing", ErrEventInvalid)
	}
	e.Raw = append(json.RawMessage(nil), body...)
	e.DecodeErr = strings.Join(problems, "; ")
	return &e, nil
}

// envelopeKeys are the members of data that never override the envelope's own.
var envelopeKeys = map[string]bool{"eventId": true, "event": true, "data": true, "timestamp": true, "createdAt": true}

// decodeData reads the members of the envelope's data object into e; problems go to note.
func (e *Event) decodeData(data []byte, note func(string, error)) {
	hadSub := e.SubAccount != ""
	eachMember(data, func(key string, val []byte) {
		if envelopeKeys[key] || (key == "subAccount" && hadSub) {
			return
		}
		if name, err := e.decodeMember([]byte(key), val); err != nil {
			note("data."+name, err)
		}
	})
	if e.Kind.IsBalanceBlock() && e.BalanceBlock == nil {
		var problems []string
		b := new(BalanceBlock)
		decodeLoose(data, reflect.ValueOf(b).Elem(), "data", &problems)
		e.BalanceBlock = b
	}
}

// OccurredAt is when the event's fact happened, when the payload says: paidAt or completedAt
// of a payment, expiredAt, refundedAt, failedAt, completedAt of a withdrawal; nil otherwise.
func (e *Event) OccurredAt() *time.Time {
	switch e.Kind {
	case EventPaymentCompleted:
		if e.PaidAt != nil {
			return e.PaidAt
		}
		return e.CompletedAt
	case EventPaymentExpired:
		return e.ExpiredAt
	case EventRefundCompleted:
		if e.RefundedAt != nil {
			return e.RefundedAt
		}
		return e.CompletedAt
	case EventPaymentFailed, EventWithdrawalFailed:
		return e.FailedAt
	case EventWithdrawalCompleted:
		return e.CompletedAt
	}
	return nil
}

// resolveIDs fills TransactionID and WithdrawalID from the ids the payload carries, and the
// fields the Node SDK's variant names stand for (blockId, refundTransactionId, completedAt).
func (e *Event) resolveIDs() {
	switch {
	case e.ID == "" && e.Kind == EventRefundCompleted && e.RefundTransactionID != "":
		e.ID = e.RefundTransactionID
	case e.ID == "" && e.Kind.IsBalanceBlock() && e.BlockID != "":
		e.ID = e.BlockID
	}
	if e.BalanceBlock != nil && e.BalanceBlock.ID == "" {
		e.BalanceBlock.ID = e.BlockID
	}
	if e.PaidAt == nil && e.Kind == EventPaymentCompleted && e.CompletedAt != nil {
		e.PaidAt = e.CompletedAt
	}
	if e.TransactionID == "" {
		switch {
		case e.OriginalTransactionID != "":
			e.TransactionID = e.OriginalTransactionID
		case (e.Kind.IsPayment() || e.Kind == EventRefundCompleted || !e.Kind.Known()) && e.ID != "":
			e.TransactionID = e.ID
		case e.BalanceBlock != nil && e.BalanceBlock.TransactionID != "":
			e.TransactionID = e.BalanceBlock.TransactionID
		}
	}
	if e.WithdrawalID == "" && e.Kind.IsWithdrawal() {
		e.WithdrawalID = e.ID
	}
}

// invalidJSON is the error for a body that is not valid JSON, worded by encoding/json.
func invalidJSON(body []byte) error {
	err := json.Unmarshal(body, new(json.RawMessage))
	if err == nil { // cannot happen: the body was found invalid; be safe
		err = errors.New("invalid JSON")
	}
	return fmt.Errorf("%w: %w", ErrEventInvalid, err)
}

// maxJSONDepth is encoding/json's nesting limit: a deeper value is not valid JSON for it.
const maxJSONDepth = 10000

// decodeMember stores one member of the payload; it returns the field's JSON name ("" for a
// member that is no field) and why the value could not be read. The frequent fields are decoded
// without reflection; the others go through decodeLoose.
func (e *Event) decodeMember(key []byte, raw []byte) (string, error) {
	switch string(key) {
	case "eventId":
		return "eventId", decodeString(raw, &e.EventID)
	case "event":
		return "event", decodeString(raw, (*string)(&e.Kind))
	case "createdAt":
		return "createdAt", e.CreatedAt.UnmarshalJSON(raw)
	case "timestamp":
		return "timestamp", e.CreatedAt.UnmarshalJSON(raw)
	case "subAccount":
		return "subAccount", decodeString(raw, &e.SubAccount)
	case "transactionId":
		return "transactionId", decodeString(raw, &e.TransactionID)
	case "externalReference":
		return "externalReference", decodeString(raw, &e.ExternalReference)
	case "status":
		return "status", decodeString(raw, (*string)(&e.Status))
	case "amount":
		return "amount", decodeMoney(raw, &e.Amount)
	case "netAmount":
		return "netAmount", decodeMoney(raw, &e.NetAmount)
	case "feeAmount":
		return "feeAmount", decodeMoney(raw, &e.FeeAmount)
	case "e2eId":
		return "e2eId", decodeString(raw, &e.E2EID)
	case "counterpartName":
		return "counterpartName", decodeString(raw, &e.CounterpartName)
	case "failureReason":
		return "failureReason", decodeString(raw, &e.FailureReason)
	}
	fields := eventFields()
	idx, ok := fields.exact[string(key)]
	if !ok {
		for name, j := range fields.exact {
			if strings.EqualFold(name, string(key)) {
				if _, hot := hotEventFields[name]; hot {
					return e.decodeMember([]byte(name), raw)
				}
				idx, ok = j, true
				break
			}
		}
	}
	if !ok {
		return "", nil // not a field of Event: ignored, as encoding/json does
	}
	f := reflect.ValueOf(e).Elem().Field(idx)
	name := fields.names[idx]
	if decodePlain(raw, f) {
		return name, nil
	}
	var problems []string
	decodeLoose(raw, f, name, &problems)
	if len(problems) > 0 {
		return name, errors.New(strings.Join(problems, "; "))
	}
	return name, nil
}

// decodePlain stores raw in field f without encoding/json when it is what the field most
// often gets, a string without escapes for a string or a timestamp for a *time.Time, and
// reports whether it did; the result is the one json.Unmarshal gives. Anything else (null, an
// escape, another type, a timestamp that does not parse) is left to decodeLoose.
func decodePlain(raw []byte, f reflect.Value) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return false
	}
	switch p := f.Addr().Interface().(type) {
	case *string:
		*p = string(in)
		return true
	case **time.Time:
		t := new(time.Time)
		if t.UnmarshalJSON(raw) != nil {
			return false
		}
		*p = t
		return true
	}
	return false
}

// hotEventFields are the members decodeMember reads without reflection.
var hotEventFields = map[string]struct{}{
	"eventId": {}, "event": {}, "createdAt": {}, "subAccount": {}, "transactionId": {}, "externalReference": {},
	"status": {}, "amount": {}, "netAmount": {}, "feeAmount": {}, "e2eId": {}, "counterpartName": {}, "failureReason": {},
}

// eventFieldTable maps Event's JSON names to field indices.
type eventFieldTable struct {
	exact map[string]int
	names map[int]string
}

// eventFields is built once from Event's struct tags.
var eventFields = sync.OnceValue(func() eventFieldTable {
	t := eventFieldTable{exact: map[string]int{}, names: map[int]string{}}
	rt := reflect.TypeFor[Event]()
	for i := range rt.NumField() {
		name := jsonName(rt.Field(i))
		if name == "" {
			continue
		}
		t.exact[name] = i
		t.names[i] = name
	}
	return t
})

// jsonName is the member name encoding/json uses for a field ("" when the field is skipped).
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

var errNotString = errors.New("not a JSON string")

// decodeString reads a JSON string into dst (null leaves it unchanged), without reflection when
// the string has no escapes.
func decodeString(raw []byte, dst *string) error {
	if len(raw) >= 2 && raw[0] == '"' {
		in := raw[1 : len(raw)-1]
		if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			*dst = string(in)
			return nil
		}
		return json.Unmarshal(raw, dst)
	}
	if string(raw) == "null" {
		return nil
	}
	return errNotString
}

// decodeMoney reads an amount; on error the field keeps its zero value.
func decodeMoney(raw []byte, dst *Money) error {
	var m Money
	if err := m.UnmarshalJSON(raw); err != nil {
		return err
	}
	if string(raw) != "null" {
		*dst = m
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// decodeLoose decodes raw into v (an addressable value). When encoding/json cannot, objects and
// arrays are decoded member by member, keeping what can be read; every value that cannot is left
// zero and reported in problems as "path: error".
func decodeLoose(raw []byte, v reflect.Value, path string, problems *[]string) {
	err := json.Unmarshal(raw, v.Addr().Interface())
	if err == nil {
		return
	}
	raw = bytes.TrimSpace(raw)
	t := v.Type()
	v.SetZero()
	switch {
	case t.Kind() == reflect.Pointer && !t.Implements(unmarshalerType) && len(raw) > 0 && (raw[0] == '{' || raw[0] == '['):
		p := reflect.New(t.Elem())
		decodeLoose(raw, p.Elem(), path, problems)
		v.Set(p)
		return
	case t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType) && len(raw) > 0 && raw[0] == '{':
		eachMember(raw, func(key string, val []byte) {
			idx, name := structField(t, key)
			if idx >= 0 {
				decodeLoose(val, v.Field(idx), path+"."+name, problems)
			}
		})
		return
	case t.Kind() == reflect.Slice && !reflect.PointerTo(t).Implements(unmarshalerType) && len(raw) > 0 && raw[0] == '[':
		n := 0
		eachElement(raw, func(val []byte) {
			v.Set(reflect.Append(v, reflect.Zero(t.Elem())))
			decodeLoose(val, v.Index(n), fmt.Sprintf("%s[%d]", path, n), problems)
			n++
		})
		return
	}
	*problems = append(*problems, path+": "+err.Error())
}

// structField finds the field of struct type t a member named key goes to (exact, then case-insensitive).
func structField(t reflect.Type, key string) (int, string) {
	fold := -1
	for i := range t.NumField() {
		name := jsonName(t.Field(i))
		if name == "" {
			continue
		}
		if name == key {
			return i, name
		}
		if fold < 0 && strings.EqualFold(name, key) {
			fold = i
		}
	}
	if fold >= 0 {
		return fold, jsonName(t.Field(fold))
	}
	return -1, ""
}

// eachMember calls f for each member of a valid JSON object.
func eachMember(b []byte, f func(key string, val []byte)) {
	i := skipBlank(b, 1)
	for i < len(b) && b[i] != '}' {
		kEnd := stringEnd(b, i)
		key, err := unquote(b[i:kEnd])
		if err != nil {
			return
		}
		vStart := skipBlank(b, skipBlank(b, kEnd)+1)
		vEnd := valueEnd(b, vStart)
		f(key, b[vStart:vEnd])
		i = skipBlank(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipBlank(b, i+1)
		}
	}
}

// eachElement calls f for each element of a valid JSON array.
func eachElement(b []byte, f func(val []byte)) {
	i := skipBlank(b, 1)
	for i < len(b) && b[i] != ']' {
		end := valueEnd(b, i)
		f(b[i:end])
		i = skipBlank(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipBlank(b, i+1)
		}
	}
}

// unquote decodes a JSON string token.
func unquote(tok []byte) (string, error) {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		if in := tok[1 : len(tok)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in), nil // a member name without escapes: decodeString's own result
		}
	}
	var s string
	err := decodeString(tok, &s)
	return s, err
}

// The scanners below assume valid JSON (DecodeEvent and decodeLoose only read validated values).

// stringEnd returns the index just past the string token starting at b[i] ('"').
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
