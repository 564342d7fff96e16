package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixdash/api"
	"pixdash/api/safetext"
)

// Webhook delivery parameters from the spec.
const (
	// WebhookAttempts is the number of attempts before a delivery is marked failed.
	WebhookAttempts = 5
	// WebhookInitialInterval is the wait after the first failed attempt; it doubles each time.
	WebhookInitialInterval = 2 * time.Second
	// WebhookMaxInterval caps the wait between attempts.
	WebhookMaxInterval = 30 * time.Second
	// maxDeliveryLog caps the deliveries kept for GET /_sandbox/webhook-deliveries.
	maxDeliveryLog = 10_000
	// maxQueued caps deliveries waiting for an attempt; beyond it new ones are marked failed.
	maxQueued = 10_000
	// deliveryWorkers is the number of concurrent delivery attempts.
	deliveryWorkers = 4
)

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// eventEnvelope is the webhook body: {"event","eventId","timestamp","subAccount"?,"data"}, the
// per-event fields inside data.
type eventEnvelope struct {
	Event     api.EventKind `json:"event"`
	EventID   string        `json:"eventId"`
	Timestamp string        `json:"timestamp"`
	// SubAccount is the reference of the wallet the event belongs to; absent for the main account.
	SubAccount string `json:"subAccount,omitempty"`
	Data       any    `json:"data"`
}

// chargeEventData is data of payment_completed, payment_expired and payment_failed.
type chargeEventData struct {
	ID                  string              `json:"id"`
	TransactionID       string              `json:"transactionId"`
	ExternalReference   string              `json:"externalReference,omitempty"`
	Status              string              `json:"status"`
	Amount              api.Money           `json:"amount"`
	NetAmount           api.Money           `json:"netAmount"`
	FeeAmount           api.Money           `json:"feeAmount"`
	Split               []api.SplitItem     `json:"split,omitempty"`
	BlockedDeposit      *api.BlockedDeposit `json:"blockedDeposit,omitempty"`
	E2EID               string              `json:"e2eId,omitempty"`
	PaidAt              *time.Time          `json:"paidAt,omitempty"`
	CounterpartName     string              `json:"counterpartName,omitempty"`
	CounterpartDocument string              `json:"counterpartDocument,omitempty"`
	FailureReason       string              `json:"failureReason,omitempty"`
}

// chargeData builds a payment event's data; fee is the fee actually charged (0 unless paid), and
// netAmount is the amount minus that fee.
func chargeData(t *tx, fee api.Money) *chargeEventData {
	d := &chargeEventData{ID: t.id, TransactionID: t.id, ExternalReference: t.externalRef, Status: string(t.status),
		Amount: t.amount, NetAmount: t.amount - fee, FeeAmount: fee, E2EID: t.e2eID,
		CounterpartName: t.cpName, CounterpartDocument: t.cpDoc, FailureReason: t.failure}
	if t.paidAt != nil {
		p := t.paidAt.UTC()
		d.PaidAt = &p
	}
	return d
}

// refundEventData is data of refund_completed: id is the refund's transaction, transactionId and
// originalTransactionId the refunded payment; netAmount is what the customer receives.
type refundEventData struct {
	ID                    string    `json:"id"`
	TransactionID         string    `json:"transactionId"`
	OriginalTransactionID string    `json:"originalTransactionId"`
	Amount                api.Money `json:"amount"`
	NetAmount             api.Money `json:"netAmount"`
	FeeAmount             api.Money `json:"feeAmount"`
	Status                string    `json:"status"`
	E2EID                 string    `json:"e2eId,omitempty"`
}

// withdrawalEventData is data of withdrawal_completed, withdrawal_failed and withdrawal_reversed.
type withdrawalEventData struct {
	ID                string     `json:"id"`
	WithdrawalID      string     `json:"withdrawalId"`
	Amount            api.Money  `json:"amount"`
	FeeAmount         api.Money  `json:"feeAmount"`
	NetAmount         api.Money  `json:"netAmount"`
	Status            string     `json:"status"`
	FailureReason     string     `json:"failureReason,omitempty"`
	ExternalReference string     `json:"externalReference,omitempty"`
	PspReference      string     `json:"pspReference,omitempty"`
	ProcessedAt       *time.Time `json:"processedAt,omitempty"`
}

// emit wraps data in the envelope, and queues it for the endpoints that receive w's events;
// s.mu is held. A sub-account without an endpoint of its own has its events delivered to the
// main account's. Every endpoint receives the same body and eventId; each attempt is signed.
func (s *Server) emit(w *wallet, kind api.EventKind, data any, now time.Time) {
	ev := eventEnvelope{Event: kind, EventID: s.ids.uuid(), Timestamp: now.UTC().Format(timeLayout), SubAccount: w.ref, Data: data}
	a := w.acct
	var targets []*endpoint
	if w.ref != "" {
		for _, e := range a.endpoints {
			if e.subAccount == w.ref {
				targets = append(targets, e)
			}
		}
	}
	if len(targets) == 0 {
		for _, e := range a.endpoints {
			if e.subAccount == "" {
				targets = append(targets, e)
			}
		}
	}
	if len(targets) == 0 {
		return
	}
	body, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("sandbox: encode event", "err", err)
		return
	}
	for _, e := range targets {
		s.deliv.enqueue(&delivery{
			id: s.ids.uuid(), accountID: a.id, endpointID: e.id, url: e.url, secret: e.secret,
			eventID: ev.EventID, event: kind, subAccount: w.label(), body: body,
			status: DeliveryPending, createdAt: s.clock.Now(),
		})
	}
}

// Delivery is one webhook delivery as GET /_sandbox/webhook-deliveries lists it.
type Delivery struct {
	ID             string        `json:"id"`
	EventID        string        `json:"eventId"`
	Event          api.EventKind `json:"event"`
	EndpointID     string        `json:"endpointId"`
	URL            string        `json:"url"`
	SubAccount     string        `json:"subAccount"` // wallet the event belongs to ("principal" for the main account)
	Status         string        `json:"status"`     // pending, delivered or failed
	Attempts       int           `json:"attempts"`
	LastStatusCode int           `json:"lastStatusCode,omitempty"`
	LastError      string        `json:"lastError,omitempty"`
	// LastAnswer is the start of the receiver's last body (cleaned), e.g. why it refused the event.
	LastAnswer string `json:"lastAnswer,omitempty"`
	// Redelivery is set on the extra copies sent by the redeliveryStorm fault.
	Redelivery    bool       `json:"redelivery,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

type delivery struct {
	id, accountID, endpointID, url, secret, eventID, subAccount string
	event                                                       api.EventKind
	body                                                        []byte

	redelivery bool // an extra copy sent by the redeliveryStorm fault

	// Guarded by deliverer.mu.
	status      string
	attempts    int
	lastCode    int
	lastErr     string
	lastAnswer  string
	createdAt   time.Time
	updatedAt   time.Time
	nextAttempt *time.Time
}

// deliverer sends webhooks from a bounded queue with a few workers, retrying on the clock.
type deliverer struct {
	clock   Clock
	scale   float64
	log     *slog.Logger
	client  *http.Client
	tr      *http.Transport
	ctx     context.Context
	cancel  context.CancelFunc
	wake    chan struct{}
	wg      sync.WaitGroup
	timeout time.Duration
	elog    *eventLog

	mu      sync.Mutex
	changed func() // called after each attempt (the state file keeps what is still pending)
	closed  bool
	storm   int  // redeliveryStorm fault: extra copies of each delivered event
	lifo    bool // outOfOrder fault: newest waiting delivery first
	queue   []*delivery
	log10k  []*delivery
	timers  map[*delivery]Timer
	busy    map[string]bool // endpoints with an attempt in flight
}

func newDeliverer(clock Clock, scale float64, timeout time.Duration, log *slog.Logger, elog *eventLog) *deliverer {
	tr := &http.Transport{
		Proxy:                 nil, // talk only to the registered URL
		DialContext:           (&net.Dialer{Timeout: timeout}).DialContext,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: timeout,
		TLSHandshakeTimeout:   timeout,
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &deliverer{
		clock: clock, scale: scale, log: log, tr: tr, ctx: ctx, cancel: cancel, timeout: timeout, elog: elog,
		client: &http.Client{
			Transport: tr,
			Timeout:   timeout,
			// Never follow a redirect away from the registered URL: a 3xx is a failed attempt.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		wake:   make(chan struct{}, 1),
		timers: map[*delivery]Timer{},
		busy:   map[string]bool{},
	}
	for range deliveryWorkers {
		d.wg.Add(1)
		go d.work()
	}
	return d
}

// enqueue adds a delivery without blocking; a full queue fails it at once.
func (d *deliverer) enqueue(x *delivery) {
	d.mu.Lock()
	x.updatedAt = x.createdAt
	d.record(x)
	if d.closed {
		x.status, x.lastErr = DeliveryFailed, "sandbox closed"
		d.mu.Unlock()
		return
	}
	if len(d.queue) >= maxQueued {
		x.status, x.lastErr = DeliveryFailed, "delivery queue full"
		d.mu.Unlock()
		d.log.Warn("sandbox: webhook queue full, delivery dropped", "event", x.event, "eventId", x.eventID)
		return
	}
	d.queue = append(d.queue, x)
	d.mu.Unlock()
	d.signal()
}

func (d *deliverer) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// record appends to the bounded log, dropping the oldest finished deliveries first; d.mu is held.
func (d *deliverer) record(x *delivery) {
	d.log10k = append(d.log10k, x)
	if len(d.log10k) <= maxDeliveryLog {
		return
	}
	drop := len(d.log10k) - maxDeliveryLog
	kept := d.log10k[:0]
	for _, y := range d.log10k {
		if drop > 0 && y.status != DeliveryPending {
			drop--
			continue
		}
		kept = append(kept, y)
	}
	if drop > 0 { // all pending: drop the oldest records anyway (their attempts go on)
		kept = kept[drop:]
	}
	clear(d.log10k[len(kept):])
	d.log10k = kept
}

// next takes the oldest queued delivery whose endpoint has no attempt in flight, so that one
// endpoint receives its events in order (a retry may still arrive after later events).
func (d *deliverer) next() *delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	for k := range d.queue {
		i := k
		if d.lifo {
			i = len(d.queue) - 1 - k
		}
		x := d.queue[i]
		if d.busy[x.endpointID] {
			continue
		}
		copy(d.queue[i:], d.queue[i+1:])
		d.queue[len(d.queue)-1] = nil
		d.queue = d.queue[:len(d.queue)-1]
		d.busy[x.endpointID] = true
		if len(d.queue) > 0 {
			d.signal()
		}
		return x
	}
	return nil
}

func (d *deliverer) work() {
	defer d.wg.Done()
	for {
		if x := d.next(); x != nil {
			d.attempt(x)
			d.mu.Lock()
			changed := d.changed
			d.mu.Unlock()
			if changed != nil {
				changed()
			}
			continue
		}
		select {
		case <-d.ctx.Done():
			return
		case <-d.wake:
		}
	}
}

// attempt posts the event once and schedules the next attempt on failure.
func (d *deliverer) attempt(x *delivery) {
	code, errText, answer := d.post(x)
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.busy, x.endpointID)
	if len(d.queue) > 0 {
		d.signal()
	}
	now := d.clock.Now()
	x.attempts++
	x.lastCode, x.lastErr, x.lastAnswer, x.updatedAt, x.nextAttempt = code, errText, answer, now, nil
	line := DeliveryLine{Time: now.UTC(), Type: "delivery", DeliveryID: x.id, EndpointID: x.endpointID, URL: x.url,
		Event: string(x.event), EventID: x.eventID, Attempt: x.attempts, Status: code, Answer: answer, Error: errText,
		Redelivery: x.redelivery}
	defer func() { d.elog.write(line) }()
	if code >= 200 && code < 300 {
		x.status = DeliveryDelivered
		line.Outcome = DeliveryDelivered
		if !x.redelivery && !d.closed {
			d.stormCopies(x, now)
		}
		return
	}
	line.Outcome = "retrying"
	if d.closed {
		return
	}
	if x.attempts >= WebhookAttempts {
		x.status = DeliveryFailed
		line.Outcome = DeliveryFailed
		d.log.Info("sandbox: webhook delivery failed", "event", x.event, "eventId", x.eventID, "attempts", x.attempts)
		return
	}
	wait := backoff(x.attempts, d.scale)
	at := now.Add(wait)
	x.nextAttempt = &at
	d.timers[x] = d.clock.AfterFunc(wait, func() {
		d.mu.Lock()
		if _, live := d.timers[x]; !live || d.closed {
			d.mu.Unlock()
			return
		}
		delete(d.timers, x)
		d.queue = append(d.queue, x)
		d.mu.Unlock()
		d.signal()
	})
}

// backoff is the wait after the n-th failed attempt: 2 s doubling, capped at 30 s, times scale.
func backoff(n int, scale float64) time.Duration {
	w := WebhookInitialInterval
	for i := 1; i < n && w < WebhookMaxInterval; i++ {
		w *= 2
	}
	if w > WebhookMaxInterval {
		w = WebhookMaxInterval
	}
	return time.Duration(float64(w) * scale)
}

// stormCopies queues the redeliveryStorm fault's extra copies of delivered x; d.mu is held.
func (d *deliverer) stormCopies(x *delivery, now time.Time) {
	for range d.storm {
		if len(d.queue) >= maxQueued {
			return
		}
		y := &delivery{id: x.id + "-r" + strconv.Itoa(len(d.log10k)), accountID: x.accountID, endpointID: x.endpointID,
			url: x.url, secret: x.secret, eventID: x.eventID, subAccount: x.subAccount, event: x.event, body: x.body,
			redelivery: true, status: DeliveryPending, createdAt: now, updatedAt: now}
		d.record(y)
		d.queue = append(d.queue, y)
	}
	if d.storm > 0 {
		d.signal()
	}
}

// setFaults sets the redelivery storm and out-of-order faults.
func (d *deliverer) setFaults(storm int, outOfOrder bool) {
	d.mu.Lock()
	d.storm, d.lifo = storm, outOfOrder
	d.mu.Unlock()
}

// faults returns the redelivery storm and out-of-order faults in force.
func (d *deliverer) faults() (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.storm, d.lifo
}

// maxAnswer bounds the part of the receiver's body kept and logged.
const maxAnswer = 200

func (d *deliverer) post(x *delivery) (int, string, string) {
	ctx, cancel := context.WithTimeout(d.ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, bytes.NewReader(x.body))
	if err != nil {
		return 0, "invalid endpoint URL", ""
	}
	sig := api.Sign(x.body, api.Secret(x.secret))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "pixdash-sandbox-webhooks/1")
	// The service signs in X-Pague-Signature; the spec names X-Service-Signature: both are sent.
	req.Header.Set(api.PagueSignatureHeader, sig)
	req.Header.Set(api.SignatureHeader, sig)
	req.Header.Set(api.TimestampHeader, strconv.FormatInt(d.clock.Now().UnixMilli(), 10))
	req.Header.Set(api.EventHeader, string(x.event))
	req.Header.Set(api.WebhookIDHeader, x.id)
	req.Header.Set(api.EventIDHeader, x.eventID)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, describeTransportError(err), ""
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 4*maxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	answer := truncateText(strings.TrimSpace(safetext.Clean(string(head))), maxAnswer)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Sprintf("endpoint answered %d", resp.StatusCode), answer
	}
	return resp.StatusCode, "", answer
}

// describeTransportError names the failure without echoing anything the endpoint sent.
func describeTransportError(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, new(*net.OpError)):
		return "connection failed"
	}
	return "request failed"
}

// list copies the deliveries of an account, oldest first.
func (d *deliverer) list(accountID string) []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []Delivery{}
	for _, x := range d.log10k {
		if x.accountID != accountID {
			continue
		}
		v := Delivery{ID: x.id, EventID: x.eventID, Event: x.event, EndpointID: x.endpointID, URL: x.url,
			SubAccount: x.subAccount, Status: x.status, Attempts: x.attempts, LastStatusCode: x.lastCode,
			LastError: x.lastErr, LastAnswer: x.lastAnswer, Redelivery: x.redelivery,
			CreatedAt: x.createdAt.UTC(), UpdatedAt: x.updatedAt.UTC()}
		if x.nextAttempt != nil {
			n := x.nextAttempt.UTC()
			v.NextAttemptAt = &n
		}
		out = append(out, v)
	}
	return out
}

// pending copies the deliveries not yet delivered nor failed, oldest first (for the state file).
func (d *deliverer) pending() []delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []delivery
	for _, x := range d.log10k {
		if x.status == DeliveryPending {
			out = append(out, delivery{id: x.id, accountID: x.accountID, endpointID: x.endpointID, url: x.url,
				eventID: x.eventID, subAccount: x.subAccount, event: x.event, body: x.body, redelivery: x.redelivery,
				attempts: x.attempts, createdAt: x.createdAt})
		}
	}
	return out
}

// close stops the workers and retry timers and waits for in-flight attempts to end.
func (d *deliverer) close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	for x, t := range d.timers {
		t.Stop()
		delete(d.timers, x)
	}
	d.queue = nil
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	d.tr.CloseIdleConnections()
}

// Format prints a delivery without its signing secret, for every verb.
func (x *delivery) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "delivery{%s %s %s}", x.id, x.event, x.url)
}
