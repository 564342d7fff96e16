package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unsafe"
)

// scanBody is a typical compact delivery.
const scanBody = `{"eventId":"evt-0000000001","event":"payment_completed","createdAt":"2026-11-21T14:30:00Z","subAccount":"loja-1","transactionId":"tx-1","externalReference":"PED-1","status":"completed","amount":10.50,"feeAmount":0.99,"e2eId":"E99990001202611211430abcdefghijk","counterpartName":"Maria da Silva","split":[{"subAccount":"principal","amount":8.00}],"blockedDeposit":{"refund":{"e2eId":null}}}`

// scanBodyIndented is scanBody pretty-printed with CRLF line ends and tabs.
func scanBodyIndented() string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(scanBody), "", "\t"); err != nil {
		panic(err)
	}
	return strings.ReplaceAll(buf.String(), "\n", "\r\n") + "\r\n"
}

// withX is a body with a plain id and kind whose member "x" holds value.
func withX(value string) string {
	return `{"eventId":"e","event":"k","x":` + value + `}`
}

// nest wraps value in n arrays (when obj is false) or n single-member objects.
func nest(n int, obj bool, value string) string {
	if obj {
		return strings.Repeat(`{"a":`, n) + value + strings.Repeat("}", n)
	}
	return strings.Repeat("[", n) + value + strings.Repeat("]", n)
}

// mixedNest wraps value in n containers, alternating arrays and objects.
func mixedNest(n int, value string) string {
	var open, close strings.Builder
	for i := range n {
		if i%2 == 0 {
			open.WriteString("[")
		} else {
			open.WriteString(`{"a":`)
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i%2 == 0 {
			close.WriteString("]")
		} else {
			close.WriteString("}")
		}
	}
	return open.String() + value + close.String()
}

// scanCase is what scanEvent must report for a body.
type scanCase struct {
	name, body string
	id, kind   string
	ok         bool
}

// scanEventCases are scanEvent's table.
var scanEventCases = []scanCase{
	// The cases of the former scanEventID (which did not need the kind).
	{"plain", `{"eventId":"evt-1","event":"payment_completed"}`, "evt-1", "payment_completed", true},
	{"spaces and nesting without kind", " {\n \"split\" : [{\"a\":\"}\"},{\"b\":[1,2]}], \"n\":-1.5e3, \"x\":null,\"eventId\" : \"e-2\" }\n", "", "", false},
	{"escaped quote inside another value without kind", `{"note":"say \"eventId\":\"no\"","eventId":"e-3"}`, "", "", false},
	{"escape in id", `{"eventId":"e\u002d4"}`, "", "", false},
	{"escape in a key", `{"event\u0049d":"e-5"}`, "", "", false},
	{"other case", `{"EventID":"e-6"}`, "", "", false},
	{"other case after the id", `{"eventId":"e-7","eventid":"e-8"}`, "", "", false},
	{"id twice", `{"eventId":"e-9","eventId":"e-10"}`, "", "", false},
	{"empty id", `{"eventId":""}`, "", "", false},
	{"id not a string", `{"eventId":42}`, "", "", false},
	{"control character", "{\"eventId\":\"e\t1\"}", "", "", false},
	{"invalid UTF-8", "{\"eventId\":\"e\xff\"}", "", "", false},
	{"no id", `{"event":"payment_completed"}`, "", "", false},
	{"array", `[{"eventId":"e-11"}]`, "", "", false},
	{"cut short", `{"eventId":"e-12",`, "", "", false},
	{"trailing data", `{"eventId":"e-13"} {}`, "", "", false},
	{"empty object", `{}`, "", "", false},
	{"empty", ``, "", "", false},

	// The same with a kind.
	{"spaces and nesting", " {\n \"split\" : [{\"a\":\"}\"},{\"b\":[1,2]}], \"n\":-1.5e3, \"x\":null,\"eventId\" : \"e-2\" , \"event\":\"refund_completed\"}\n", "e-2", "refund_completed", true},
	{"escaped quote inside another value", `{"note":"say \"eventId\":\"no\"","eventId":"e-3","event":"x"}`, "e-3", "x", true},
	{"escape in id with kind", `{"eventId":"e\u002d4","event":"k"}`, "", "", false},
	{"escape in a key with kind", `{"event\u0049d":"e-5","event":"k"}`, "", "", false},
	{"escape in another key", `{"eventId":"e","event":"k","n\u00e9":1}`, "", "", false},
	{"other case with kind", `{"EventID":"e-6","event":"k"}`, "", "", false},
	{"upper case after the id", `{"eventId":"e-7","event":"k","EVENTID":"e-8"}`, "", "", false},
	{"id twice with kind", `{"eventId":"e-9","event":"k","eventId":"e-10"}`, "", "", false},
	{"invalid UTF-8 with kind", "{\"eventId\":\"e\xff\",\"event\":\"k\"}", "", "", false},
	{"no id with kind", `{"event":"payment_completed","id":"e"}`, "", "", false},
	{"nested id only", `{"a":{"eventId":"inner","event":"k"},"event":"k"}`, "", "", false},
	{"nested id and top-level id", `{"a":{"eventId":"inner","EVENT":"x"},"eventId":"outer","event":"k"}`, "outer", "k", true},
	{"id null", `{"eventId":null,"event":"k"}`, "", "", false},

	// The kind.
	{"kind missing", `{"eventId":"e"}`, "", "", false},
	{"kind empty", `{"eventId":"e","event":""}`, "", "", false},
	{"kind not a string", `{"eventId":"e","event":7}`, "", "", false},
	{"kind null", `{"eventId":"e","event":null}`, "", "", false},
	{"kind object", `{"eventId":"e","event":{"a":"b"}}`, "", "", false},
	{"kind escaped", `{"eventId":"e","event":"payment\u005fcompleted"}`, "", "", false},
	{"kind with control character", "{\"eventId\":\"e\",\"event\":\"a\nb\"}", "", "", false},
	{"kind invalid UTF-8", "{\"eventId\":\"e\",\"event\":\"k\xc3\"}", "", "", false},
	{"kind twice", `{"eventId":"e","event":"k","event":"k"}`, "", "", false},
	{"Event alongside event", `{"eventId":"e","Event":"k2","event":"k"}`, "", "", false},
	{"EVENT after event", `{"eventId":"e","event":"k","EVENT":"k2"}`, "", "", false},
	{"eVeNt", `{"eventId":"e","event":"k","eVeNt":1}`, "", "", false},
	{"kind before id", `{"event":"withdrawal_failed","eventId":"e"}`, "e", "withdrawal_failed", true},
	{"unknown kind", `{"eventId":"e","event":"something_new"}`, "e", "something_new", true},
	{"non-ASCII id and kind", `{"eventId":"évt-ü","event":"pagamento_concluído"}`, "évt-ü", "pagamento_concluído", true},
	{"non-ASCII key", `{"eventId":"e","event":"k","évent":1,"ëventId":2}`, "e", "k", true},
	{"keys that start like the id", `{"eventIdx":1,"events":[],"even":0,"e":1,"e2eId":"x","eventId":"e","event":"k"}`, "e", "k", true},

	// Invalid JSON in a skipped value.
	{"array with trailing comma", withX(`[1,`), "", "", false},
	{"array with comma before end", withX(`[1,]`), "", "", false},
	{"object with comma before end", withX(`{"a":1,}`), "", "", false},
	{"top-level comma before end", `{"eventId":"e","event":"k",}`, "", "", false},
	{"truncated literal", withX(`tru`), "", "", false},
	{"literal with garbage", withX(`truex`), "", "", false},
	{"bad literal", withX(`nul`), "", "", false},
	{"capital literal", withX(`True`), "", "", false},
	{"leading zero", withX(`01`), "", "", false},
	{"negative leading zero", withX(`-01`), "", "", false},
	{"dot without digits", withX(`1.`), "", "", false},
	{"dot first", withX(`.5`), "", "", false},
	{"plus sign", withX(`+1`), "", "", false},
	{"lone minus", withX(`-`), "", "", false},
	{"exponent without digits", withX(`1e`), "", "", false},
	{"exponent sign without digits", withX(`1e+`), "", "", false},
	{"hex number", withX(`0x1`), "", "", false},
	{"bad escape", withX(`"\x"`), "", "", false},
	{"short unicode escape", withX(`"\u12"`), "", "", false},
	{"non-hex unicode escape", withX(`"\u12g4"`), "", "", false},
	{"escape at the end", withX(`"\`), "", "", false},
	{"raw tab in a string", withX("\"a\tb\""), "", "", false},
	{"raw newline in a key", "{\"eventId\":\"e\",\"event\":\"k\",\"x\":{\"a\nb\":1}}", "", "", false},
	{"raw tab in a top-level key", "{\"eventId\":\"e\",\"event\":\"k\",\"a\tb\":1}", "", "", false},
	{"unterminated string", `{"eventId":"e","event":"k","x":"abc}`, "", "", false},
	{"unclosed array", `{"eventId":"e","event":"k","x":[1,2}`, "", "", false},
	{"unclosed object", `{"eventId":"e","event":"k","x":{"a":1}`, "", "", false},
	{"unclosed nesting at the end", `{"eventId":"e","event":"k","x":[[{"a":[`, "", "", false},
	{"mismatched brackets", withX(`[1}`), "", "", false},
	{"mismatched braces", withX(`{"a":1]`), "", "", false},
	{"missing colon", `{"eventId":"e","event":"k","x" 1}`, "", "", false},
	{"missing colon nested", withX(`{"a" 1}`), "", "", false},
	{"missing colon before id", `{"eventId" "e","event":"k"}`, "", "", false},
	{"missing comma", `{"eventId":"e" "event":"k"}`, "", "", false},
	{"missing comma in array", withX(`[1 2]`), "", "", false},
	{"non-string key", withX(`{1:2}`), "", "", false},
	{"missing value", withX(``), "", "", false},
	{"missing value in array", withX(`[1,,2]`), "", "", false},
	{"leading garbage", `x{"eventId":"e","event":"k"}`, "", "", false},
	{"trailing garbage", `{"eventId":"e","event":"k"}x`, "", "", false},
	{"trailing brace", `{"eventId":"e","event":"k"}}`, "", "", false},
	{"form feed is not whitespace", "{\"eventId\":\"e\",\"event\":\"k\"}\f", "", "", false},
	{"NUL after the object", "{\"eventId\":\"e\",\"event\":\"k\"}\x00", "", "", false},
	{"single quotes", `{'eventId':'e','event':'k'}`, "", "", false},

	// Valid oddities.
	{"number with exponent", withX(`-0.5e+10`), "e", "k", true},
	{"numbers", withX(`[0,-0,1E5,2e-3,12.50,-7,1234567890123456789012345678901234567890]`), "e", "k", true},
	{"escapes in another value", withX(`"\u00e9\n\"\\\/\b\f\r\t\uD83D\uDE00"`), "e", "k", true},
	{"invalid UTF-8 in another value", withX("\"\xff\xfe\""), "e", "k", true},
	{"DEL in a string", withX("\"\x7f\""), "e", "k", true},
	{"empty containers", withX(`[{},[],{"":""},""]`), "e", "k", true},
	{"literals", withX(`[true,false,null]`), "e", "k", true},
	{"whitespace everywhere", " \t\r\n{ \"eventId\" :\t\"e\" ,\r\n\"event\"\n:\"k\" , \"x\" : [ 1 , { \"a\" : [ ] } ] } \r\n", "e", "k", true},
	{"escaped key nested", withX(`{"event\u0049d":"z"}`), "e", "k", true},
	{"deep arrays", withX(nest(maxJSONDepth-1, false, "1")), "e", "k", true},
	{"deep objects", withX(nest(maxJSONDepth-1, true, `"v"`)), "e", "k", true},
	{"deep mixed", withX(mixedNest(maxJSONDepth-1, "null")), "e", "k", true},
	{"deep empty array", withX(nest(maxJSONDepth-2, false, "[]")), "e", "k", true},
	{"deep then shallow", withX("[" + nest(200, false, "1") + "," + nest(130, true, "2") + "]"), "e", "k", true},

	// Depth over encoding/json's limit, and deep bodies that are wrong.
	{"arrays too deep", withX(nest(maxJSONDepth, false, "1")), "", "", false},
	{"objects too deep", withX(nest(maxJSONDepth, true, "1")), "", "", false},
	{"empty array too deep", withX(nest(maxJSONDepth-1, false, "[]")), "", "", false},
	{"empty object too deep", withX(nest(maxJSONDepth-1, false, "{}")), "", "", false},
	{"deep mismatch", withX(strings.Repeat("[", 100) + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("]", 100) + strings.Repeat("}", 100)), "", "", false},
	{"deep mismatch across 64", withX(mixedNest(64, "1") + "x"), "", "", false},
	{"deep unclosed", withX(nest(300, false, "1")[:600]), "", "", false},
}

// init adds the cases built from other helpers to the table.
func init() {
	scanEventCases = append(scanEventCases,
		scanCase{"typical", scanBody, "evt-0000000001", "payment_completed", true},
		scanCase{"typical indented with CRLF", scanBodyIndented(), "evt-0000000001", "payment_completed", true},
		scanCase{"webhookBody", string(webhookBody("evt-w")), "evt-w", "payment_completed", true},
	)
}

// checkScanEvent fails t when scanEvent reports ok for body while the contract does not hold:
// body must be valid JSON and DecodeEvent must read the same id and kind.
func checkScanEvent(t *testing.T, body []byte) (id, kind string, ok bool) {
	t.Helper()
	id, kind, ok = scanEvent(body)
	if !ok {
		if id != "" || kind != "" {
			t.Errorf("%q: scanEvent = %q, %q, false; want empty strings when not ok", body, id, kind)
		}
		return id, kind, ok
	}
	if !json.Valid(body) {
		t.Fatalf("%q: scanEvent ok for invalid JSON", body)
	}
	ev, err := DecodeEvent(body)
	if err != nil {
		t.Fatalf("%q: scanEvent ok (%q, %q) but DecodeEvent: %v", body, id, kind, err)
	}
	if ev.EventID != id || string(ev.Kind) != kind {
		t.Fatalf("%q: scanEvent read %q, %q; DecodeEvent %q, %q", body, id, kind, ev.EventID, ev.Kind)
	}
	return id, kind, ok
}

// scanEvent must read the id and kind DecodeEvent reads from valid JSON, or step aside (false).
func TestScanEvent(t *testing.T) {
	for _, c := range scanEventCases {
		id, kind, ok := checkScanEvent(t, []byte(c.body))
		if id != c.id || kind != c.kind || ok != c.ok {
			t.Errorf("%s: scanEvent = %q, %q, %t; want %q, %q, %t", c.name, id, kind, ok, c.id, c.kind, c.ok)
		}
	}
}

// The table's invalid-JSON cases must really be invalid, and its oddities valid, for
// encoding/json: the table tests the validator, not just the contract.
func TestScanEventCasesValidity(t *testing.T) {
	invalid := 0
	for _, c := range scanEventCases {
		valid := json.Valid([]byte(c.body))
		if c.ok && !valid {
			t.Errorf("%s: ok case is not valid JSON", c.name)
		}
		if !valid {
			invalid++
		}
	}
	if invalid < 50 {
		t.Errorf("only %d invalid-JSON cases", invalid)
	}
}

// The known kinds come back as the EventKind constants themselves, and a typical body costs
// one allocation: the id.
func TestScanEventInternsKinds(t *testing.T) {
	for _, k := range EventKinds {
		body := []byte(`{"eventId":"e-1","event":"` + string(k) + `"}`)
		_, kind, ok := scanEvent(body)
		if !ok || kind != string(k) {
			t.Fatalf("%s: scanEvent = %q, %t", k, kind, ok)
		}
		if unsafe.StringData(kind) != unsafe.StringData(string(k)) {
			t.Errorf("%s: kind not interned", k)
		}
	}
	body := []byte(scanBody)
	if n := testing.AllocsPerRun(100, func() { scanEvent(body) }); n > 1 {
		t.Errorf("scanEvent allocates %v times per body, want at most 1", n)
	}
}

// foldsToEventKey matches keys as strings.EqualFold does; it relies on 'e' and 'E' being the
// only runes that fold to 'e'.
func TestFoldsToEventKey(t *testing.T) {
	for r := unicode.SimpleFold('e'); r != 'e'; r = unicode.SimpleFold(r) {
		if r != 'E' {
			t.Fatalf("%U folds to 'e'", r)
		}
	}
	for _, k := range []string{"eventId", "event", "EVENTID", "EVENT", "Event", "eventid", "eVeNtId"} {
		if !foldsToEventKey([]byte(k)) {
			t.Errorf("%q: foldsToEventKey = false", k)
		}
	}
	for _, k := range []string{"", "e", "even", "events", "eventIds", "e2eId", "évent", "xevent", "ventId"} {
		if foldsToEventKey([]byte(k)) {
			t.Errorf("%q: foldsToEventKey = true", k)
		}
	}
}

// FuzzScanEvent checks scanEvent's contract on any body: when it reports ok, the body is valid
// JSON and DecodeEvent reads the same id and kind. It also checks the value validator against
// json.Valid.
func FuzzScanEvent(f *testing.F) {
	for _, c := range scanEventCases {
		if len(c.body) < 1000 {
			f.Add([]byte(c.body))
		}
	}
	f.Add([]byte(`{"a":{"eventId":"inner"},"eventId":"outer","event":"x"}`))
	f.Add([]byte(`{"eventId":"a","EVENTID":"b","event":"x"}`))
	f.Add([]byte(`{"a":"\"","eventId":"q","event":"x"}`))
	f.Add([]byte(withX(mixedNest(70, "1"))))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScanEvent(t, body)
		// The same bytes as the value of a member, where the rest of the body is fine.
		checkScanEvent(t, []byte(withX(string(body))))

		// The value validator agrees with encoding/json exactly, except that it counts the
		// top-level object around the value against the nesting limit.
		end := skipValue(body, skipBlank(body, 0), 1)
		valid := end >= 0 && skipBlank(body, end) == len(body)
		if want := json.Valid(body); valid != want && (valid || len(body) < maxJSONDepth) {
			t.Fatalf("%q: skipValue says valid=%t, json.Valid %t", body, valid, want)
		}
	})
}

// BenchmarkScanEvent measures scanEvent on a typical delivery, compact and pretty-printed.
func BenchmarkScanEvent(b *testing.B) {
	for _, bc := range []struct{ name, body string }{
		{"compact", scanBody},
		{"indented", scanBodyIndented()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := []byte(bc.body)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, _, ok := scanEvent(body); !ok {
					b.Fatal("not ok")
				}
			}
		})
	}
}
