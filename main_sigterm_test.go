package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// Issue 24: listen runs as a service, and systemd stops a service with SIGTERM: it stops
// receiving and drains the delivery in flight (the app's answer is waited for and logged)
// before it exits 0. The pixdash on PATH is this test binary (TestMain), run as the command.
func TestListenSIGTERMDrainsDeliveries(t *testing.T) {
	srv := sandbox.New(sandbox.DefaultFixture(), sandbox.WithRand(7), sandbox.WithWebhookScale(0.01))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	base := hs.URL + "/v2"

	// The app holds the delivery until released, and counts it only when it could answer.
	started, release := make(chan string, 4), make(chan struct{})
	var mu sync.Mutex
	var answered, cancelled int
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		started <- string(body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		defer mu.Unlock()
		if r.Context().Err() != nil {
			cancelled++
			return
		}
		answered++
		w.WriteHeader(http.StatusOK)
	}))
	defer app.Close()
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	defer letGo()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hook := ln.Addr().String()
	_ = ln.Close()
	client, err := api.NewClient(base, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctl := sandbox.NewControl(client)
	if _, err := ctl.RegisterWebhookSecret(ctx, "http://"+hook+api.WebhookPath, "", api.Secret(scriptHookSecret)); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[profiles.hook]\nbase_url = %q\nclient_id = %q\nclient_secret_env = \"PIXDASH_SBX_SECRET\"\n[profiles.hook.webhook]\nlisten = %q\nsecret_env = \"PIXDASH_HOOK_SECRET\"\n",
		base, sandbox.DemoClientID, hook)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "pixdash", "listen", "--config", cfg, "--profile", "hook",
		"--forward-to", "payment_completed="+app.URL+"/slow", "--forward-secret-env", "APP_SECRET")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+dir, "HOME="+dir,
		"PIXDASH_SBX_SECRET="+string(sandbox.DemoSecret), "PIXDASH_HOOK_SECRET="+scriptHookSecret, "APP_SECRET="+scriptAppSecret, "NO_COLOR=1")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	receiving, stderrDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(errPipe)
		once := sync.Once{}
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "Receiving the webhooks") {
				once.Do(func() { close(receiving) })
			}
		}
	}()
	select {
	case <-receiving:
	case <-stderrDone:
		t.Fatalf("listen ended before receiving: %v", cmd.Wait())
	case <-time.After(30 * time.Second):
		t.Fatal("listen never said it receives")
	}

	// A payment: its event reaches listen, is read back and forwarded to the app, which holds it.
	pix, err := client.CreatePix(ctx, &api.CreatePixRequest{Amount: 1234, Description: "Venda"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.PayCharge(ctx, pix.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	select {
	case body := <-started:
		if !strings.Contains(body, pix.ID) {
			t.Fatalf("forwarded %s, want the payment of %s", body, pix.ID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the payment was never forwarded")
	}

	// SIGTERM while the app holds the delivery; the app answers a moment later.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Long enough that listen, had it not waited, would have exited (and cut the delivery).
	time.Sleep(2500 * time.Millisecond)
	letGo()
	<-stderrDone
	werr := cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		t.Errorf("listen exited with %v after SIGTERM, want 0\n%s", werr, stderr.String())
	}
	if answered != 1 || cancelled != 0 {
		t.Errorf("the app answered %d and saw %d cancelled deliveries: listen did not wait for the delivery in flight\n%s", answered, cancelled, stderr.String())
	}
	if !strings.Contains(stderr.String(), "draining") {
		t.Errorf("stderr does not say it drains:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "attempt 1: delivered (200)") {
		t.Errorf("the drained delivery is not logged as delivered:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), pix.ID) || !strings.Contains(stdout.String(), "confirmed") {
		t.Errorf("the payment was not printed as confirmed:\n%s", stdout.String())
	}
}
