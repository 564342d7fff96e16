package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Issue 24: trigger against a base URL that is not pixdash's emulator (a server whose control
// endpoints answer 404, as a real sandbox does) says so, exit 6, and sends nothing else: no
// charge is created there for payment_completed.
func TestTriggerNotTheEmulator(t *testing.T) {
	for _, tc := range []struct {
		name string
		// answer serves every request but POST /auth (which signs in) with 404.
		signIn bool
	}{
		{"everything 404", false},
		{"signs in, control endpoints 404", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, r.Method+" "+r.URL.Path)
				mu.Unlock()
				if tc.signIn && r.URL.Path == "/v2/auth" {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"access_token":"tok","token_type":"Bearer","expires_in":300}`))
					return
				}
				http.NotFound(w, r)
			}))
			defer srv.Close()
			t.Setenv("PIXDASH_TEST_CLIENT_SECRET", "cs-x")
			writeConfig(t, "[profiles.loja]\nbase_url = \""+srv.URL+"/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
			var out, errb strings.Builder
			if code := run([]string{"trigger", "payment_completed", "--amount", "5"}, &out, &errb); code != exitNotFound {
				t.Fatalf("exit %d, want %d: %s%s", code, exitNotFound, out.String(), errb.String())
			}
			if !strings.Contains(errb.String(), srv.URL+"/v2 is not pixdash's emulator: trigger needs `pixdash sandbox`") {
				t.Errorf("stderr does not say the base URL is not the emulator:\n%s", errb.String())
			}
			if out.String() != "" {
				t.Errorf("stdout: %q", out.String())
			}
			mu.Lock()
			defer mu.Unlock()
			for _, r := range got {
				if strings.HasPrefix(r, "POST /v2/pix") || strings.Contains(r, "/_sandbox/charges") {
					t.Errorf("sent %s to a server that is not the emulator (all: %v)", r, got)
				}
			}
		})
	}
}
