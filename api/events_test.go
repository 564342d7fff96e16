package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullEvent sets every field of Event, so a field the decoder forgets shows up as a difference.
func fullEvent() Event {
	created := time.Date(2026, 11, 21, 14, 30, 0, 123000000, time.UTC)
	paid := created.Add(time.Second)
	e2e := "D9999"
	return Event{
		EventID: "evt-full", Kind: EventPaymentFailed, CreatedAt: created, SubAccount: "loja-sul",
		ID: "tx-1", TransactionID: "tx-1", OriginalTransactionID: "tx-0", WithdrawalID: "wd-1", CounterpartDocument: "11222333000181",
		ExternalReference: "PED-1", Status: StatusFailed,
		Amount: 1234, NetAmount: 1200, FeeAmount: 34,
		Split:          []SplitItem{{SubAccount: "principal", Amount: 500}, {SubAccount: "loja-norte", Amount: 1}},
		BlockedDeposit: &BlockedDeposit{Reason: ReasonCNPJPayerNotAllowed, Refund: &Refund{Status: RefundConfirmed, E2EID: &e2e, SettledAt: &paid}},
		E2EID:          "E1234", PaidAt: &paid, CounterpartName: "Padaria Ltda", FailureReason: "CNPJ",
		BalanceBlock: &BalanceBlock{ID: "blk-1", TransactionID: "tx-1", Amount: 1000, Status: BlockAwaitingResponse,
			BlockType: BlockTypeMED, ReferenceNumber: "MED-1", CreatedAt: created},
		Environment: Sandbox, BlockID: "blk-1", RefundTransactionID: "tx-r", ReversalTransactionID: "tx-v",
		CompletedAt: &paid, ExpiredAt: &created, RefundedAt: &paid, FailedAt: &created,
	}
}

func TestDecodeEventEveryField(t *testing.T) {
	want := fullEvent()
	body, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	if got.DecodeErr != "" || !bytes.Equal(got.Raw, body) {
		t.Fatalf("DecodeErr %q, Raw %s", got.DecodeErr, got.Raw)
	}
	got.Raw = nil
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", *got, want)
	}
	// Every JSON-named field of Event must have been set by fullEvent (else this test proves nothing).
	rv := reflect.ValueOf(want)
	for i := range rv.NumField() {
		if jsonName(rv.Type().Field(i)) != "" && rv.Field(i).IsZero() {
			t.Errorf("fullEvent leaves %s empty", rv.Type().Field(i).Name)
		}
	}
}

func TestDecodeEventInvalid(t *testing.T) {
	cases := []struct{ name, body string }{
		{"empty", ``},
		{"not JSON", `{"eventId":"e",`},
		{"trailing garbage", `{"eventId":"e","event":"x"} x`},
		{"array", `[{"eventId":"e","event":"x"}]`},
		{"null", `null`},
		{"number", `42`},
		{"string", `"e"`},
		{"no eventId", `{"event":"payment_completed"}`},
		{"empty eventId", `{"eventId":"","event":"payment_completed"}`},
		{"null eventId", `{"eventId":null,"event":"payment_completed"}`},
		{"eventId a number", `{"eventId":42,"event":"payment_completed"}`},
		{"eventId an object", `{"eventId":{"id":"e"},"event":"payment_completed"}`},
		{"no kind", `{"eventId":"e"}`},
		{"empty kind", `{"eventId":"e","event":""}`},
		{"kind a list", `{"eventId":"e","event":["payment_completed"]}`},
	}
	for _, c := range cases {
		ev, err := DecodeEvent([]byte(c.body))
		if !errors.Is(err, ErrEventInvalid) || ev != nil {
			t.Errorf("%s: DecodeEvent = %+v, %v; want ErrEventInvalid", c.name, ev, err)
		}
	}
}

func TestDecodeEventTolerant(t *testing.T) {
	cases := []struct {
		name, body string
		problems   []string // each must appear in DecodeErr; none means DecodeErr is ""
		check      func(e *Event) bool
	}{
		{"clean", `{"eventId":"e","event":"payment_completed","amount":10.5,"createdAt":"2026-11-21T14:30:00-03:00"}`, nil,
			func(e *Event) bool {
				return e.Amount == 1050 && e.CreatedAt.Equal(time.Date(2026, 11, 21, 17, 30, 0, 0, time.UTC))
			}},
		{"amount string with 2 decimals is fine", `{"eventId":"e","event":"refund_completed","amount":"10.50"}`, nil,
			func(e *Event) bool { return e.Amount == 1050 }},
		{"createdAt not RFC 3339", `{"eventId":"e","event":"payment_completed","createdAt":"2026-11-21 14:30","amount":1}`,
			[]string{"createdAt"}, func(e *Event) bool { return e.CreatedAt.IsZero() && e.Amount == 100 }},
		{"createdAt a number", `{"eventId":"e","event":"payment_completed","createdAt":1763735400}`,
			[]string{"createdAt"}, func(e *Event) bool { return e.CreatedAt.IsZero() }},
		{"amount 3 decimals", `{"eventId":"e","event":"payment_completed","amount":10.505,"netAmount":10}`,
			[]string{"amount"}, func(e *Event) bool { return e.Amount == 0 && e.NetAmount == 1000 }},
		{"amount string 3 decimals", `{"eventId":"e","event":"payment_completed","amount":"10.505"}`,
			[]string{"amount"}, func(e *Event) bool { return e.Amount == 0 }},
		{"amount true", `{"eventId":"e","event":"payment_completed","amount":true}`,
			[]string{"amount"}, func(e *Event) bool { return e.Amount == 0 }},
		{"status a number", `{"eventId":"e","event":"payment_completed","status":3,"e2eId":"E1"}`,
			[]string{"status"}, func(e *Event) bool { return e.Status == "" && e.E2EID == "E1" }},
		{"two problems", `{"eventId":"e","event":"x","createdAt":"yesterday","feeAmount":"0.001","subAccount":"s"}`,
			[]string{"createdAt", "feeAmount"}, func(e *Event) bool { return e.SubAccount == "s" && e.Kind == "x" }},
		{"paidAt odd", `{"eventId":"e","event":"payment_completed","paidAt":"now"}`,
			[]string{"paidAt"}, func(e *Event) bool { return e.PaidAt == nil }},
		{"blockedDeposit a string", `{"eventId":"e","event":"payment_failed","blockedDeposit":"cnpj"}`,
			[]string{"blockedDeposit"}, func(e *Event) bool { return e.BlockedDeposit == nil }},
		{"balanceBlock with odd amount", `{"eventId":"e","event":"balance_block_created","balanceBlock":{"id":"b","amount":"1.001","status":"approved","blockType":"MED"}}`,
			[]string{"balanceBlock.amount"}, func(e *Event) bool {
				b := e.BalanceBlock
				return b != nil && b.ID == "b" && b.Amount == 0 && b.Status == BlockApproved && b.BlockType == "MED"
			}},
		{"unknown members ignored", `{"eventId":"e","event":"pix_new","x":{"y":[1,2,{"z":"}"}]},"w":null}`, nil,
			func(e *Event) bool { return e.Kind == "pix_new" }},
		{"case-insensitive names", `{"EVENTID":"e","Event":"payment_completed","SUBACCOUNT":"loja","Split":[{"SubAccount":"a","AMOUNT":1}]}`, nil,
			func(e *Event) bool {
				return e.EventID == "e" && e.SubAccount == "loja" && len(e.Split) == 1 && e.Split[0] == SplitItem{"a", 100}
			}},
		{"exact name wins over fold, last wins", `{"eventId":"a","EventId":"b","event":"k","event":"payment_completed"}`, nil,
			func(e *Event) bool { return e.EventID == "b" && e.Kind == EventPaymentCompleted }},
		{"escaped strings", `{"eventId":"e\u0031","event":"payment_completed","counterpartName":"Caf\u00e9 \"Ltda\"","e2e\u0049d":"E\\1"}`, nil,
			func(e *Event) bool {
				return e.EventID == "e1" && e.CounterpartName == `Café "Ltda"` && e.E2EID == `E\1`
			}},
		{"null keeps zero", `{"eventId":"e","event":"payment_completed","split":null,"paidAt":null,"amount":null,"status":null}`, nil,
			func(e *Event) bool { return e.Split == nil && e.PaidAt == nil && e.Amount == 0 && e.Status == "" }},
		{"whitespace everywhere", " \n{ \"eventId\" : \"e\" ,\t\"event\" :\r\n\"x\" , \"amount\" : 1.5 } \n", nil,
			func(e *Event) bool { return e.Amount == 150 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := DecodeEvent([]byte(c.body))
			if err != nil {
				t.Fatalf("DecodeEvent = %v, want the event", err)
			}
			if string(ev.Raw) != c.body {
				t.Errorf("Raw = %q", ev.Raw)
			}
			if len(c.problems) == 0 && ev.DecodeErr != "" {
				t.Errorf("DecodeErr = %q, want none", ev.DecodeErr)
			}
			for _, p := range c.problems {
				if !strings.Contains(ev.DecodeErr, p+": ") {
					t.Errorf("DecodeErr = %q, want it to name %s", ev.DecodeErr, p)
				}
			}
			if !c.check(ev) {
				t.Errorf("decoded %+v", ev)
			}
		})
	}
}

func TestDecodeEventProblemsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"eventId":"e","event":"x"`)
	for i := range 40 {
		fmt.Fprintf(&b, `,"amount":"%s%d.123"`, strings.Repeat("9", 500), i)
	}
	b.WriteString(`}`)
	ev, err := DecodeEvent([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ev.DecodeErr); n > (maxDecodeProblems+1)*(maxDecodeProblemText+8) {
		t.Fatalf("DecodeErr is %d bytes", n)
	}
	if !strings.HasSuffix(ev.DecodeErr, "…") {
		t.Errorf("DecodeErr does not say problems were left out: %q", ev.DecodeErr)
	}
}

// FuzzDecodeEvent checks DecodeEvent against encoding/json: whenever json.Unmarshal reads the
// body without error and finds an eventId and a kind, DecodeEvent returns the same event with
// no DecodeErr; whenever DecodeEvent accepts a body, it is a JSON object with both ids.
func FuzzDecodeEvent(f *testing.F) {
	full, _ := json.Marshal(fullEvent())
	f.Add(full)
	f.Add([]byte(`{"eventId":"e","event":"payment_completed","amount":10.505}`))
	f.Add([]byte(`{"eventId":"e","event":"payment_completed","createdAt":"21/11/2026"}`))
	f.Add([]byte(`{"EVENTID":"e","event":"x","Split":[{"subaccount":"a","amount":"1"}],"e2e\u0049d":"\u00e9"}`))
	f.Add([]byte(`{"eventId":"a","eventId":"b","event":"k","blockedDeposit":{"reason":"r"},"blockedDeposit":{"refund":null}}`))
	f.Add([]byte(`{"eventId":"e","event":"x","balanceBlock":{"amount":"x","resolvedAt":"y"}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"eventId":"\xff","event":"x"}`))
	f.Add([]byte(`{"eventId":"e","event":"k","x":[1,-0.5e+3,true,null,{"a":"\u00e9\n"}]} `))
	f.Add([]byte(`{"eventId":"e","event":"k","x":01}`))
	f.Add([]byte(`{"event":"payment_completed","eventId":"e","timestamp":"2026-11-23T14:31:06.280Z","data":{"id":"tx","amount":1.5,"split":[{"subAccount":"a","amount":1}]}}`))
	f.Add([]byte(`{"event":"balance_block_created","eventId":"e","data":{"id":"b","transactionId":"tx","amount":"x","status":"defended"}}`))
	f.Add([]byte(`{"event":"withdrawal_failed","eventId":"e","data":{"id":"w","data":{"id":"x"},"eventId":"z"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		// The single-pass validation agrees with json.Valid.
		end := skipValue(body, skipBlank(body, 0), 0)
		if valid := end >= 0 && skipBlank(body, end) == len(body); valid != json.Valid(body) {
			t.Fatalf("skipValue says %v, json.Valid %v", valid, !valid)
		}
		ev, err := DecodeEvent(body)
		if err == nil {
			if ev.EventID == "" || ev.Kind == "" || !bytes.Equal(ev.Raw, body) {
				t.Fatalf("accepted without ids or with another Raw: %+v", ev)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) != nil || m == nil {
				t.Fatalf("accepted a body that is not a JSON object")
			}
		} else if !errors.Is(err, ErrEventInvalid) {
			t.Fatalf("error %v is not ErrEventInvalid", err)
		}
		var ref Event
		if json.Unmarshal(body, &ref) != nil || ref.EventID == "" || ref.Kind == "" {
			return
		}
		// The envelope's data and timestamp are read beyond what encoding/json does; those
		// bodies are checked by TestReplayEnvelopes and the properties above.
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) == nil && (top["data"] != nil || top["timestamp"] != nil) {
			if err != nil || ev.EventID != ref.EventID || ev.Kind != ref.Kind {
				t.Fatalf("envelope: %v, %+v", err, ev)
			}
			return
		}
		ref.resolveIDs()
		if err != nil {
			t.Fatalf("encoding/json reads it but DecodeEvent refuses: %v", err)
		}
		if ev.DecodeErr != "" {
			t.Fatalf("encoding/json reads it but DecodeEvent reports %q", ev.DecodeErr)
		}
		ev.Raw = nil
		if !reflect.DeepEqual(*ev, ref) {
			t.Fatalf("DecodeEvent\n%+v\nencoding/json\n%+v", *ev, ref)
		}
	})
}

// BenchmarkDecodeEvent decodes the receiver benchmark's payload.
func BenchmarkDecodeEvent(b *testing.B) {
	body := webhookBody("evt-bench-decode")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeEvent(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeEventDepth checks that the nesting limit is encoding/json's.
func TestDecodeEventDepth(t *testing.T) {
	for _, depth := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		// The event object is one level; x holds depth-1 more arrays.
		body := []byte(`{"eventId":"e","event":"k","x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
		_, err := DecodeEvent(body)
		if want := json.Valid(body); (err == nil) != want {
			t.Errorf("depth %d: DecodeEvent error %v, json.Valid %v", depth, err, want)
		}
	}
}

// servicePayment is a payment_completed as the service sends it: the envelope and a data
// object with the members a payment carries (some decoded by name, some through Event's tags).
const servicePayment = `{"event":"payment_completed","eventId":"7f9c1d2e-3b4a-4c5d-8e6f-0a1b2c3d4e5f","timestamp":"2026-11-28T09:00:00.123Z","subAccount":"loja-centro",` +
	`"data":{"id":"c0ffee00-1234-4abc-9def-000000000001","transactionId":"c0ffee00-1234-4abc-9def-000000000001","externalReference":"PED-1029",` +
	`"amount":129.90,"status":"completed","feeAmount":0.99,"netAmount":128.91,"e2eId":"E18236120202611280900A1b2C3d4E5f",` +
	`"paidAt":"2026-11-28T09:00:00Z","counterpartName":"Maria da Silva","counterpartDocument":"***.456.789-**"}}`

// TestDecodeEventPlainMembers: the members read without encoding/json (decodePlain: a string
// without escapes into a string field, a timestamp into a *time.Time) give what
// encoding/json gives, and everything else still goes through it (escapes, null, a number
// for a string, a timestamp that does not parse, a member given twice).
func TestDecodeEventPlainMembers(t *testing.T) {
	for _, body := range []string{
		`{"eventId":"e","event":"k","id":"tx-1","counterpartDocument":"123","paidAt":"2026-11-28T09:00:00.5-03:00"}`,
		`{"eventId":"e","event":"k","id":"t\u00e9x","counterpartDocument":"a\"b","paidAt":"2026-11-28T09:00:00Z"}`,
		`{"eventId":"e","event":"k","id":null,"paidAt":null,"completedAt":"2026-11-28T09:00:00Z"}`,
		`{"eventId":"e","event":"k","id":"a","id":"b","paidAt":"2026-11-28T09:00:00Z","paidAt":"2026-11-29T09:00:00Z"}`,
		`{"eventId":"e","event":"k","ID":"folded","PaidAt":"2026-11-28T09:00:00Z"}`,
		`{"eventId":"e","event":"k","id":"é","originalTransactionId":"tx-0","expiredAt":"2026-11-28T09:00:00+00:00"}`,
	} {
		got, err := DecodeEvent([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var want Event
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		want.resolveIDs()
		got.Raw = nil
		if got.DecodeErr != "" || !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\nDecodeEvent   %+v (%q)\nencoding/json %+v", body, *got, got.DecodeErr, want)
		}
	}
	// What encoding/json refuses is refused alike, with its message.
	for body, problem := range map[string]string{
		`{"eventId":"e","event":"k","id":7}`:                  "id: json: cannot unmarshal number into Go value of type string",
		`{"eventId":"e","event":"k","paidAt":"28/11/2026"}`:   "paidAt: parsing time",
		`{"eventId":"e","event":"k","completedAt":"\u0032x"}`: "completedAt: parsing time",
	} {
		got, err := DecodeEvent([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !strings.Contains(got.DecodeErr, problem) {
			t.Errorf("%s: DecodeErr %q, want it to say %q", body, got.DecodeErr, problem)
		}
	}
}

// TestDecodeEventAllocations bounds the allocations of decoding a service's payment event: the
// webhook receiver decodes every delivery of a flood, and member names and plain string and
// time members are read without encoding/json (41 before they were).
func TestDecodeEventAllocations(t *testing.T) {
	body := []byte(servicePayment)
	e, err := DecodeEvent(body)
	if err != nil || e.DecodeErr != "" || e.PaidAt == nil || e.ID == "" || e.CounterpartDocument == "" {
		t.Fatalf("decode: %v %+v", err, e)
	}
	n := testing.AllocsPerRun(200, func() {
		if _, err := DecodeEvent(body); err != nil {
			t.Fatal(err)
		}
	})
	if n > 30 {
		t.Fatalf("DecodeEvent of a payment made %.0f allocations, want at most 30", n)
	}
}

func BenchmarkDecodeEventPayment(b *testing.B) {
	body := []byte(servicePayment)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeEvent(body); err != nil {
			b.Fatal(err)
		}
	}
}
