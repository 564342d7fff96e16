package workflow

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"pixdash/api"
)

// deliverFrom posts a signed payment event that says it comes from env and returns the status.
func deliverFrom(t *testing.T, url, eventID, env string, secret api.Secret) int {
	t.Helper()
	body := fmt.Appendf(nil, `{"event":"payment_completed","eventId":%q,"timestamp":%q,"data":{"id":"tx-1","status":"completed","amount":12.34,"environment":%q}}`,
		eventID, time.Now().UTC().Format(time.RFC3339), env)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(api.PagueSignatureHeader, api.Sign(body, secret))
	req.Header.Set(api.TimestampHeader, fmt.Sprint(time.Now().UnixMilli()))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("delivery to %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReceiverRefusesTheOtherEnvironment: a production profile's receiver refuses (422) a
// signed sandbox event, stores nothing and counts it; its own environment's event is kept
// (issue 26 item 7).
func TestReceiverRefusesTheOtherEnvironment(t *testing.T) {
	const secret = api.Secret("whsec-environment-test")
	params := Params{Profile: "loja", Env: api.Production, Client: offline(t), StateDir: t.TempDir(),
		Webhook: &Webhook{Listen: freeAddr(t), Secret: secret}}
	s, err := Open(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if code := deliverFrom(t, s.WebhookURL, "evt-sandbox", "sandbox", secret); code != http.StatusUnprocessableEntity {
		t.Errorf("sandbox event at a production receiver: %d, want 422", code)
	}
	if _, ok, err := s.Store.Event(ctx, "evt-sandbox"); ok || err != nil {
		t.Errorf("the other environment's event was stored: %v, %v", ok, err)
	}
	if st := s.ReceiverStats(); st.WrongEnvironment != 1 || st.LastRejection.Reason != api.RejectEnvironment {
		t.Errorf("stats %+v", st)
	}
	if code := deliverFrom(t, s.WebhookURL, "evt-live", "production", secret); code != http.StatusOK {
		t.Errorf("production event: %d", code)
	}
	if _, ok, err := s.Store.Event(ctx, "evt-live"); !ok || err != nil {
		t.Errorf("own environment's event not stored: %v, %v", ok, err)
	}
}
