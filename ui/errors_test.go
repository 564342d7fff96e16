package ui

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// fastRetry keeps retries quick in tests.
var fastRetry = api.WithRetry(api.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})

// failingCall makes one real client call (GET /transactions/x) and returns its error.
func failingCall(t *testing.T, base string, opts ...api.Option) error {
	t.Helper()
	opts = append([]api.Option{fastRetry, api.WithAuthTimeout(300 * time.Millisecond)}, opts...)
	c, err := api.NewClient(base, "mp_test_errors", "s3cret-for-errors", opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = c.GetTransaction(ctx, "x")
	if err == nil {
		t.Fatal("call succeeded; the scenario must fail")
	}
	return err
}

// serve answers /auth with a token and everything else with handler.
func serve(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/auth") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"tok-errors-123","token_type":"Bearer","expires_in":300}`))
			return
		}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v2"
}

func envelope(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"statusCode":` + strconv.Itoa(status) + `,"error":"` + kind + `","message":"` + msg + `","timestamp":"2026-11-21T12:00:00Z","traceId":"trace-77"}`))
}

func TestErrorPathsSaySpecificallyWhatToDo(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/v2"
	}
	dnsFail := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}}
	}}}
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	plainSrv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plainSrv.Close)

	cases := []struct {
		name string
		err  func(t *testing.T) error
		want []string
	}{
		{"network down (connection refused)", func(t *testing.T) error { return failingCall(t, refused()) },
			[]string{"connection refused", "base_url"}},
		{"DNS failure", func(t *testing.T) error {
			return failingCall(t, "https://api.example.com/v2", api.WithHTTPClient(dnsFail))
		}, []string{"cannot resolve api.example.com", "DNS"}},
		{"TLS certificate not trusted", func(t *testing.T) error {
			// The handshake's refusal must come before the sign-in times out, also on a loaded
			// machine under -race (300 ms is not always enough there).
			return failingCall(t, "https://"+strings.TrimPrefix(tlsSrv.URL, "https://")+"/v2", api.WithAuthTimeout(1500*time.Millisecond))
		}, []string{"TLS", "certificate"}},
		{"500 with trace id", func(t *testing.T) error {
			return failingCall(t, serve(t, func(w http.ResponseWriter, _ *http.Request) {
				envelope(w, 500, "InternalError", "An unexpected error occurred")
			}))
		}, []string{"An unexpected error occurred", "trace-77", "try again"}},
		{"429", func(t *testing.T) error {
			return failingCall(t, serve(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "0")
				envelope(w, 429, "TooManyRequests", "Too many requests")
			}))
		}, []string{"Too many requests", "slows down"}},
		{"slow server", func(t *testing.T) error {
			return failingCall(t, serve(t, func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			}), api.WithHTTPClient(&http.Client{Timeout: 200 * time.Millisecond}))
		}, []string{"did not answer in time", "r to retry"}},
		{"token endpoint down", func(t *testing.T) error {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(503)
				_, _ = w.Write([]byte("<html><title>503 Service Unavailable</title></html>"))
			}))
			t.Cleanup(srv.Close)
			return failingCall(t, srv.URL+"/v2")
		}, []string{"sign-in (POST /auth) failed", "503 Service Unavailable", "retries on the next call"}},
		{"clock skew (token refused as expired)", func(t *testing.T) error {
			return failingCall(t, serve(t, func(w http.ResponseWriter, _ *http.Request) {
				envelope(w, 401, "Unauthorized", "Access token expired")
			}))
		}, []string{"Access token expired", "clock"}},
		{"IP not allowed", func(t *testing.T) error {
			return failingCall(t, serve(t, func(w http.ResponseWriter, _ *http.Request) {
				envelope(w, 403, "Forbidden", "IP address not allowed for this credential")
			}))
		}, []string{"IP address not allowed", "allow-list"}},
		{"https port that speaks http", func(t *testing.T) error {
			return failingCall(t, "https://"+strings.TrimPrefix(plainSrv.URL, "http://")+"/v2")
		}, []string{"TLS", "https"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line := common.DescribeErr(tr, "load", tc.err(t))
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q does not mention %q", line, w)
				}
			}
			if strings.Contains(line, "s3cret-for-errors") || strings.Contains(line, "tok-errors-123") {
				t.Fatalf("a secret leaked into %q", line)
			}
			// The dashboard keeps running and shows it.
			m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
			m.Update(common.StatusMsg{Text: m.describeError("load", tc.err(t)), Kind: common.StatusError})
			if v := m.View(); !strings.Contains(v, "load:") {
				t.Fatalf("the status line does not show the error:\n%s", v)
			}
			m.Update(tea.KeyMsg{Type: tea.KeyDown})
		})
	}
}

func TestServiceTextNamesTheCode(t *testing.T) {
	cases := []struct {
		err  *api.Error
		want string
	}{
		// The real service: a human message, the code in details.code.
		{&api.Error{HTTPStatus: 409, Kind: "Conflict", Message: "reference 'loja-centro' ja usado nesta conta",
			Details: map[string]any{"code": api.CodeSubAccountReferenceTaken}}, "reference 'loja-centro' ja usado nesta conta (SUB_ACCOUNT_REFERENCE_TAKEN)"},
		// A message that names its code is not repeated.
		{&api.Error{HTTPStatus: 403, Code: api.CodeSubAccountSuspended, Message: "SUB_ACCOUNT_SUSPENDED: suspended"}, "SUB_ACCOUNT_SUSPENDED: suspended"},
		{&api.Error{HTTPStatus: 500}, "500"},
		{&api.Error{HTTPStatus: 400, Message: "bad\x1b[2J\nline"}, "bad [2J line"},
	}
	for _, tc := range cases {
		if got := common.ServiceText(common.Catalog{Lang: common.LangEN}, tc.err); got != tc.want {
			t.Errorf("serviceText(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// A failure of the local database names its cause, never the network's.
func TestLocalStateErrorsNameTheirCause(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("state: %w (database or disk is full)", state.ErrDiskFull), "disk is full: free some space; nothing was saved (and nothing was sent)"},
		{fmt.Errorf("state: %w", state.ErrNoAccess), "cannot be written (permissions or a read-only disk)"},
		{fmt.Errorf("state: %w", state.ErrIO), "disk failed to read or write the local database"},
		{fmt.Errorf("state: %w", state.ErrDamaged), "local database is damaged"},
		{fmt.Errorf("state: %w", state.ErrBusy), "kept the local database busy"},
	} {
		got := common.DescribeErr(common.Catalog{Lang: common.LangEN}, "create charge", tc.err)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "connection") {
			t.Errorf("%v: %q, want %q and no word of the connection", tc.err, got, tc.want)
		}
		if pt := common.DescribeErr(common.Catalog{Lang: common.LangPT}, "criar cobrança", tc.err); pt == got {
			t.Errorf("%v: not translated: %q", tc.err, pt)
		}
	}
}
