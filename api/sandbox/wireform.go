package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"pixdash/api"
)

// The service writes every timestamp in UTC with exactly three fractional digits
// ("2026-02-10T14:30:00.000Z"), while encoding/json writes a time.Time with as many as nine,
// trailing zeros dropped ("…31.03594316Z", "…31Z"). wireJSON re-encodes a reply or a webhook
// body member by member, in the same order, rewriting the timestamps the service's way.

// isTimeMember reports whether a member named key holds one of the service's timestamps:
// createdAt, updatedAt, paidAt, expiresAt, resolvedAt, settledAt, processedAt, … and the
// webhook envelope's timestamp.
func isTimeMember(key string) bool {
	return key == "timestamp" || (len(key) > 2 && strings.HasSuffix(key, "At"))
}

// serviceTime rewrites an RFC 3339 time as the service writes it; ok is false when s is not one.
func serviceTime(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(timeLayout), true
}

// wireJSON returns b (valid JSON from encoding/json) with the timestamps of time members in the
// service's form. Members under "metadata" are the merchant's own and are left as they came.
// Anything it cannot read is returned unchanged.
func wireJSON(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(b))
	type frame struct {
		object   bool
		n        int    // members or elements written
		key      string // current member's name (objects)
		expectKV bool   // next token is a member name (objects)
		opaque   bool   // inside metadata: nothing is rewritten
	}
	var stack []frame
	opaque := func() bool { return len(stack) > 0 && stack[len(stack)-1].opaque }
	// beforeValue writes the separator a value needs and reports the member it belongs to.
	beforeValue := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := &stack[len(stack)-1]
		if f.object {
			f.expectKV = true
			return f.key
		}
		if f.n > 0 {
			out.WriteByte(',')
		}
		f.n++
		return ""
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b
		}
		if len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.object && f.expectKV {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					out.WriteByte('}')
					continue
				}
				k, ok := tok.(string)
				if !ok {
					return b
				}
				if f.n > 0 {
					out.WriteByte(',')
				}
				f.n++
				f.key, f.expectKV = k, false
				kb, _ := json.Marshal(k)
				out.Write(kb)
				out.WriteByte(':')
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				key := beforeValue()
				op := opaque() || key == "metadata"
				stack = append(stack, frame{object: v == '{', expectKV: v == '{', opaque: op})
				out.WriteByte(byte(v))
			case ']':
				stack = stack[:len(stack)-1]
				out.WriteByte(']')
			default:
				return b
			}
		case string:
			key := beforeValue()
			if !opaque() && isTimeMember(key) {
				if s, ok := serviceTime(v); ok {
					v = s
				}
			}
			sb, err := json.Marshal(v)
			if err != nil {
				return b
			}
			out.Write(sb)
		default:
			beforeValue()
			vb, err := json.Marshal(v)
			if err != nil {
				return b
			}
			out.Write(vb)
		}
	}
	return out.Bytes()
}

// eventWire rewrites an encoded webhook envelope as the service sends it: timestamps with
// milliseconds and the account's environment ("sandbox" or "production") as data.environment,
// the name the service's Node SDK gives it.
func eventWire(body []byte, env api.Environment) []byte {
	return wireJSON(withDataMember(body, "environment", string(env)))
}

// withDataMember adds "name": value as the last member of the envelope's data object (body is
// the compact encoding of an eventEnvelope, data last); body is returned unchanged when data
// already has the member, is not an object, or value is empty.
func withDataMember(body []byte, name, value string) []byte {
	if value == "" {
		return body
	}
	var probe struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Data == nil {
		return body
	}
	if _, has := probe.Data[name]; has {
		return body
	}
	// The envelope ends with the data object and the envelope's own brace: "…}}".
	if !bytes.HasSuffix(body, []byte("}}")) {
		return body
	}
	kb, _ := json.Marshal(name)
	vb, _ := json.Marshal(value)
	member := append(append(append([]byte{}, kb...), ':'), vb...)
	head := body[:len(body)-2]
	out := append([]byte{}, head...)
	if len(probe.Data) > 0 {
		out = append(out, ',')
	}
	out = append(out, member...)
	return append(out, '}', '}')
}

// blockBody is a balance block as the service writes it: resolutionReason and resolvedAt are
// always present, null while the block is open.
type blockBody struct {
	ID                string          `json:"id"`
	TransactionID     string          `json:"transactionId"`
	ExternalReference *string         `json:"externalReference"`
	E2EID             *string         `json:"e2eId"`
	Amount            api.Money       `json:"amount"`
	Status            api.BlockStatus `json:"status"`
	BlockType         string          `json:"blockType"`
	ReferenceNumber   string          `json:"referenceNumber"`
	Reason            string          `json:"reason"`
	ResolutionReason  *string         `json:"resolutionReason"`
	ResolvedAt        *time.Time      `json:"resolvedAt"`
	CreatedAt         time.Time       `json:"createdAt"`
}

// wire is the block's body in replies and balance_block_* events.
func (b *block) wire() blockBody {
	v := b.view()
	return blockBody{ID: v.ID, TransactionID: v.TransactionID, ExternalReference: optString(v.ExternalReference),
		E2EID: optString(v.E2EID), Amount: v.Amount, Status: v.Status, BlockType: v.BlockType,
		ReferenceNumber: v.ReferenceNumber, Reason: v.Reason, ResolutionReason: optString(v.ResolutionReason),
		ResolvedAt: v.ResolvedAt, CreatedAt: v.CreatedAt}
}
