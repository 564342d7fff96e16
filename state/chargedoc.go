package state

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"pixdash/api"
)

// A charge's stored document (charges.doc) holds what the row's columns do not: id, wallet,
// amount, external_reference, created_at, paid_at, updated_at and fee are read from the
// columns, which putChargeTx writes from the same charge. The document is a version byte
// (docV1) followed by fields in the protocol buffers wire format (google.golang.org/protobuf's
// protowire: tagged varints and length-prefixed bytes, no schema compiler, unknown fields
// skipped; `protoc --decode_raw` reads it after the first byte). Times are integers: unix
// milliseconds (in a column, or as a field), the nanoseconds below the millisecond and the zone
// offset only when not zero, so a time reads back as the JSON document gave it (the instant,
// and its offset: UTC for "Z", else the local zone when its offset then agrees, else a fixed
// zone). The rare nested values (a blocked deposit, a MED block, split legs) are JSON inside
// their field, written by the same encoder the former documents used.
//
// Documents written before schema 12 are the whole charge as JSON (they start with '{'); they
// are read as they always were, columns ignored, until the charge's next write turns them into
// this form.
const docV1 = 0x01

// The fields of a docV1 document. Numbers are never reused; a field absent is its zero value.
const (
	fKey         protowire.Number = 1  // IdempotencyKey, as text
	fKeyPixdash  protowire.Number = 2  // IdempotencyKey "pixdash-" + 32 hex digits: the 16 bytes
	fKeyUUID     protowire.Number = 3  // IdempotencyKey as a lowercase UUID: the 16 bytes
	fDescription protowire.Number = 4  // Description
	fStatus      protowire.Number = 5  // Status, a known one: statusCodes
	fStatusText  protowire.Number = 6  // Status, any other
	fExpired     protowire.Number = 7  // Expired (1)
	fCreated     protowire.Number = 8  // CreatedAt: timeZero when zero (created_at then holds when it was first seen), ns, offset
	fExpires     protowire.Number = 11 // ExpiresAt: ms after created_at (zigzag; after 0 when CreatedAt is zero), ns, offset
	fPaid        protowire.Number = 14 // PaidAt (ms in paid_at): flags, ns, offset
	fPix         protowire.Number = 17 // PixCopyPaste
	fE2E         protowire.Number = 18 // E2EID
	fPayerName   protowire.Number = 19 // PayerName
	fPayerDoc    protowire.Number = 20 // PayerDocument
	fFailure     protowire.Number = 21 // FailureReason
	fBlockedDep  protowire.Number = 22 // BlockedDeposit, JSON
	fSplitReq    protowire.Number = 23 // SplitRequested, JSON
	fSplitDist   protowire.Number = 24 // SplitDistributed, JSON
	fHasDist     protowire.Number = 25 // HasDistributed (1)
	fFeeReported protowire.Number = 26 // FeeReported (zigzag centavos; present when not nil)
	fSplitRep    protowire.Number = 27 // SplitReported, JSON
	fUpdated     protowire.Number = 28 // UpdatedAt (ms in updated_at): flags, ns, offset
	fSource      protowire.Number = 31 // Source, a known one: sourceCodes
	fSourceText  protowire.Number = 32 // Source, any other
	fCounter     protowire.Number = 33 // Counter
	fRefunded    protowire.Number = 34 // Refunded (zigzag centavos)
	fRefundedAt  protowire.Number = 35 // RefundedAt: ms (zigzag, present when not nil), ns, offset
	fBlock       protowire.Number = 38 // Block, JSON
	fMissing     protowire.Number = 39 // Missing (zigzag)
	fMissingAt   protowire.Number = 40 // MissingSince: ms (zigzag, present when not zero), ns, offset
	fNotFound    protowire.Number = 43 // NotFound (1)
	fMismatch    protowire.Number = 44 // Mismatch
)

// A time takes three consecutive field numbers from its first: the milliseconds (or, for a
// time whose milliseconds are a column, flags), the nanoseconds below the millisecond, and the
// zone's offset east of UTC in seconds (zigzag).
const (
	tNs  = 1
	tOff = 2
)

// timeZero is the flag of a column time that is the zero time (the column then holds another).
const timeZero = 1

var statusCodes = []api.TxStatus{1: api.StatusPending, 2: api.StatusCompleted, 3: api.StatusFailed, 4: api.StatusCancelled}

var sourceCodes = []string{1: SourceCreated, 2: SourceEvent, 3: SourceLookup, 4: SourceHub}

// The columns a charge is read from, in chargeRow.dest's order: chargeColsPlain for a query
// of charges alone, chargeColsC where charges is aliased c.
const (
	chargeColsPlain = `id, wallet, amount, external_reference, created_at, paid_at, updated_at, fee, doc`
	chargeColsC     = `c.id, c.wallet, c.amount, c.external_reference, c.created_at, c.paid_at, c.updated_at, c.fee, c.doc`
)

// chargeRow is a charges row as read (chargeCols): the columns the document does not repeat,
// and the document. One chargeRow is reused for every row of a query.
type chargeRow struct {
	id, wallet, ref  string
	amount           int64
	created, updated int64
	paid, fee        sql.NullInt64
	// doc is the document: raw (the driver's bytes, valid until the next row: Rows.Scan) or
	// owned (a copy: Row.Scan, which refuses sql.RawBytes).
	doc, owned []byte
	raw        sql.RawBytes
	dests      []any
}

// dest is the Rows.Scan destinations of chargeCols, after extra ones (such as a key read
// first); they are built once, on the first call (a query passes the same extra every row).
func (r *chargeRow) dest(extra ...any) []any {
	if r.dests == nil {
		r.dests = append(append(r.dests, extra...), &r.id, &r.wallet, &r.amount, &r.ref, &r.created, &r.paid, &r.updated, &r.fee, &r.raw)
	}
	return r.dests
}

// rowDest is the Row.Scan destinations of chargeCols.
func (r *chargeRow) rowDest() []any {
	r.raw = nil
	return []any{&r.id, &r.wallet, &r.amount, &r.ref, &r.created, &r.paid, &r.updated, &r.fee, &r.owned}
}

// charge decodes the row into c (which it overwrites).
func (r *chargeRow) charge(c *Charge) error {
	r.doc = r.raw
	if r.raw == nil {
		r.doc = r.owned
	}
	if err := decodeCharge(c, r); err != nil {
		return fmt.Errorf("%w: charge %s: %w", ErrDamaged, r.id, err)
	}
	return nil
}

// scanChargeRow scans the current row of rows (chargeCols after extra) and decodes it.
func scanChargeRow(rows *sql.Rows, r *chargeRow, c *Charge, extra ...any) error {
	if err := rows.Scan(r.dest(extra...)...); err != nil {
		return classify(err)
	}
	return r.charge(c)
}

// chargeDoc is the document putChargeTx writes for c (its columns are written from c too).
func chargeDoc(c *Charge) []byte { return appendChargeDoc(make([]byte, 0, 160), c) }

// appendChargeDoc appends c's docV1 document to b.
func appendChargeDoc(b []byte, c *Charge) []byte {
	b = append(b, docV1)
	if k := c.IdempotencyKey; k != "" {
		if p := packedKey(k, pixdashKey); p != nil {
			b = protowire.AppendTag(b, fKeyPixdash, protowire.BytesType)
			b = protowire.AppendBytes(b, p)
		} else if p := packedKey(k, uuidKey); p != nil {
			b = protowire.AppendTag(b, fKeyUUID, protowire.BytesType)
			b = protowire.AppendBytes(b, p)
		} else {
			b = appendString(b, fKey, k)
		}
	}
	b = appendString(b, fDescription, c.Description)
	if code := codeOf(statusCodes, c.Status); code > 0 {
		b = appendVarint(b, fStatus, uint64(code))
	} else {
		b = appendString(b, fStatusText, string(c.Status))
	}
	b = appendBool(b, fExpired, c.Expired)
	b = appendColTime(b, fCreated, c.CreatedAt)
	if !c.ExpiresAt.IsZero() {
		var base int64
		if !c.CreatedAt.IsZero() {
			base = c.CreatedAt.UnixMilli()
		}
		b = appendTime(b, fExpires, c.ExpiresAt, base)
	}
	if c.PaidAt != nil {
		b = appendColTime(b, fPaid, *c.PaidAt)
	}
	b = appendString(b, fPix, c.PixCopyPaste)
	b = appendString(b, fE2E, c.E2EID)
	b = appendString(b, fPayerName, c.PayerName)
	b = appendString(b, fPayerDoc, c.PayerDocument)
	b = appendString(b, fFailure, c.FailureReason)
	if c.BlockedDeposit != nil {
		b = appendJSON(b, fBlockedDep, c.BlockedDeposit)
	}
	if len(c.SplitRequested) > 0 {
		b = appendJSON(b, fSplitReq, c.SplitRequested)
	}
	if len(c.SplitDistributed) > 0 {
		b = appendJSON(b, fSplitDist, c.SplitDistributed)
	}
	b = appendBool(b, fHasDist, c.HasDistributed)
	if c.FeeReported != nil {
		b = protowire.AppendTag(b, fFeeReported, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(*c.FeeReported)))
	}
	if len(c.SplitReported) > 0 {
		b = appendJSON(b, fSplitRep, c.SplitReported)
	}
	b = appendColTime(b, fUpdated, c.UpdatedAt)
	if code := codeOf(sourceCodes, c.Source); code > 0 {
		b = appendVarint(b, fSource, uint64(code))
	} else {
		b = appendString(b, fSourceText, c.Source)
	}
	b = appendString(b, fCounter, c.Counter)
	b = appendZigZag(b, fRefunded, int64(c.Refunded))
	if c.RefundedAt != nil {
		b = appendTime(b, fRefundedAt, *c.RefundedAt, 0)
	}
	if c.Block != nil {
		b = appendJSON(b, fBlock, c.Block)
	}
	b = appendZigZag(b, fMissing, int64(c.Missing))
	if !c.MissingSince.IsZero() {
		b = appendTime(b, fMissingAt, c.MissingSince, 0)
	}
	b = appendBool(b, fNotFound, c.NotFound)
	b = appendString(b, fMismatch, c.Mismatch)
	return b
}

func appendString(b []byte, n protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarint(b []byte, n protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendZigZag(b []byte, n protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(b, n, protowire.EncodeZigZag(v))
}

func appendBool(b []byte, n protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, n, 1)
}

// appendJSON appends v as JSON (the nested values keep the former documents' encoding).
func appendJSON(b []byte, n protowire.Number, v any) []byte {
	js, err := json.Marshal(v)
	if err != nil {
		// Only a value JSON cannot hold fails, and these types hold none.
		panic(fmt.Sprintf("state: encoding a charge's %T: %v", v, err))
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, js)
}

// appendTime appends t as milliseconds since base (zigzag), then the rest (appendTimeRest).
func appendTime(b []byte, n protowire.Number, t time.Time, base int64) []byte {
	b = appendVarint(b, n, protowire.EncodeZigZag(t.UnixMilli()-base))
	return appendTimeRest(b, n, t)
}

// appendColTime appends what a time whose milliseconds are a column needs besides them.
func appendColTime(b []byte, n protowire.Number, t time.Time) []byte {
	if t.IsZero() {
		return appendVarint(b, n, timeZero)
	}
	return appendTimeRest(b, n, t)
}

// appendTimeRest appends t's nanoseconds below the millisecond and its zone's offset, each
// when not zero.
func appendTimeRest(b []byte, n protowire.Number, t time.Time) []byte {
	if ns := t.Nanosecond() % 1e6; ns != 0 {
		b = appendVarint(b, n+tNs, uint64(ns))
	}
	_, off := t.Zone()
	return appendZigZag(b, n+tOff, int64(off))
}

// timeParts is a time as a document holds it.
type timeParts struct {
	set     bool // the milliseconds field was present
	ms      int64
	flags   uint64
	ns, off int64
}

// at is the time: ms (plus base) and the parts, in the zone the JSON documents gave.
func (p *timeParts) at(ms int64) time.Time {
	t := time.UnixMilli(ms).Add(time.Duration(p.ns))
	if p.off == 0 {
		return t.UTC()
	}
	// As time.Parse reads an offset: the local zone when it has this offset at that instant.
	if l := t.In(time.Local); zoneOffset(l) == int(p.off) {
		return l
	}
	return t.In(time.FixedZone("", int(p.off)))
}

func zoneOffset(t time.Time) int {
	_, off := t.Zone()
	return off
}

// codeOf is v's index in codes (0 for none).
func codeOf[T comparable](codes []T, v T) int {
	var zero T
	if v == zero {
		return 0
	}
	for i := 1; i < len(codes); i++ {
		if codes[i] == v {
			return i
		}
	}
	return 0
}

// errDoc reports a document that is neither a JSON charge nor a readable docV1.
var errDoc = errors.New("unreadable charge document")

// decodeCharge fills c from a charges row: a docV1 document with the row's columns, or a
// former JSON document alone.
func decodeCharge(c *Charge, r *chargeRow) error {
	doc := r.doc
	*c = Charge{}
	if len(doc) > 0 && doc[0] == '{' {
		if err := json.Unmarshal(doc, c); err != nil {
			return err
		}
		c.dropSpentCode() // as the charge's next write would
		return nil
	}
	if len(doc) == 0 || doc[0] != docV1 {
		return errDoc
	}
	s := string(doc) // one allocation for every text of the charge
	str := func(v []byte, rest []byte) string {
		end := len(doc) - len(rest)
		return s[end-len(v) : end]
	}
	var created, expires, paid, updated, refundedAt, missingAt timeParts
	times := func(n protowire.Number) (*timeParts, protowire.Number) {
		switch {
		case n >= fCreated && n < fCreated+3:
			return &created, n - fCreated
		case n >= fExpires && n < fExpires+3:
			return &expires, n - fExpires
		case n >= fPaid && n < fPaid+3:
			return &paid, n - fPaid
		case n >= fUpdated && n < fUpdated+3:
			return &updated, n - fUpdated
		case n >= fRefundedAt && n < fRefundedAt+3:
			return &refundedAt, n - fRefundedAt
		case n >= fMissingAt && n < fMissingAt+3:
			return &missingAt, n - fMissingAt
		}
		return nil, 0
	}
	b := doc[1:]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			if tp, part := times(num); tp != nil {
				switch part {
				case 0:
					tp.set, tp.ms, tp.flags = true, protowire.DecodeZigZag(v), v
				case tNs:
					tp.ns = int64(v)
				case tOff:
					tp.off = protowire.DecodeZigZag(v)
				}
				continue
			}
			switch num {
			case fStatus:
				if v < uint64(len(statusCodes)) {
					c.Status = statusCodes[v]
				}
			case fExpired:
				c.Expired = v != 0
			case fHasDist:
				c.HasDistributed = v != 0
			case fFeeReported:
				fee := api.Money(protowire.DecodeZigZag(v))
				c.FeeReported = &fee
			case fSource:
				if v < uint64(len(sourceCodes)) {
					c.Source = sourceCodes[v]
				}
			case fRefunded:
				c.Refunded = api.Money(protowire.DecodeZigZag(v))
			case fMissing:
				c.Missing = int(protowire.DecodeZigZag(v))
			case fNotFound:
				c.NotFound = v != 0
			}
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			var err error
			switch num {
			case fKey:
				c.IdempotencyKey = str(v, b)
			case fKeyPixdash:
				c.IdempotencyKey, err = unpackKey(v, pixdashKey)
			case fKeyUUID:
				c.IdempotencyKey, err = unpackKey(v, uuidKey)
			case fDescription:
				c.Description = str(v, b)
			case fStatusText:
				c.Status = api.TxStatus(str(v, b))
			case fPix:
				c.PixCopyPaste = str(v, b)
			case fE2E:
				c.E2EID = str(v, b)
			case fPayerName:
				c.PayerName = str(v, b)
			case fPayerDoc:
				c.PayerDocument = str(v, b)
			case fFailure:
				c.FailureReason = str(v, b)
			case fBlockedDep:
				err = json.Unmarshal(v, &c.BlockedDeposit)
			case fSplitReq:
				err = json.Unmarshal(v, &c.SplitRequested)
			case fSplitDist:
				err = json.Unmarshal(v, &c.SplitDistributed)
			case fSplitRep:
				err = json.Unmarshal(v, &c.SplitReported)
			case fSourceText:
				c.Source = str(v, b)
			case fCounter:
				c.Counter = str(v, b)
			case fBlock:
				err = json.Unmarshal(v, &c.Block)
			case fMismatch:
				c.Mismatch = str(v, b)
			}
			if err != nil {
				return fmt.Errorf("field %d: %w", num, err)
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	c.ID, c.Wallet, c.Amount, c.ExternalReference = r.id, r.wallet, api.Money(r.amount), r.ref
	if created.flags&timeZero == 0 {
		c.CreatedAt = created.at(r.created)
	}
	if expires.set {
		base := int64(0)
		if !c.CreatedAt.IsZero() {
			base = r.created
		}
		c.ExpiresAt = expires.at(base + expires.ms)
	}
	if r.paid.Valid {
		var t time.Time
		if paid.flags&timeZero == 0 {
			t = paid.at(r.paid.Int64)
		}
		c.PaidAt = &t
	}
	if updated.flags&timeZero == 0 {
		c.UpdatedAt = updated.at(r.updated)
	}
	if r.fee.Valid {
		fee := api.Money(r.fee.Int64)
		c.Fee = &fee
	}
	if refundedAt.set {
		t := refundedAt.at(refundedAt.ms)
		c.RefundedAt = &t
	}
	if missingAt.set {
		c.MissingSince = missingAt.at(missingAt.ms)
	}
	return nil
}

// The shapes of idempotency keys a document holds as 16 bytes: pixdash's own
// (api.NewIdempotencyKey) and a lowercase UUID.
const (
	pixdashKey = "pixdash-################################"
	uuidKey    = "########-####-####-####-############"
)

// packedKey is the 16 bytes of key when it has the shape (each # a lowercase hex digit, the
// rest as written); nil otherwise.
func packedKey(key, shape string) []byte {
	if len(key) != len(shape) {
		return nil
	}
	out := make([]byte, 0, 16)
	var hi byte
	half := false
	for i := 0; i < len(key); i++ {
		if shape[i] != '#' {
			if key[i] != shape[i] {
				return nil
			}
			continue
		}
		var v byte
		switch ch := key[i]; {
		case ch >= '0' && ch <= '9':
			v = ch - '0'
		case ch >= 'a' && ch <= 'f':
			v = ch - 'a' + 10
		default:
			return nil
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	return out
}

// unpackKey writes 16 bytes back in the key's shape.
func unpackKey(b []byte, shape string) (string, error) {
	if len(b) != 16 {
		return "", fmt.Errorf("an idempotency key of %d bytes", len(b))
	}
	const hexDigits = "0123456789abcdef"
	var out [len(pixdashKey)]byte // the longer shape
	j := 0
	for i := 0; i < len(shape); i++ {
		if shape[i] != '#' {
			out[i] = shape[i]
			continue
		}
		v := b[j/2]
		if j%2 == 0 {
			v >>= 4
		}
		out[i] = hexDigits[v&0xf]
		j++
	}
	return string(out[:len(shape)]), nil
}

// dropSpentCode forgets the PIX code (copia e cola) of a charge that can no longer be paid: a
// payment received, failed or cancelled (expired included), as the service's status says. Such
// a code is never shown to a customer again (the QR screen shows the result instead) and is
// most of what such a charge would store; a charge in a status the spec does not name keeps it.
func (c *Charge) dropSpentCode() {
	switch c.Status {
	case api.StatusCompleted, api.StatusFailed, api.StatusCancelled:
		c.PixCopyPaste = ""
	}
}
