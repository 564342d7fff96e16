package hub_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/hub"
)

// hubEvents is how many events the flood tests deliver; `go test ./state/hub -hub.events=10000`
// runs the full flood (make test keeps the default small).
var hubEvents = flag.Int("hub.events", 300, "events delivered by the hub flood tests")

const hubSecret = api.Secret("hub-test-webhook-secret-0001")

// startServer starts an embedded server on a free loopback port, stored under dir.
func startServer(t testing.TB, dir string) *hub.Server {
	t.Helper()
	srv, err := hub.StartServer(hub.ServerOptions{Listen: "127.0.0.1:0", StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// connect opens JetStream on url as an anonymous loopback client.
func connect(t testing.TB, url string, extra ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, js, err := hub.Link{URL: url, Name: t.Name()}.JetStream(context.Background(), extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, js
}

// hubRig is a hub: the profile's store and intake, the publisher, and the webhook receiver
// (api.Receiver: signature, timestamp window, dedupe, environment) in front of them.
type hubRig struct {
	store *state.Store
	pub   *hub.Publisher
	url   string
	recv  *api.Receiver
}

func startHub(t testing.TB, natsURL string, env api.Environment) *hubRig {
	t.Helper()
	_, js := connect(t, natsURL)
	if err := hub.EnsureStream(context.Background(), js, env, hub.Limits{}); err != nil {
		t.Fatal(err)
	}
	store := state.OpenMemory()
	t.Cleanup(func() { store.Close() })
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := hub.NewPublisher(js, env, intake)
	if err != nil {
		t.Fatal(err)
	}
	recv := api.NewReceiver(hubSecret, api.WithSink(pub), api.WithEnvironment(env))
	ts := httptest.NewServer(recv)
	t.Cleanup(ts.Close)
	return &hubRig{store: store, pub: pub, url: ts.URL + api.WebhookPath, recv: recv}
}

// counterRig is one counter: its store and its consumer, running until stop.
type counterRig struct {
	name    string
	store   *state.Store
	counter *hub.Counter
	cancel  context.CancelFunc
	done    chan struct{}
}

func startCounter(t testing.TB, natsURL, name string, env api.Environment, wallets []string, store *state.Store) *counterRig {
	t.Helper()
	if store == nil {
		store = state.OpenMemory()
		t.Cleanup(func() { store.Close() })
	}
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	_, js := connect(t, natsURL)
	c, err := hub.NewCounter(js, hub.CounterOptions{Name: name, Env: env, Wallets: wallets, Intake: intake, Charges: store, AckWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &counterRig{name: name, store: store, counter: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		_ = c.Run(ctx)
		_ = intake.Close()
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *counterRig) stop() {
	r.cancel()
	<-r.done
}

// eventBody is a signed-ready payment event of wallet.
func eventBody(id, wallet string, env api.Environment) []byte {
	return fmt.Appendf(nil, `{"event":"payment_completed","eventId":%q,"timestamp":%q,"data":{"id":"tx-%s","status":"completed","amount":12.34,"subAccount":%q,"environment":%q}}`,
		id, time.Now().UTC().Format(time.RFC3339), id, wallet, env)
}

var deliveryClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// deliver posts body to url signed as the service does and returns the status (0 when the hub
// could not be reached).
func deliver(url string, body []byte) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set(api.PagueSignatureHeader, api.Sign(body, hubSecret))
	req.Header.Set(api.TimestampHeader, fmt.Sprint(time.Now().UnixMilli()))
	resp, err := deliveryClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// service delivers events the way the service does: each until it is answered 200, retrying
// otherwise; it remembers which ids were acknowledged.
type service struct {
	mu    sync.Mutex
	acked map[string]bool
}

func newService() *service { return &service{acked: map[string]bool{}} }

// send delivers body until 200 or ctx ends; it reports whether the hub acknowledged it.
func (s *service) send(ctx context.Context, url func() string, id string, body []byte) bool {
	for ctx.Err() == nil {
		if deliver(url(), body) == http.StatusOK {
			s.mu.Lock()
			s.acked[id] = true
			s.mu.Unlock()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// waitEvents waits until store holds want events; it fails the test at the deadline.
func waitEvents(t testing.TB, store *state.Store, want int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		last, err := store.LastEventSeq(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if int(last) >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events stored after %s, want %d", last, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storedOnce checks that store holds exactly the events want, each once (one row; the copies
// counted are the redeliveries that reached it).
func storedOnce(t testing.TB, name string, store *state.Store, want map[string]bool) {
	t.Helper()
	es, err := store.EventsAfter(context.Background(), 0, len(want)+1000)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range es {
		seen[e.Event.EventID]++
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("%s: event %s stored %d times, want once", name, id, seen[id])
		}
	}
	for id, n := range seen {
		if !want[id] {
			t.Errorf("%s: event %s (%d rows) is not one of its wallets'", name, id, n)
		}
	}
	if len(es) != len(want) {
		t.Errorf("%s: %d events stored, want %d", name, len(es), len(want))
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
