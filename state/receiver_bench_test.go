package state

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// Webhook intake benchmarks: the full receiver path (verify, decode, dedupe, hand on, then apply and
// persist with fsync) against a bare handler that only reads the body and checks the HMAC, both
// driven by the same concurrent deliveries. `make bench` runs them; compare the events/s metrics.

const benchSecret api.Secret = "whsec_pixdash-bench-s3cr3t"

// Concurrency of the harness: deliveries in flight, and goroutines applying events to the store
// (the store commits concurrent writes with one fsync per batch, so persisting needs many).
const (
	benchDeliverers = 64
	benchAppliers   = 4096
	benchRetryPause = 200 * time.Microsecond
)

// benchPayload is a payment_completed payload like the emulator's, with a distinct eventId.
func benchPayload(i int) []byte {
	return fmt.Appendf(nil, `{"eventId":"evt-%010d","event":"payment_completed","createdAt":"2026-11-21T14:30:00Z","subAccount":"loja-1","transactionId":"tx-%010d","externalReference":"PED-%d","status":"completed","amount":10.50,"feeAmount":0.99,"e2eId":"E9999000120261121143000000%06d","counterpartName":"Maria da Silva"}`, i, i, i, i%1_000_000)
}

// benchDelivery is one signed delivery, built before the timer starts.
type benchDelivery struct {
	body []byte
	sig  []string
}

func benchDeliveries(n int) []benchDelivery {
	ds := make([]benchDelivery, n)
	for i := range ds {
		body := benchPayload(i)
		ds[i] = benchDelivery{body: body, sig: []string{api.Sign(body, benchSecret)}}
	}
	return ds
}

// statusWriter is a ResponseWriter that keeps only the status, so the harness costs little.
type statusWriter struct {
	h    http.Header
	code int
}

func (w *statusWriter) Header() http.Header         { return w.h }
func (w *statusWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *statusWriter) WriteHeader(code int)        { w.code = code }

// deliverAll sends deliveries 0..n-1 (ds[i%len(ds)]) to h from benchDeliverers goroutines, each
// reusing one request; a 503 (receiver buffer full) is retried, as the service would. It returns
// how many retries that took.
func deliverAll(b *testing.B, h http.Handler, ds []benchDelivery, n int) int64 {
	var next, retries atomic.Int64
	u := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: api.WebhookPath}
	var wg sync.WaitGroup
	for range benchDeliverers {
		wg.Go(func() {
			rd := bytes.NewReader(nil)
			req := &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}, Body: io.NopCloser(rd), Host: u.Host}
			w := &statusWriter{h: http.Header{}}
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				d := ds[i%len(ds)]
				req.Header[api.SignatureHeader] = d.sig
				req.ContentLength = int64(len(d.body))
				for {
					rd.Reset(d.body)
					w.code = 0
					h.ServeHTTP(w, req)
					if w.code != http.StatusServiceUnavailable {
						break
					}
					retries.Add(1)
					time.Sleep(benchRetryPause) // the service waits before retrying; spinning would starve the appliers

				}
				if w.code != http.StatusOK && w.code != 0 {
					b.Errorf("delivery %d: status %d", i, w.code)
					return
				}
			}
		})
	}
	wg.Wait()
	return retries.Load()
}

// BenchmarkReceiverPersist reports events/s through the whole intake, next to a bare HMAC check
// under the same load. receiver-persist counts an event once the store acknowledged it (fsynced):
// with one applier, as the dashboard's event loop applies them today (one fsync per event), and
// with benchAppliers concurrent ones, whose writes the store commits together.
func BenchmarkReceiverPersist(b *testing.B) {
	b.Run("bare-hmac", func(b *testing.B) {
		ds := benchDeliveries(min(b.N, 1<<14))
		bare := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, err := io.ReadAll(req.Body)
			if err != nil || api.VerifySignature(body, req.Header.Get(api.SignatureHeader), benchSecret) != nil {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		b.ReportAllocs()
		b.ResetTimer()
		deliverAll(b, bare, ds, b.N)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("receiver-no-persist", func(b *testing.B) {
		benchIntake(b, 1, false)
	})
	for _, appliers := range []int{1, benchAppliers} {
		b.Run(fmt.Sprintf("receiver-persist/appliers=%d", appliers), func(b *testing.B) {
			benchIntake(b, appliers, true)
		})
	}
}

// benchIntake delivers b.N distinct events to a Receiver whose events appliers goroutines apply
// to a Store on disk; the clock stops when the last one is fsynced. Without persist they only take
// the events off the channel (the receiver's own cost: verify, decode, dedupe, hand on).
func benchIntake(b *testing.B, appliers int, persist bool) {
	ds := benchDeliveries(b.N) // every eventId new
	store, err := Open(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	apply := func(ev *api.Event) {
		first, err := store.ApplyEvent(ev)
		if err != nil || !first {
			b.Errorf("ApplyEvent(%s) = %t, %v", ev.EventID, first, err)
		}
	}
	if !persist {
		apply = func(*api.Event) {}
	}
	r := api.NewReceiver(benchSecret, api.WithBuffer(max(4*appliers, api.DefaultWebhookBuffer)), api.WithSeenCapacity(max(b.N, 1)))
	var applied atomic.Int64
	allApplied := make(chan struct{})
	stop := make(chan struct{})
	var consumers sync.WaitGroup
	for range appliers {
		consumers.Go(func() {
			for {
				select {
				case <-stop:
					return
				case ev := <-r.Events():
					apply(ev)
					if applied.Add(1) == int64(b.N) {
						close(allApplied)
					}
				}
			}
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	retries := deliverAll(b, r, ds, b.N)
	select {
	case <-allApplied:
	case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
		b.Fatalf("only %d of %d events persisted", applied.Load(), b.N)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(retries)/float64(b.N), "retries/event")
	close(stop)
	consumers.Wait()
	if st := r.Stats(); st.Accepted != uint64(b.N) || st.Rejected+st.Malformed+st.Duplicates != 0 {
		b.Fatalf("receiver stats %+v after %d deliveries", st, b.N)
	}
	if n := store.Events().Total(); persist && n != b.N {
		b.Fatalf("store holds %d events, want %d", n, b.N)
	}
}
