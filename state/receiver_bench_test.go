package state

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// Webhook intake benchmarks: the receiver's whole path (verify, validate, dedupe, persist to the
// inbox) against a bare handler that only reads the body and checks the HMAC, both driven by the
// same concurrent deliveries. `make bench` runs them; compare the events/s metrics.
//
//   - BenchmarkReceiverHTTP is the target: deliveries arrive as the service sends them, HTTP
//     requests over loopback connections kept alive, and both handlers sit behind the same
//     net/http server.
//   - BenchmarkReceiverPersist calls the handlers directly, without HTTP: it magnifies the
//     receiver's own cost per delivery (the HTTP exchange is most of a real one).

const benchSecret api.Secret = "whsec_pixdash-bench-s3cr3t"

// Concurrency of the harness: deliveries in flight, and the pause before retrying a 503.
const (
	benchDeliverers = 64
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

// maxBenchBatch is how many events the consumer applies per store commit (as the dashboard's
// event loop, ui.maxEventBatch).
const maxBenchBatch = 4096

// BenchmarkReceiverPersist reports events/s through the webhook intake next to a bare HMAC check
// under the same load, called in process without HTTP, and the ratio to the best bare rate (the
// target, at least 0.5, is BenchmarkReceiverHTTP's; this one shows the handlers' own cost):
//
//   - receiver-persist is the receiver's whole path: verify, validate and read the eventId,
//     dedupe, and persist to the profile's inbox file (answered 200 once written); the clock
//     stops when the last event is fsynced.
//   - receiver-persist-apply adds the dashboard's consumer running at the same time on the same
//     two cores (read the inbox, decode, Store.ApplyEvents with one fsync per batch, Done); the
//     clock stops when the last event is applied. Under this flood the consumer lags the
//     intake, which is what the inbox is for.
func BenchmarkReceiverPersist(b *testing.B) {
	var bare float64 // the best events/s of bare-hmac over the -count runs, for the ratios
	b.Run("bare-hmac", func(b *testing.B) {
		ds := benchDeliveries(b.N) // the same deliveries as the receiver gets
		h := bareHMAC()
		b.ReportAllocs()
		b.ResetTimer()
		deliverAll(b, h, ds, b.N)
		rate := float64(b.N) / b.Elapsed().Seconds()
		bare = max(bare, rate)
		b.ReportMetric(rate, "events/s")
	})
	b.Run("receiver-persist", func(b *testing.B) {
		benchIntake(b, false, bare)
	})
	b.Run("receiver-persist-apply", func(b *testing.B) {
		benchIntake(b, true, bare)
	})
}

// benchIntake delivers b.N distinct events to a Receiver whose sink is an inbox on disk. With
// apply, one goroutine consumes the inbox as the dashboard does and the clock stops when the
// last event is applied; without, when the last one is fsynced. bare is the bare-hmac rate (0
// when unknown).
func benchIntake(b *testing.B, apply bool, bare float64) {
	ds := benchDeliveries(b.N) // every eventId new
	dir := b.TempDir()
	in := openBenchInbox(b, dir)
	defer in.Close()
	store, err := Open(dir, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	r := api.NewReceiver(benchSecret, api.WithSink(in)) // the dashboard's settings
	var applied, batches, applyNs atomic.Int64
	allApplied := make(chan struct{})
	stop := make(chan struct{})
	consumerDone := make(chan struct{})
	go func() {
		defer close(consumerDone)
		if !apply {
			return
		}
		for {
			select {
			case <-stop:
				return
			case <-in.Ready():
			}
			t0 := time.Now()
			batch, err := in.Next(maxBenchBatch)
			if err != nil {
				b.Errorf("Next: %v", err)
				return
			}
			evs, skipped := store.InboxEvents(batch)
			first, err := store.ApplyEvents(evs)
			if err == nil {
				err = in.Done(batch)
			}
			applyNs.Add(int64(time.Since(t0)))
			if err != nil || skipped != 0 {
				b.Errorf("apply: %v (%d skipped)", err, skipped)
				return
			}
			for i, f := range first {
				if !f {
					b.Errorf("ApplyEvents(%s): not first", evs[i].EventID)
				}
			}
			batches.Add(1)
			if len(evs) > 0 && applied.Add(int64(len(evs))) == int64(b.N) {
				close(allApplied)
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	retries := deliverAll(b, r, ds, b.N)
	if apply {
		select {
		case <-allApplied:
		case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
			b.Fatalf("only %d of %d events applied", applied.Load(), b.N)
		}
	} else if err := in.Sync(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/float64(max(in.Stats().Writes, 1)), "events/write")
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	if bare > 0 {
		b.ReportMetric(rate/bare, "x-bare")
	}
	b.ReportMetric(float64(retries)/float64(b.N), "retries/event")
	if apply {
		b.ReportMetric(float64(b.N)/float64(max(batches.Load(), 1)), "events/batch")
		// The share of the time the consumer was busy (near 1: it is the limit).
		b.ReportMetric(float64(applyNs.Load())/1e9/b.Elapsed().Seconds(), "apply-busy")
	}
	close(stop)
	<-consumerDone
	if st := r.Stats(); st.Accepted != uint64(b.N) || st.Rejected+st.Malformed+st.Duplicates+st.Failed != 0 {
		b.Fatalf("receiver stats %+v after %d deliveries", st, b.N)
	}
	if st := in.Stats(); st.Accepted != uint64(b.N) || !apply && st.Synced != uint64(b.N) {
		b.Fatalf("inbox stats %+v after %d deliveries", st, b.N)
	}
	if n := store.Events().Total(); apply && n != b.N {
		b.Fatalf("store holds %d events, want %d", n, b.N)
	}
}

// openBenchInbox opens an inbox in dir without the limit on unapplied entries: without a
// consumer a long run would otherwise fill it and retry forever.
func openBenchInbox(b *testing.B, dir string) *Inbox {
	in, err := OpenInbox(dir, "bench")
	if err != nil {
		b.Fatal(err)
	}
	in.limit = math.MaxInt64 / 2
	return in
}

// BenchmarkReceiverHTTP reports events/s of the bare HMAC handler and of the receiver (verify,
// validate, dedupe, persist to the inbox file) behind the same net/http server, each receiving
// b.N distinct signed deliveries as HTTP POSTs from benchDeliverers clients over loopback
// keep-alive connections, and the receiver's ratio to the best bare rate (the target is at least
// 0.5). The receiver's clock stops when the last event is fsynced. Clients and server share the
// machine's cores, as a sender's load would.
func BenchmarkReceiverHTTP(b *testing.B) {
	var bare float64 // the best over the -count runs, for the ratios
	b.Run("bare-hmac", func(b *testing.B) {
		rate := benchHTTP(b, bareHMAC(), nil)
		bare = max(bare, rate)
		b.ReportMetric(rate, "events/s")
	})
	b.Run("receiver-persist", func(b *testing.B) {
		in := openBenchInbox(b, b.TempDir())
		defer in.Close()
		r := api.NewReceiver(benchSecret, api.WithSink(in)) // the dashboard's settings
		rate := benchHTTP(b, r, in)
		b.ReportMetric(rate, "events/s")
		if bare > 0 {
			b.ReportMetric(rate/bare, "x-bare")
		}
		if st := r.Stats(); st.Accepted != uint64(b.N) {
			b.Fatalf("receiver stats %+v after %d deliveries", st, b.N)
		}
	})
}

// bareHMAC is the yardstick: read the body, check its signature, answer.
func bareHMAC() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || api.VerifySignature(body, req.Header.Get(api.SignatureHeader), benchSecret) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// benchHTTP serves h on a loopback port and POSTs b.N distinct signed deliveries to it from
// benchDeliverers goroutines (a 503 is retried after benchRetryPause), returning events/s; with
// in, the clock stops once every entry is fsynced.
func benchHTTP(b *testing.B, h http.Handler, in *Inbox) float64 {
	ds := benchDeliveries(b.N)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(api.WebhookPath, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + api.WebhookPath
	tr := &http.Transport{MaxIdleConnsPerHost: benchDeliverers, MaxConnsPerHost: benchDeliverers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range benchDeliverers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				for {
					req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(ds[i].body))
					if err != nil {
						b.Error(err)
						return
					}
					req.Header[api.SignatureHeader] = ds[i].sig
					resp, err := client.Do(req)
					if err != nil {
						b.Errorf("delivery %d: %v", i, err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode == http.StatusServiceUnavailable {
						time.Sleep(benchRetryPause)
						continue
					}
					if resp.StatusCode != http.StatusOK {
						b.Errorf("delivery %d: status %d", i, resp.StatusCode)
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	if in != nil {
		if err := in.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	return float64(b.N) / b.Elapsed().Seconds()
}

// BenchmarkApplyEventBatches is the consumer's side alone: decoded benchmark events applied to a
// store on disk in batches of maxBenchBatch (one fsync each), per event.
func BenchmarkApplyEventBatches(b *testing.B) {
	evs := make([]*api.Event, b.N)
	for i := range evs {
		ev, err := api.DecodeEvent(benchPayload(i))
		if err != nil {
			b.Fatal(err)
		}
		evs[i] = ev
	}
	store, err := Open(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for len(evs) > 0 {
		n := min(len(evs), maxBenchBatch)
		if _, err := store.ApplyEvents(evs[:n]); err != nil {
			b.Fatal(err)
		}
		evs = evs[n:]
	}
}
