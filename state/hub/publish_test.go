package hub_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state/hub"
)

// TestHubAnswers200OnlyAfterJetStream: while the NATS server is down the hub commits a delivery
// to its own store but answers 503, not 200 (the service keeps the event and delivers again);
// once the server is back, the redelivery is published and answered 200, and the counter gets
// the event once.
func TestHubAnswers200OnlyAfterJetStream(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	srv, err := hub.StartServer(hub.ServerOptions{Listen: listen, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	h := startHub(t, srv.URL(), api.Sandbox)
	c := startCounter(t, srv.URL(), "caixa", api.Sandbox, nil, nil)
	if code := deliver(h.url, eventBody("evt-1", "principal", api.Sandbox)); code != http.StatusOK {
		t.Fatalf("first event: %d", code)
	}
	srv.Shutdown()

	body := eventBody("evt-2", "principal", api.Sandbox)
	if code := deliver(h.url, body); code == http.StatusOK {
		t.Fatal("the hub answered 200 for an event JetStream never stored")
	} else if code != http.StatusServiceUnavailable {
		t.Errorf("with JetStream away: %d, want 503 (the service retries)", code)
	}
	if _, ok, err := h.store.Event(context.Background(), "evt-2"); !ok || err != nil {
		t.Errorf("the hub's own store lacks the event: %v %v", ok, err)
	}
	if st := h.pub.Stats(); st.Failed == 0 {
		t.Errorf("publisher %+v: the failed publish is not counted", st)
	}

	srv, err = hub.StartServer(hub.ServerOptions{Listen: listen, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	deadline := time.Now().Add(20 * time.Second)
	for deliver(h.url, body) != http.StatusOK { // the service's redelivery, the hub reconnecting
		if time.Now().After(deadline) {
			t.Fatal("the redelivery was never answered 200 after the server came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitEvents(t, c.store, 2, 20*time.Second)
	waitIdle(t, c, 10*time.Second)
	storedOnce(t, "caixa", c.store, map[string]bool{"evt-1": true, "evt-2": true})
}
