package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// A payment whose fee the service did not report, with no estimate to use: the close says the
// fees and the nets are unknown (in both languages and in the CSV), never R$ 0,00.
func TestUnknownFeeIsUnknown(t *testing.T) {
	ctx := context.Background()
	loc := time.FixedZone("BRT", -3*3600)
	now := time.Date(2026, 11, 24, 18, 0, 0, 0, loc)
	s := state.OpenMemory(state.WithClock(func() time.Time { return now }), state.WithLocation(loc))
	t.Cleanup(func() { _ = s.Close() })
	paid := now.Add(-time.Hour)
	if _, err := s.UpsertCharge(ctx, state.Charge{ID: "c1", Wallet: "principal", Amount: 16350, Status: api.StatusCompleted,
		CreatedAt: paid.Add(-time.Minute), ExpiresAt: paid.Add(time.Hour), PaidAt: &paid, UpdatedAt: paid}); err != nil {
		t.Fatal(err)
	}
	fee, ok := s.FeeEstimate(0, false) // no pix_fee, nothing learned
	if ok {
		t.Fatalf("FeeEstimate = %d, true with nothing known", fee)
	}
	r, err := s.CloseDay(ctx, state.CloseQuery{Day: state.Days(now, 1, loc), Fee: fee, HasFee: ok})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, fees, net, note string }{
		{LangEN, "Fees", "unknown", "1 of 1 with no fee reported and no estimate"},
		{LangPT, "Tarifas", "desconhecido", "1 de 1 sem tarifa informada nem estimativa"},
	} {
		text := Text(r, Options{Lang: tc.lang, Loc: loc})
		var feeLine, netLines int
		for _, l := range strings.Split(text, "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == tc.fees && f[len(f)-1] == tc.net {
				feeLine++
			}
			if strings.HasSuffix(l, " "+tc.net) {
				netLines++
			}
		}
		if feeLine != 2 || netLines != 6 || !strings.Contains(text, tc.note) { // the wallet's and the total's
			t.Errorf("%s: fees lines %d, unknown figures %d, note %v:\n%s", tc.lang, feeLine, netLines, strings.Contains(text, tc.note), text)
		}
	}
	var b bytes.Buffer
	if err := CSV(&b, r, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head := strings.Split(lines[0], ",")
	for _, l := range lines[1:] {
		cells := strings.Split(l, ",")
		for i, h := range head {
			if (h == "fees" || h == "net" || h == "net_after_refunds") && cells[i] != "" {
				t.Errorf("CSV %s = %q, want empty (unknown): %s", h, cells[i], l)
			}
		}
	}
}
