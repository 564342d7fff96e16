package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const testWebhookSecret Secret = "whsec_pixdash-TEST-s3cr3t-7f3a"

// webhookBody is a signed-able payment_completed payload for id.
func webhookBody(id string) []byte {
	return fmt.Appendf(nil, `{"eventId":%q,"event":"payment_completed","createdAt":"2025-01-02T03:04:05Z","transactionId":"tx-%s","status":"completed","amount":10.50,"subAccount":"loja-1"}`, id, id)
}

// deliverWebhook sends one delivery straight to h and returns the status and response body.
func deliverWebhook(h http.Handler, body []byte, sig string) (int, string) {
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// takeEvent returns the next event already waiting on r's channel, or nil when there is none.
func takeEvent(r *Receiver) *Event {
	select {
	case ev := <-r.Events():
		return ev
	default:
		return nil
	}
}

func TestSignKnownVectors(t *testing.T) {
	// RFC-style HMAC-SHA256 vectors, computed independently (openssl dgst -sha256 -hmac).
	cases := []struct {
		body   string
		secret Secret
		want   string
	}{
		{"The quick brown fox jumps over the lazy dog", "key", "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"},
		{`{"eventId":"evt_1","event":"payment_completed"}`, "whsec_test_key", "sha256=9f5660c8a472a878faf3eaffebbc2071333eec72c1224c19f2dd7102354aae61"},
	}
	for _, c := range cases {
		if got := Sign([]byte(c.body), c.secret); got != c.want {
			t.Errorf("Sign(%q) = %s, want %s", c.body, got, c.want)
		}
		if err := VerifySignature([]byte(c.body), c.want, c.secret); err != nil {
			t.Errorf("VerifySignature(known vector %q) = %v", c.body, err)
		}
	}
}

func TestVerifySignature(t *testing.T) {
	body := webhookBody("evt-verify")
	good := Sign(body, testWebhookSecret)
	hexPart := strings.TrimPrefix(good, "sha256=")
	mixed := []byte(hexPart)
	for i := 0; i < len(mixed); i += 2 {
		mixed[i] = strings.ToUpper(string(mixed[i]))[0]
	}
	flipped := []byte(good)
	if flipped[len(flipped)-1] == '0' {
		flipped[len(flipped)-1] = '1'
	} else {
		flipped[len(flipped)-1] = '0'
	}
	cases := []struct {
		name   string
		body   []byte
		header string
		secret Secret
		want   error // nil means valid
	}{
		{"good", body, good, testWebhookSecret, nil},
		{"uppercase hex", body, "sha256=" + strings.ToUpper(hexPart), testWebhookSecret, nil},
		{"mixed case hex", body, "sha256=" + string(mixed), testWebhookSecret, nil},
		{"surrounding spaces", body, "  " + good + " ", testWebhookSecret, nil},
		{"forged with wrong secret", body, Sign(body, "whsec_other"), testWebhookSecret, ErrSignatureMismatch},
		{"body tampered", append(bytes.Clone(body), ' '), good, testWebhookSecret, ErrSignatureMismatch},
		{"last digit changed", body, string(flipped), testWebhookSecret, ErrSignatureMismatch},
		{"missing", body, "", testWebhookSecret, ErrSignatureMissing},
		{"blank", body, "   ", testWebhookSecret, ErrSignatureMissing},
		{"no prefix (the service sends it either way)", body, hexPart, testWebhookSecret, nil},
		{"no prefix, uppercase hex", body, strings.ToUpper(hexPart), testWebhookSecret, nil},
		{"no prefix, forged", body, strings.TrimPrefix(Sign(body, "whsec_other"), "sha256="), testWebhookSecret, ErrSignatureMismatch},
		{"wrong prefix sha1", body, "sha1=" + hexPart, testWebhookSecret, ErrSignatureMalformed},
		{"uppercase prefix", body, "SHA256=" + hexPart, testWebhookSecret, ErrSignatureMalformed},
		{"prefix only", body, "sha256=", testWebhookSecret, ErrSignatureMalformed},
		{"truncated by one", body, good[:len(good)-1], testWebhookSecret, ErrSignatureMalformed},
		{"truncated by half", body, good[:len(good)-32], testWebhookSecret, ErrSignatureMalformed},
		{"too long", body, good + "00", testWebhookSecret, ErrSignatureMalformed},
		{"non-hex", body, "sha256=" + strings.Repeat("zz", 32), testWebhookSecret, ErrSignatureMalformed},
		{"two signatures", body, good + "," + good, testWebhookSecret, ErrSignatureMalformed},
		{"empty secret fails closed", body, Sign(body, ""), "", ErrNoSigningSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := VerifySignature(c.body, c.header, c.secret)
			if c.want == nil {
				if err != nil {
					t.Fatalf("VerifySignature = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("VerifySignature = %v, want %v", err, c.want)
			}
		})
	}
}

func TestReceiverAcceptsSignedEventOverHTTP(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	srv := httptest.NewServer(r)
	defer srv.Close()

	for i, upper := range []bool{false, true} {
		body := webhookBody(fmt.Sprintf("evt-http-%d", i))
		sig := Sign(body, testWebhookSecret)
		if upper {
			sig = "sha256=" + strings.ToUpper(strings.TrimPrefix(sig, "sha256="))
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SignatureHeader, sig)
		req.Header.Set(EventIDHeader, fmt.Sprintf("evt-http-%d", i))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("delivery %d: status %d, want 200", i, resp.StatusCode)
		}
		ev := takeEvent(r)
		if ev == nil {
			t.Fatalf("delivery %d: no event handed on", i)
		}
		if !bytes.Equal(ev.Raw, body) {
			t.Errorf("Raw = %s, want the body as sent", ev.Raw)
		}
		if ev.EventID != fmt.Sprintf("evt-http-%d", i) || ev.Kind != EventPaymentCompleted || ev.Amount != 1050 || ev.Wallet() != "loja-1" {
			t.Errorf("decoded event = %+v", ev)
		}
	}
	if got := r.Stats(); got != (ReceiverStats{Accepted: 2}) {
		t.Errorf("Stats = %+v, want 2 accepted", got)
	}
}

func TestReceiverRejectsBadSignatures(t *testing.T) {
	body := webhookBody("evt-bad")
	good := Sign(body, testWebhookSecret)
	cases := []struct {
		name string
		body []byte
		sig  string
	}{
		{"forged with wrong secret", body, Sign(body, "whsec_attacker")},
		{"missing", body, ""},
		{"wrong prefix", body, "sha512=" + strings.TrimPrefix(good, "sha256=")},
		{"truncated", body, good[:len(good)-2]},
		{"non-hex", body, "sha256=" + strings.Repeat("g", 64)},
		{"signature of another body", webhookBody("evt-other"), good},
		// The signature is checked before parsing: unsigned garbage is 401, not 400.
		{"unsigned malformed JSON", []byte("{not json"), ""},
		{"malformed JSON with forged signature", []byte("{not json"), Sign([]byte("{not json"), "whsec_attacker")},
	}
	r := NewReceiver(testWebhookSecret)
	for _, c := range cases {
		code, _ := deliverWebhook(r, c.body, c.sig)
		if code != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", c.name, code)
		}
		if ev := takeEvent(r); ev != nil {
			t.Errorf("%s: event %q handed on", c.name, ev.EventID)
		}
	}
	if got := counters(r.Stats()); got != (ReceiverStats{Rejected: uint64(len(cases))}) {
		t.Errorf("Stats = %+v, want Rejected=%d only", got, len(cases))
	}
	// A receiver without a secret accepts nothing, not even bodies "signed" with the empty key.
	empty := NewReceiver("")
	if code, _ := deliverWebhook(empty, body, Sign(body, "")); code != http.StatusUnauthorized {
		t.Errorf("empty secret: status %d, want 401", code)
	}
}

func TestReceiverOnlyPost(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodHead} {
		req := httptest.NewRequest(m, "/webhook", nil)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost {
			t.Errorf("%s: status %d Allow %q, want 405 and POST", m, rec.Code, rec.Header().Get("Allow"))
		}
	}
}

// paddedBody returns a valid event payload of exactly n bytes (padding is JSON whitespace).
func paddedBody(t *testing.T, id string, n int) []byte {
	t.Helper()
	b := webhookBody(id)
	if len(b) > n {
		t.Fatalf("payload already %d bytes > %d", len(b), n)
	}
	return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
}

func TestReceiverBodyLimit(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	atLimit := paddedBody(t, "evt-at-limit", DefaultWebhookMaxBody)
	if code, msg := deliverWebhook(r, atLimit, Sign(atLimit, testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("body of exactly 1 MiB: status %d (%s), want 200", code, msg)
	}
	over := paddedBody(t, "evt-over", DefaultWebhookMaxBody+1)
	if code, _ := deliverWebhook(r, over, Sign(over, testWebhookSecret)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("body of 1 MiB + 1 with Content-Length: status %d, want 413", code)
	}
	// Without a Content-Length (chunked), the limit still holds while reading.
	req := httptest.NewRequest(http.MethodPost, "/webhook", io.NopCloser(io.MultiReader(bytes.NewReader(over))))
	req.ContentLength = -1
	req.Header.Set(SignatureHeader, Sign(over, testWebhookSecret))
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body without Content-Length: status %d, want 413", rec.Code)
	}
	if got := r.Stats(); got.TooLarge != 2 || got.Accepted != 1 || got.Rejected != 0 {
		t.Errorf("Stats = %+v, want TooLarge=2 Accepted=1", got)
	}

	small := NewReceiver(testWebhookSecret, WithMaxBody(64))
	b := webhookBody("evt-small")
	if code, _ := deliverWebhook(small, b, Sign(b, testWebhookSecret)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("WithMaxBody(64), %d-byte body: status %d, want 413", len(b), code)
	}
}

func TestReceiverMalformedAfterValidSignature(t *testing.T) {
	cases := []struct{ name, body string }{
		{"not JSON", `{"eventId":"evt-1",`},
		{"empty body", ``},
		{"JSON array", `[{"eventId":"evt-1","event":"payment_completed"}]`},
		{"missing eventId", `{"event":"payment_completed","amount":1}`},
		{"empty eventId", `{"eventId":"","event":"payment_completed"}`},
		{"eventId not a string", `{"eventId":42,"event":"payment_completed"}`},
		{"missing event kind", `{"eventId":"evt-1"}`},
		{"event kind not a string", `{"eventId":"evt-1","event":7}`},
		{"JSON null", `null`},
		{"JSON string", `"evt-1"`},
	}
	r := NewReceiver(testWebhookSecret)
	for _, c := range cases {
		code, _ := deliverWebhook(r, []byte(c.body), Sign([]byte(c.body), testWebhookSecret))
		if code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.name, code)
		}
		if ev := takeEvent(r); ev != nil {
			t.Errorf("%s: event handed on", c.name)
		}
	}
	if got := counters(r.Stats()); got != (ReceiverStats{Malformed: uint64(len(cases))}) {
		t.Errorf("Stats = %+v, want Malformed=%d only", got, len(cases))
	}
	// A malformed delivery does not poison its id: a good one with the same id is accepted.
	good := webhookBody("evt-1")
	if code, _ := deliverWebhook(r, good, Sign(good, testWebhookSecret)); code != http.StatusOK || takeEvent(r) == nil {
		t.Errorf("good delivery after malformed ones: status %d or no event", code)
	}
}

// A signed event with a field in an unexpected format is accepted (200, handed on once) with what
// could be decoded and DecodeErr naming the field: refusing it would make the sender retry 5 times
// and then drop the event.
func TestReceiverAcceptsSignedEventWithOddFields(t *testing.T) {
	cases := []struct {
		name, body string
		problem    string // DecodeErr must mention it
		check      func(*Event) bool
	}{
		{"amount with 3 decimals", `{"eventId":"evt-odd-1","event":"payment_completed","transactionId":"tx-1","amount":10.505}`,
			"amount", func(e *Event) bool { return e.Amount == 0 && e.TransactionID == "tx-1" }},
		{"amount as a string with 3 decimals", `{"eventId":"evt-odd-2","event":"refund_completed","amount":"1.005","feeAmount":"0.50"}`,
			"amount", func(e *Event) bool { return e.Amount == 0 && e.FeeAmount == 50 }},
		{"createdAt not RFC 3339", `{"eventId":"evt-odd-3","event":"payment_failed","createdAt":"21/11/2026 14:30","subAccount":"loja-1"}`,
			"createdAt", func(e *Event) bool { return e.CreatedAt.IsZero() && e.Wallet() == "loja-1" }},
		{"split not a list", `{"eventId":"evt-odd-4","event":"payment_completed","split":{"subAccount":"x"},"e2eId":"E1"}`,
			"split", func(e *Event) bool { return e.Split == nil && e.E2EID == "E1" }},
		{"one bad split leg", `{"eventId":"evt-odd-5","event":"payment_completed","split":[{"subAccount":"a","amount":1},{"subAccount":"b","amount":"x"}]}`,
			"split[1].amount", func(e *Event) bool {
				return len(e.Split) == 2 && e.Split[0] == (SplitItem{"a", 100}) && e.Split[1] == (SplitItem{SubAccount: "b"})
			}},
		{"refund settledAt odd", `{"eventId":"evt-odd-6","event":"payment_failed","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending","settledAt":"soon"}}}`,
			"blockedDeposit.refund.settledAt", func(e *Event) bool {
				bd := e.BlockedDeposit
				return bd != nil && bd.Reason == ReasonCNPJPayerNotAllowed && bd.Refund != nil && bd.Refund.Status == RefundPending && bd.Refund.SettledAt == nil
			}},
	}
	r := NewReceiver(testWebhookSecret)
	for _, c := range cases {
		body := []byte(c.body)
		for attempt := 1; attempt <= 2; attempt++ {
			if code, msg := deliverWebhook(r, body, Sign(body, testWebhookSecret)); code != http.StatusOK {
				t.Fatalf("%s, delivery %d: status %d (%s), want 200", c.name, attempt, code, msg)
			}
		}
		ev := takeEvent(r)
		if ev == nil {
			t.Fatalf("%s: not handed on", c.name)
		}
		if takeEvent(r) != nil {
			t.Errorf("%s: redelivery handed on again", c.name)
		}
		if !bytes.Equal(ev.Raw, body) || !strings.Contains(ev.DecodeErr, c.problem) || !c.check(ev) {
			t.Errorf("%s: event = %+v (DecodeErr %q), want %q reported and the rest decoded", c.name, ev, ev.DecodeErr, c.problem)
		}
	}
	if got := r.Stats(); got != (ReceiverStats{Accepted: uint64(len(cases)), Duplicates: uint64(len(cases))}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestReceiverKeepsUnknownKind(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	body := []byte(`{"eventId":"evt-new","event":"pix_refund_partial","someNewField":{"x":1}}`)
	if code, _ := deliverWebhook(r, body, Sign(body, testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("status %d, want 200", code)
	}
	ev := takeEvent(r)
	if ev == nil || ev.Kind != "pix_refund_partial" || ev.Kind.Known() || !bytes.Equal(ev.Raw, body) {
		t.Fatalf("event = %+v, want unknown kind kept with Raw", ev)
	}
}

func TestReceiverDuplicateDeliveredOnce(t *testing.T) {
	type dup struct {
		id   string
		seen int
	}
	var mu sync.Mutex
	var dups []dup
	r := NewReceiver(testWebhookSecret, WithOnDuplicate(func(id string, seen int) {
		mu.Lock()
		dups = append(dups, dup{id, seen})
		mu.Unlock()
	}))
	body := webhookBody("evt-dup")
	// A redelivery may differ in its bytes (another createdAt); the eventId decides.
	resent := bytes.Replace(body, []byte("2025-01-02T03:04:05Z"), []byte("2025-01-02T03:04:35Z"), 1)
	for i, b := range [][]byte{body, body, resent} {
		if code, _ := deliverWebhook(r, b, Sign(b, testWebhookSecret)); code != http.StatusOK {
			t.Fatalf("delivery %d: status %d, want 200", i+1, code)
		}
	}
	if ev := takeEvent(r); ev == nil || ev.EventID != "evt-dup" || !bytes.Equal(ev.Raw, body) {
		t.Fatalf("first delivery not handed on as sent: %+v", ev)
	}
	if ev := takeEvent(r); ev != nil {
		t.Fatalf("duplicate handed on again: %s", ev.Raw)
	}
	if got := r.Stats(); got != (ReceiverStats{Accepted: 1, Duplicates: 2}) {
		t.Errorf("Stats = %+v, want Accepted=1 Duplicates=2", got)
	}
	if n := r.Seen("evt-dup"); n != 3 {
		t.Errorf("Seen = %d, want 3", n)
	}
	if n := r.Seen("evt-never"); n != 0 {
		t.Errorf("Seen(unknown) = %d, want 0", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []dup{{"evt-dup", 2}, {"evt-dup", 3}}; fmt.Sprint(dups) != fmt.Sprint(want) {
		t.Errorf("OnDuplicate calls = %v, want %v", dups, want)
	}
}

func TestReceiverConcurrentDeliveries(t *testing.T) {
	const ids, copies = 100, 10
	r := NewReceiver(testWebhookSecret, WithBuffer(ids))
	bodies := make([][]byte, ids)
	sigs := make([]string, ids)
	for i := range bodies {
		bodies[i] = webhookBody(fmt.Sprintf("evt-c-%03d", i))
		sigs[i] = Sign(bodies[i], testWebhookSecret)
	}
	var wg sync.WaitGroup
	codes := make([]int, ids*copies)
	for n := range ids * copies {
		wg.Go(func() {
			i := n % ids
			codes[n], _ = deliverWebhook(r, bodies[i], sigs[i])
		})
	}
	wg.Wait()
	for n, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("delivery %d: status %d, want 200", n, c)
		}
	}
	got := map[string]int{}
	for ev := takeEvent(r); ev != nil; ev = takeEvent(r) {
		got[ev.EventID]++
	}
	if len(got) != ids {
		t.Fatalf("%d distinct events delivered, want %d", len(got), ids)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
		if s := r.Seen(id); s != copies {
			t.Errorf("Seen(%s) = %d, want %d", id, s, copies)
		}
	}
	if st := r.Stats(); st.Accepted != ids || st.Duplicates != ids*(copies-1) || st.Overflow != 0 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestReceiverFullBufferAnswers503(t *testing.T) {
	r := NewReceiver(testWebhookSecret, WithBuffer(1))
	a, b := webhookBody("evt-a"), webhookBody("evt-b")
	if code, _ := deliverWebhook(r, a, Sign(a, testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("first: status %d", code)
	}
	// The consumer has not read evt-a yet: evt-b cannot be handed on.
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(b))
	req.Header.Set(SignatureHeader, Sign(b, testWebhookSecret))
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("full buffer: status %d Retry-After %q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if n := r.Seen("evt-b"); n != 0 {
		t.Errorf("Seen(evt-b) after 503 = %d, want 0 (not remembered)", n)
	}
	// A redelivery of the buffered event is still a duplicate (it needs no room).
	if code, _ := deliverWebhook(r, a, Sign(a, testWebhookSecret)); code != http.StatusOK {
		t.Errorf("duplicate while full: status %d, want 200", code)
	}
	if ev := takeEvent(r); ev == nil || ev.EventID != "evt-a" {
		t.Fatalf("want evt-a, got %+v", ev)
	}
	// The sender retries evt-b; now there is room.
	if code, _ := deliverWebhook(r, b, Sign(b, testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("retry after drain: status %d, want 200", code)
	}
	if ev := takeEvent(r); ev == nil || ev.EventID != "evt-b" {
		t.Fatalf("want evt-b, got %+v", ev)
	}
	if got := r.Stats(); got != (ReceiverStats{Accepted: 2, Duplicates: 1, Overflow: 1}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestReceiverSeenSetIsBounded(t *testing.T) {
	const capacity = 3
	r := NewReceiver(testWebhookSecret, WithSeenCapacity(capacity), WithBuffer(100))
	send := func(id string) int {
		b := webhookBody(id)
		code, _ := deliverWebhook(r, b, Sign(b, testWebhookSecret))
		return code
	}
	for i := range 50 {
		if code := send(fmt.Sprintf("evt-%02d", i)); code != http.StatusOK {
			t.Fatalf("evt-%02d: status %d", i, code)
		}
		n, rn := r.seen.len()
		if n > capacity || rn > capacity {
			t.Fatalf("after %d ids the seen set holds %d (ring %d), want at most %d", i+1, n, rn, capacity)
		}
	}
	// The last three are remembered; older ones are forgotten oldest first.
	for _, id := range []string{"evt-47", "evt-48", "evt-49"} {
		if r.Seen(id) != 1 {
			t.Errorf("Seen(%s) = %d, want 1", id, r.Seen(id))
		}
	}
	if r.Seen("evt-46") != 0 {
		t.Errorf("evt-46 should be forgotten")
	}
	if send("evt-48") != http.StatusOK || r.Stats().Duplicates != 1 {
		t.Errorf("recent id not treated as duplicate: %+v", r.Stats())
	}
}

func TestReceiverWithSeenSkipsAppliedEvents(t *testing.T) {
	r := NewReceiver(testWebhookSecret, WithSeen([]string{"evt-old-1", "", "evt-old-2", "evt-old-1"}))
	if r.Seen("evt-old-1") != 1 || r.Seen("evt-old-2") != 1 || r.Seen("") != 0 {
		t.Fatalf("seeded counts: %d %d %d", r.Seen("evt-old-1"), r.Seen("evt-old-2"), r.Seen(""))
	}
	old := webhookBody("evt-old-2")
	if code, _ := deliverWebhook(r, old, Sign(old, testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("seeded id: status %d, want 200", code)
	}
	if ev := takeEvent(r); ev != nil {
		t.Fatalf("already-applied event handed on again: %s", ev.EventID)
	}
	fresh := webhookBody("evt-new")
	if code, _ := deliverWebhook(r, fresh, Sign(fresh, testWebhookSecret)); code != http.StatusOK || takeEvent(r) == nil {
		t.Fatalf("fresh id not delivered (status %d)", code)
	}
	if got := r.Stats(); got != (ReceiverStats{Accepted: 1, Duplicates: 1}) {
		t.Errorf("Stats = %+v", got)
	}
	// More seeds than capacity keep the most recent ones.
	small := NewReceiver(testWebhookSecret, WithSeenCapacity(2), WithSeen([]string{"a", "b", "c"}))
	if small.Seen("a") != 0 || small.Seen("b") != 1 || small.Seen("c") != 1 {
		t.Errorf("capacity 2 seeded a,b,c: Seen = %d %d %d, want 0 1 1", small.Seen("a"), small.Seen("b"), small.Seen("c"))
	}
}

func TestReceiverStart(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := NewReceiver(testWebhookSecret)
	url, err := r.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/webhook$`).MatchString(url) {
		t.Fatalf("url = %q", url)
	}
	body := webhookBody("evt-start")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set(SignatureHeader, Sign(body, testWebhookSecret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ev := takeEvent(r); ev == nil || ev.EventID != "evt-start" {
		t.Fatalf("event = %+v", ev)
	}
	other, err := http.Post(strings.TrimSuffix(url, "/webhook")+"/other", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	other.Body.Close()
	if other.StatusCode != http.StatusNotFound {
		t.Errorf("other path: status %d, want 404", other.StatusCode)
	}
	if _, err := r.Start(ctx, "not-an-address"); err == nil {
		t.Errorf("Start with a bad address succeeded")
	}
}

func TestReceiverServeStopsOnCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	r := NewReceiver(testWebhookSecret)
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx, ln) }()
	body := webhookBody("evt-serve")
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+WebhookPath, bytes.NewReader(body))
	req.Header.Set(SignatureHeader, Sign(body, testWebhookSecret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after cancel = %v, want nil", err)
		}
	case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("Serve did not return after cancel")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Errorf("listener still accepting after shutdown")
	}
}

func TestReceiverNeverLeaksSecret(t *testing.T) {
	var seen []string
	r := NewReceiver(testWebhookSecret, WithBuffer(1), WithMaxBody(512))
	body := webhookBody("evt-leak")
	expected := Sign(body, testWebhookSecret)
	expectedHex := strings.TrimPrefix(expected, "sha256=")
	collect := func(b []byte, sig string) {
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(b))
		if sig != "" {
			req.Header.Set(SignatureHeader, sig)
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		seen = append(seen, rec.Body.String(), fmt.Sprint(rec.Header()))
		seen = append(seen, fmt.Sprint(VerifySignature(b, sig, testWebhookSecret)))
	}
	collect(body, expected)                                                      // 200
	collect(body, expected)                                                      // duplicate
	collect(webhookBody("evt-2"), Sign(webhookBody("evt-2"), testWebhookSecret)) // 503
	collect(body, Sign(body, "whsec_wrong"))                                     // mismatch
	collect(body, expected[:40])                                                 // truncated
	collect(body, "")                                                            // missing
	collect(body, "sha256="+strings.Repeat("x", 64))                             // non-hex
	collect([]byte("{oops"), Sign([]byte("{oops"), testWebhookSecret))           // 400
	big := bytes.Repeat([]byte("a"), 600)
	collect(big, Sign(big, testWebhookSecret)) // 413
	seen = append(seen, fmt.Sprintf("%v %+v %#v", r, r, r), fmt.Sprint(VerifySignature(body, expected, "")))
	for i, s := range seen { // report positions only: never print what may hold the secret
		if strings.Contains(s, testWebhookSecret.Reveal()) {
			t.Errorf("secret leaked in output #%d", i)
		}
		if strings.Contains(strings.ToLower(s), expectedHex) {
			t.Errorf("expected signature leaked in output #%d", i)
		}
	}
}

// FuzzReceiver feeds random bodies and headers (optionally correctly signed) to a receiver:
// it must never panic, and any 2xx must mean the signature verified.
func FuzzReceiver(f *testing.F) {
	good := webhookBody("evt-fuzz")
	f.Add(good, Sign(good, testWebhookSecret), false)
	f.Add(good, "", true)
	f.Add(good, "", false)
	f.Add(good, "sha256=", false)
	f.Add([]byte(`{"eventId":"x","event":"payment_failed","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending"}}}`), "", true)
	f.Add([]byte(`{"eventId":"x","event":"refund_completed","amount":"1.005"}`), "", true)
	f.Add([]byte(`{"eventId":"","event":"x"}`), "", true)
	f.Add([]byte(`null`), "", true)
	f.Add([]byte{0xff, 0x00}, "sha256="+strings.Repeat("A", 64), false)
	f.Fuzz(func(t *testing.T, body []byte, header string, sign bool) {
		if sign {
			header = Sign(body, testWebhookSecret)
		}
		r := NewReceiver(testWebhookSecret, WithBuffer(2), WithSeenCapacity(4), WithMaxBody(4096))
		verr := VerifySignature(body, header, testWebhookSecret)
		for attempt := 1; attempt <= 2; attempt++ {
			req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
			req.Header[SignatureHeader] = []string{header}
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			switch {
			case len(body) > 4096:
				if rec.Code != http.StatusRequestEntityTooLarge {
					t.Fatalf("oversized body: status %d", rec.Code)
				}
			case rec.Code/100 == 2:
				if verr != nil {
					t.Fatalf("2xx for a signature that does not verify (%v)", verr)
				}
				if _, err := DecodeEvent(body); err != nil {
					t.Fatalf("2xx for an undecodable body: %v", err)
				}
				ev := takeEvent(r)
				if attempt == 1 && (ev == nil || !bytes.Equal(ev.Raw, body)) {
					t.Fatalf("accepted but not handed on as sent: %+v", ev)
				}
				if attempt == 2 && (ev != nil || r.Stats().Duplicates != 1) {
					t.Fatalf("redelivery handed on again or not counted: %+v", r.Stats())
				}
			case rec.Code == http.StatusUnauthorized:
				if verr == nil {
					t.Fatalf("401 for a valid signature")
				}
			case rec.Code == http.StatusBadRequest:
				if verr != nil {
					t.Fatalf("400 before the signature was checked (%v)", verr)
				}
				if _, err := DecodeEvent(body); err == nil {
					t.Fatalf("400 for a decodable body")
				}
			default:
				t.Fatalf("unexpected status %d", rec.Code)
			}
			if strings.Contains(rec.Body.String(), testWebhookSecret.Reveal()) {
				t.Fatalf("secret in response")
			}
		}
	})
}

// benchWriter is a ResponseWriter that keeps only the status, so the harness costs little.
type benchWriter struct {
	h    http.Header
	code int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(code int)        { w.code = code }

type benchDelivery struct {
	req  *http.Request
	rd   *bytes.Reader
	body []byte
}

// benchDeliveries builds n signed deliveries with distinct eventIds, reusable by resetting rd.
func benchDeliveries(n int) []benchDelivery {
	ds := make([]benchDelivery, n)
	for i := range ds {
		body := webhookBody(fmt.Sprintf("evt-bench-%08d", i))
		rd := bytes.NewReader(body)
		req := httptest.NewRequest(http.MethodPost, "/webhook", rd)
		req.Header.Set(SignatureHeader, Sign(body, testWebhookSecret))
		ds[i] = benchDelivery{req: req, rd: rd, body: body}
	}
	return ds
}

// BenchmarkReceiver measures verify + decode + dedupe + deliver per event (every id new).
func BenchmarkReceiver(b *testing.B) {
	ds := benchDeliveries(min(b.N, 1<<14))
	r := NewReceiver(testWebhookSecret, WithBuffer(1))
	w := &benchWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % len(ds)
		if k == 0 && i > 0 { // every id seen: start a fresh receiver so each delivery is new
			b.StopTimer()
			r = NewReceiver(testWebhookSecret, WithBuffer(1))
			b.StartTimer()
		}
		d := ds[k]
		d.rd.Reset(d.body)
		w.code = 0
		r.ServeHTTP(w, d.req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
		<-r.Events()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkBareHMAC is the floor for BenchmarkReceiver: a handler that only reads the body and checks the HMAC.
func BenchmarkBareHMAC(b *testing.B) {
	ds := benchDeliveries(min(b.N, 1<<14))
	bare := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || VerifySignature(body, req.Header.Get(SignatureHeader), testWebhookSecret) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	w := &benchWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		d := ds[i%len(ds)]
		d.rd.Reset(d.body)
		w.code = 0
		bare.ServeHTTP(w, d.req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// A redelivery is answered without being handed on again whatever its body; one whose body
// differs from the accepted one is decoded first, so a malformed one still gets 400.
func TestReceiverRedeliveryWithAnotherBody(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	good := webhookBody("evt-r")
	if code, _ := deliverWebhook(r, good, Sign(good, testWebhookSecret)); code != http.StatusOK || takeEvent(r) == nil {
		t.Fatalf("first delivery: status %d or no event", code)
	}
	other := []byte(`{"eventId":"evt-r","event":"payment_completed","amount":1}`)
	bad := []byte(`{"eventId":"evt-r","event":7}`)
	for _, c := range []struct {
		body []byte
		want int
	}{{good, http.StatusOK}, {other, http.StatusOK}, {bad, http.StatusBadRequest}} {
		if code, _ := deliverWebhook(r, c.body, Sign(c.body, testWebhookSecret)); code != c.want {
			t.Errorf("%s: status %d, want %d", c.body, code, c.want)
		}
		if ev := takeEvent(r); ev != nil {
			t.Errorf("%s: handed on again", c.body)
		}
	}
	if got := counters(r.Stats()); got != (ReceiverStats{Accepted: 1, Duplicates: 2, Malformed: 1}) {
		t.Errorf("Stats = %+v", got)
	}
	if n := r.Seen("evt-r"); n != 3 {
		t.Errorf("Seen = %d, want 3", n)
	}
}
