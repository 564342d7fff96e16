package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// historyTexts are the texts a generated history draws from: plain, accented, formula-like,
// with separators, quotes, line breaks and control or invisible characters.
var historyTexts = []string{
	"", "Pedido 42", "Pão de queijo", "Doação", "João da Silva", "=SUM(A1:A9)", "+55 11 99999", "-desconto", "@mention",
	"\ttab", "a;b,c", `diz "oi"`, "linha 1\nlinha 2", "cr\rlf", "esc\x1b[31m", "bidi\u202eevil", "zero\u200bwidth",
	"c1\u009bx", "emoji 🍕", "  espaços  ", "R$ 1.234,56", "ção ÇÃO", "x\u00a0nbsp", "\\.",
}

// historyCharge is generated charge i: every state, fee, split, blocked deposit, MED block and
// text the export writes, from a fixed seed (the same on every run).
func historyCharge(i int) state.Charge {
	r := rand.New(rand.NewPCG(27, uint64(i)))
	text := func() string { return historyTexts[r.IntN(len(historyTexts))] }
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	created := base.Add(time.Duration(i)*97*time.Minute + time.Duration(r.IntN(60_000))*time.Millisecond)
	c := state.Charge{
		ID:                fmt.Sprintf("tx_%05d", i),
		Wallet:            []string{"principal", "loja-a", "loja-b", ""}[r.IntN(4)],
		Amount:            api.Money(1 + r.Int64N(500_000)),
		Description:       text(),
		ExternalReference: text(),
		Status:            api.StatusPending,
		CreatedAt:         created,
		ExpiresAt:         created.Add(time.Hour),
		UpdatedAt:         created,
		PixCopyPaste:      "00020101021226880014br.gov.bcb.pix",
		Source:            state.SourceCreated,
	}
	if r.IntN(5) == 0 {
		c.SplitRequested = []api.SplitItem{{SubAccount: "loja-b", Amount: c.Amount / 3}, {SubAccount: text(), Amount: 1}}
	}
	switch p := r.IntN(10); {
	case p < 5:
		paid := created.Add(time.Duration(1+r.IntN(3000)) * time.Second)
		c.Status, c.PaidAt, c.UpdatedAt = api.StatusCompleted, &paid, paid
		c.PayerName, c.PayerDocument, c.E2EID = text(), []string{"", "123.456.789-09", "12345678000199", "***.456.789-**"}[r.IntN(4)], "E1823612020260101"+text()
		switch r.IntN(6) {
		case 0:
			fee := api.Money(r.Int64N(200))
			c.Fee = &fee
		case 1:
			c.Refunded = c.Amount / 2
		case 2:
			c.Block = &state.Block{ID: "blk", Amount: c.Amount, Status: api.BlockApproved, CreatedAt: paid}
		case 3:
			c.Block = &state.Block{ID: "blk", Status: "awaiting_response", CreatedAt: paid}
		}
	case p < 7:
		c.Status, c.Expired, c.UpdatedAt = api.StatusCancelled, true, c.ExpiresAt
	case p < 8:
		c.Status, c.FailureReason, c.UpdatedAt = api.StatusFailed, text(), created.Add(time.Minute)
		if r.IntN(2) == 0 {
			c.BlockedDeposit = &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundStatus([]string{"pending", "confirmed", "ERROR"}[r.IntN(3)])}}
		}
	case p < 9:
		c.Status = api.StatusCancelled
	default:
		c.Status = api.TxStatus([]string{"pending", "weird_status"}[r.IntN(2)])
	}
	return c
}

// historyStore is a store holding n generated charges, and refunds asked from the dashboard
// for some of the paid ones.
func historyStore(t *testing.T, n int) *state.Store {
	t.Helper()
	cs := make([]state.Charge, n)
	for i := range cs {
		cs[i] = historyCharge(i)
	}
	s := seededStore(t, cs)
	for i, c := range cs {
		if c.Status != api.StatusCompleted || i%7 != 0 {
			continue
		}
		st := []state.RefundState{state.RefundCompleted, state.RefundRefused, state.RefundPending}[i%3]
		if _, err := s.PutRefund(context.Background(), state.Refund{ChargeID: c.ID, Amount: c.Amount, State: st, RequestedAt: day}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestExportHistoryGolden exports a generated history of 400 varied charges, in both formats,
// byte for byte as the export wrote it before the charges' compact documents and the faster
// cells of issue 27 (testdata/history-*.csv were written by that code, main at 74b6572, with
// this test; -update rewrites them).
func TestExportHistoryGolden(t *testing.T) {
	s := historyStore(t, 400)
	for _, f := range []Format{CSV, BR} {
		var b bytes.Buffer
		n, err := Write(context.Background(), &b, s, Options{Format: f, Location: brt, PixFee: 99, HasPixFee: true, PageSize: 37})
		if err != nil {
			t.Fatal(err)
		}
		if n != 400 {
			t.Errorf("%s: wrote %d charges, want 400", f, n)
		}
		golden(t, "history-"+string(f)+".csv", b.Bytes())
	}
}

// Amount writes what Money.Decimal writes (a decimal comma for BR), at the edges too.
func TestAmountIsDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ms := []api.Money{0, 1, -1, 9, 10, 99, 100, -100, 101, 12345, -12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 10_000 {
		ms = append(ms, api.Money(r.Int64()>>r.IntN(64)), -api.Money(r.Int64N(1_000_000)))
	}
	for _, m := range ms {
		if got, want := Amount(m, CSV), m.Decimal(); got != want {
			t.Fatalf("Amount(%d, CSV) = %q, want %q", m, got, want)
		}
		if got, want := Amount(m, BR), strings.Replace(m.Decimal(), ".", ",", 1); got != want {
			t.Fatalf("Amount(%d, BR) = %q, want %q", m, got, want)
		}
	}
}

// genKeyset is a keyset source of n charges made as they are read (historyCharge), newest
// first at positions n..1: no store holds them, so what an export keeps is all the memory
// its charges take.
type genKeyset struct{ n int64 }

func (g genKeyset) ChargeWindow(context.Context, state.ChargeQuery, int, int) (state.ChargePage, error) {
	return state.ChargePage{}, fmt.Errorf("genKeyset reads by keyset only")
}

func (g genKeyset) ChargesBefore(_ context.Context, _ state.ChargeQuery, before int64, limit int) ([]state.Charge, int64, error) {
	var cs []state.Charge
	pos := min(before-1, g.n)
	for ; pos >= 1 && len(cs) < limit; pos-- {
		c := historyCharge(int(pos))
		c.Description += strings.Repeat("x", 500) // a charge of about 1 KB
		cs = append(cs, c)
	}
	return cs, pos + 1, nil
}

// peakHeap runs f and returns the most heap in use while it ran, sampled every millisecond.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}

// An export's memory does not grow with the history: ten times the charges (about 1 KB each)
// take no more heap than a few batches more.
func TestExportMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("exports 55,000 generated charges")
	}
	export := func(n int64) uint64 {
		return peakHeap(func() {
			got, err := Write(context.Background(), io.Discard, genKeyset{n}, Options{Format: BR, Location: brt})
			if err != nil || int64(got) != n {
				t.Errorf("exported %d charges of %d: %v", got, n, err)
			}
		})
	}
	small, large := export(5_000), export(50_000)
	t.Logf("peak heap: %.1f MB for 5,000 charges, %.1f MB for 50,000", float64(small)/(1<<20), float64(large)/(1<<20))
	// Holding the 45,000 more charges would take over 45 MB.
	if large > small+16<<20 {
		t.Errorf("peak heap %.1f MB for 50,000 charges against %.1f MB for 5,000: the export holds the history", float64(large)/(1<<20), float64(small)/(1<<20))
	}
}
