package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// charge wait follows the engine's reports: a payment event another pixdash's receiver
// records is read back at once (here --interval is an hour: only the read-back can end the
// wait), and paid comes only from the service's answer, so a forged event claiming a
// payment the service does not know of ends nothing (exit 12 at --timeout).
func TestChargeWaitReadsEventsBack(t *testing.T) {
	srv := sandbox.New(sandbox.DefaultFixture(), sandbox.WithRand(7))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", string(sandbox.DemoSecret))
	_, stateDir := writeConfig(t, "[profiles.loja]\nbase_url = \""+hs.URL+"/v2\"\nclient_id = \""+sandbox.DemoClientID+"\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
	client, err := api.NewClient(hs.URL+"/v2", sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()

	// record stores a payment_completed event for id, as a receiver would.
	record := func(eventID, id string) {
		t.Helper()
		s, err := state.Open(ctx, stateDir, "loja")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ev, err := api.DecodeEvent([]byte(`{"eventId":"` + eventID + `","event":"payment_completed","data":{"transactionId":"` + id + `","status":"completed","amount":25.00}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(id, timeout string, during func()) (int, string, string, time.Duration) {
		var out, errb strings.Builder
		done := make(chan int)
		start := time.Now()
		go func() {
			done <- run([]string{"charge", "wait", id, "--timeout", timeout, "--interval", "1h"}, &out, &errb)
		}()
		time.Sleep(700 * time.Millisecond) // the first poll is in: pending
		during()
		code := <-done
		return code, out.String(), errb.String(), time.Since(start)
	}
	newCharge := func() string {
		pix, err := client.CreatePix(ctx, &api.CreatePixRequest{Amount: 2500, Description: "Venda"})
		if err != nil {
			t.Fatal(err)
		}
		return pix.ID
	}

	forged := newCharge()
	code, out, errb, _ := wait(forged, "2s", func() { record("evt-forged", forged) })
	if code != exitWaitTimeout || out != "" || !strings.Contains(errb, "still pending") {
		t.Fatalf("a forged event: exit %d, stdout %q, stderr %q; want 12, still pending", code, out, errb)
	}

	paid := newCharge()
	code, out, errb, took := wait(paid, "20s", func() {
		if _, err := sandbox.NewControl(client).PayCharge(ctx, paid, "Maria da Silva", "52998224725"); err != nil {
			t.Error(err)
		}
		record("evt-paid", paid)
	})
	if code != exitOK || !strings.Contains(out, paid) || !strings.Contains(out, "paid") {
		t.Fatalf("a real payment: exit %d, stdout %q, stderr %q; want 0, paid", code, out, errb)
	}
	if took > 10*time.Second {
		t.Fatalf("took %s: the event was not read back at once", took)
	}
}
