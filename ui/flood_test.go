package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// floodRig runs the dashboard in a real Bubble Tea program with its clock and its store's
// change notices (no engine, no service) and times each key from the moment it is sent to the
// end of the View that follows its Update, which Bubble Tea calls right after it.
type floodRig struct {
	m *Model
	// sent holds the send times of the keys not handled yet, in order.
	mu      sync.Mutex
	sent    []time.Time
	handled []time.Time // the send time of the key whose frame the next View builds
	lat     []time.Duration
}

func (r *floodRig) Init() tea.Cmd { return tea.Batch(common.Tick(), r.m.waitChange()) }

func (r *floodRig) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		r.mu.Lock()
		r.handled = append(r.handled, r.sent[0])
		r.sent = r.sent[1:]
		r.mu.Unlock()
	}
	_, cmd := r.m.Update(msg)
	return r, cmd
}

func (r *floodRig) View() string {
	v := r.m.View()
	r.mu.Lock()
	for _, t := range r.handled {
		r.lat = append(r.lat, time.Since(t))
	}
	r.handled = r.handled[:0]
	r.mu.Unlock()
	return v
}

// flooder writes payment webhooks into the store at a paced rate, as the receiver does: each
// event recorded and its charge updated (the read-back's answer), one commit each.
type flooder struct {
	s    *Session
	in   *state.Intake
	seq  atomic.Int64
	sent atomic.Int64
}

func (f *flooder) run(t *testing.T, ctx context.Context, rate int) {
	// floodSenders goroutines each send one event per tick, as concurrent deliveries do: one
	// sender alone cannot keep up with two commits an event at 1,000/s on a loaded machine.
	for range floodSenders {
		go func() {
			tick := time.NewTicker(time.Duration(floodSenders) * time.Second / time.Duration(rate))
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				if !f.send(t) {
					return
				}
			}
		}()
	}
}

// floodSenders is how many goroutines deliver the flood.
const floodSenders = 4

// send delivers one payment webhook and records its charge paid; false on an error.
func (f *flooder) send(t *testing.T) bool {
	i := f.seq.Add(1)
	id := fmt.Sprintf("9f6c1a2e-0000-4000-8000-%012d", i)
	raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-keys-%09d", i), "event": api.EventPaymentCompleted,
		"createdAt": goldenNow.Format(time.RFC3339), "transactionId": id, "amount": 12.34, "netAmount": 12.34, "feeAmount": 0.5})
	if err := f.in.Accept(raw); err != nil {
		t.Error(err)
		return false
	}
	paid := goldenNow
	ch := state.Charge{ID: id, Amount: 1234, Description: "Pedido " + strconv.FormatInt(i, 10), Status: api.StatusCompleted,
		CreatedAt: goldenNow, UpdatedAt: goldenNow, PaidAt: &paid, Wallet: api.WalletPrincipal}
	if _, err := f.s.Store.UpsertCharge(context.Background(), ch); err != nil {
		t.Error(err)
		return false
	}
	f.sent.Add(1)
	return true
}

// TestKeysDuringFlood (PIXDASH_FLOOD=1; PIXDASH_FLOOD_SECONDS per run, 10 by default;
// PIXDASH_FLOOD_CHARGES, 10000 by default) floods the store with payment webhooks at 100, 500
// and 1,000 a second while the dashboard (charges view, 120x40, 256 colours) is open in a
// Bubble Tea program and a key (down, up) is pressed every 50 ms; beside each, the same flood
// with no dashboard. It logs the key → frame latency (p50, p99, max), the dashboard's CPU per
// event and as a share of a core (its run's CPU minus the flood's alone), and the bytes
// written. It asserts nothing about time: the figures go in README › Performance.
func TestKeysDuringFlood(t *testing.T) {
	if os.Getenv("PIXDASH_FLOOD") == "" {
		t.Skip("set PIXDASH_FLOOD=1 to measure keys during a webhook flood")
	}
	secs, n := 10, 10_000
	if v, err := strconv.Atoi(os.Getenv("PIXDASH_FLOOD_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	if v, err := strconv.Atoi(os.Getenv("PIXDASH_FLOOD_CHARGES")); err == nil && v > 0 {
		n = v
	}
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	benchModel(t, n)
	s := benchSessions[n]
	in, err := s.Store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	s.Intake = in
	f := &flooder{s: s, in: in}
	for _, rate := range []int{100, 500, 1000} {
		var alonePerEvent float64 // CPU µs an event of the flood alone
		for _, side := range []string{"flood alone", "dashboard"} {
			ctx, cancel := context.WithCancel(context.Background())
			var rig *floodRig
			var p *tea.Program
			done := make(chan error, 1)
			out := &countingWriter{}
			if side == "dashboard" {
				m := goldenModel(t, s, 120, 40)
				m.c.Now = time.Now
				rig = &floodRig{m: m}
				p = tea.NewProgram(rig, tea.WithOutput(out), tea.WithInput(nil), tea.WithoutSignalHandler())
				go func() { _, err := p.Run(); done <- err }()
				p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
				time.Sleep(time.Second)
			}
			go f.run(t, ctx, rate)
			time.Sleep(time.Second) // the flood under way
			c0, w0, e0, b0 := cpuTime(), time.Now(), f.sent.Load(), out.n.Load()
			keys := 0
			for end := time.Now().Add(time.Duration(secs) * time.Second); time.Now().Before(end); keys++ {
				time.Sleep(50 * time.Millisecond)
				if p == nil {
					continue
				}
				k := tea.KeyMsg{Type: tea.KeyDown}
				if keys%2 == 1 {
					k = tea.KeyMsg{Type: tea.KeyUp}
				}
				rig.mu.Lock()
				rig.sent = append(rig.sent, time.Now())
				rig.mu.Unlock()
				p.Send(k)
			}
			c1, w1, e1, b1 := cpuTime(), time.Now(), f.sent.Load(), out.n.Load()
			cancel()
			events := e1 - e0
			cpu := time.Duration(c1 - c0)
			wall := w1.Sub(w0)
			if side == "flood alone" {
				alonePerEvent = float64(cpu.Microseconds()) / float64(max(events, 1))
				t.Logf("%4d/s %-11s: %d events in %v (%.0f/s), CPU %.1f%% of a core", rate, side, events, wall.Round(time.Millisecond),
					float64(events)/wall.Seconds(), 100*cpu.Seconds()/wall.Seconds())
				continue
			}
			time.Sleep(200 * time.Millisecond)
			p.Quit()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			rig.mu.Lock()
			lat := slices.Clone(rig.lat)
			rig.mu.Unlock()
			slices.Sort(lat)
			pct := func(q float64) time.Duration {
				if len(lat) == 0 {
					return 0
				}
				return lat[min(int(q*float64(len(lat))), len(lat)-1)].Round(10 * time.Microsecond)
			}
			// The dashboard's share: this run's CPU an event less the flood's alone, per event
			// (the two runs may deliver a few more or fewer events).
			perEvent := float64(cpu.Microseconds())/float64(max(events, 1)) - alonePerEvent
			var b strings.Builder
			fmt.Fprintf(&b, "%4d/s %-11s: %d events in %v (%.0f/s), CPU %.1f%% of a core; the dashboard's share %.1f%% of a core, %.0f µs an event; ",
				rate, side, events, wall.Round(time.Millisecond), float64(events)/wall.Seconds(), 100*cpu.Seconds()/wall.Seconds(),
				100*perEvent*float64(events)/1e6/wall.Seconds(), perEvent)
			fmt.Fprintf(&b, "%d keys → frame: p50 %v, p99 %v, max %v; %.0f B/s written", len(lat), pct(0.5), pct(0.99), pct(1), float64(b1-b0)/wall.Seconds())
			t.Log(b.String())
		}
	}
}
