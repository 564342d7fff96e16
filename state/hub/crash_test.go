package hub_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/hub"
)

// The hub helper process (TestHubHelperProcess run by the crash test with these set).
const (
	envHubDir  = "PIXDASH_HUB_CRASH_DIR"
	envHubNATS = "PIXDASH_HUB_CRASH_NATS_PORT"
	envHubHTTP = "PIXDASH_HUB_CRASH_HTTP_PORT"
)

// TestHubHelperProcess is the hub of TestHubSurvivesSIGKILL in a process of its own: the
// embedded server with its JetStream files, the hub's store and the receiver with the
// publisher behind it, on the ports it is given. It prints "ready" and serves until killed.
func TestHubHelperProcess(t *testing.T) {
	dir := os.Getenv(envHubDir)
	if dir == "" {
		t.Skip("the hub helper process of TestHubSurvivesSIGKILL")
	}
	srv, err := hub.StartServer(hub.ServerOptions{Listen: "127.0.0.1:" + os.Getenv(envHubNATS), StoreDir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, js := connect(t, srv.URL())
	if err := hub.EnsureStream(ctx, js, api.Sandbox, hub.Limits{}); err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(ctx, dir, "hub")
	if err != nil {
		t.Fatal(err)
	}
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := hub.NewPublisher(js, api.Sandbox, intake)
	if err != nil {
		t.Fatal(err)
	}
	recv := api.NewReceiver(hubSecret, api.WithSink(pub), api.WithEnvironment(api.Sandbox))
	ln, err := listenRetrying("127.0.0.1:" + os.Getenv(envHubHTTP))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	_ = recv.Serve(ctx, ln)
}

// startHubProcess starts the helper and waits for its "ready".
func startHubProcess(t *testing.T, dir string, natsPort, httpPort int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHubHelperProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envHubDir+"="+dir, envHubNATS+"="+strconv.Itoa(natsPort), envHubHTTP+"="+strconv.Itoa(httpPort),
		"GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	ready := make(chan bool, 1)
	go func() {
		ok := false
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the hub process ended before it was ready")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the hub process was not ready within a minute")
	}
	return cmd
}

// TestHubSurvivesSIGKILL: the hub runs in a process of its own; mid-flood it is killed with
// SIGKILL and started again on the same files while the service keeps delivering (retrying
// what was not answered 200). Every event the hub acknowledged reaches every counter exactly
// once: nothing acknowledged is lost, nothing doubled.
func TestHubSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helper processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	natsPort, httpPort := freePort(t), freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d%s", httpPort, api.WebhookPath)
	proc := startHubProcess(t, dir, natsPort, httpPort)
	natsURL := fmt.Sprintf("nats://127.0.0.1:%d", natsPort)
	counters := []*counterRig{
		startCounter(t, natsURL, "caixa-1", api.Sandbox, []string{api.WalletPrincipal}, nil),
		startCounter(t, natsURL, "dono", api.Sandbox, nil, nil),
	}
	svc := newService()
	n := *hubEvents
	var killed atomic.Bool
	go func() { // kill the hub once a third of the flood was acknowledged, then start it again
		for ctx.Err() == nil {
			svc.mu.Lock()
			acked := len(svc.acked)
			svc.mu.Unlock()
			if acked >= n/3 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		_ = proc.Process.Kill() // SIGKILL
		_ = proc.Wait()
		killed.Store(true)
		time.Sleep(300 * time.Millisecond)
		startHubProcess(t, dir, natsPort, httpPort)
	}()
	byWallet := flood(ctx, svc, func() string { return url }, "k", n, 8, api.Sandbox)
	if !killed.Load() {
		t.Fatal("the flood ended before the hub was killed")
	}
	if len(svc.acked) != n {
		t.Fatalf("%d of %d events acknowledged in the end", len(svc.acked), n)
	}
	wants := []map[string]bool{union(byWallet, api.WalletPrincipal), union(byWallet)}
	for i, c := range counters {
		waitEvents(t, c.store, len(wants[i]), 2*time.Minute)
		waitIdle(t, c, time.Minute)
		storedOnce(t, c.name, c.store, wants[i])
	}
}

// listenRetrying listens on addr, trying again while the killed process's port is released.
func listenRetrying(addr string) (net.Listener, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			return ln, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
