package export

import (
	"bytes"
	"context"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// A payment whose money went back is exported as such, from confirmed facts only: a refund
// made outside pixdash (refund_completed read back, no record of pixdash's own), a MED block
// approved (returned to the payer) and one still open (held). An unconfirmed refund_completed
// changes nothing.
func TestExportShowsWhatHappenedToTheMoney(t *testing.T) {
	ctx := context.Background()
	paid := func(id string, amount api.Money) state.Charge {
		return state.Charge{ID: id, Wallet: "principal", Amount: amount, Status: api.StatusCompleted,
			CreatedAt: at(time.Duration(len(id)) * time.Minute), ExpiresAt: at(time.Hour), PaidAt: ptr(at(2 * time.Hour))}
	}
	s := seededStore(t, []state.Charge{paid("refunded", 16350), paid("medret", 5000), paid("medopen", 7000), paid("unconfirmed", 900)})
	event := func(id, charge, amount string) {
		t.Helper()
		e, err := api.DecodeEvent([]byte(`{"event":"refund_completed","eventId":"` + id + `","createdAt":"2026-11-20T12:00:00-03:00","data":{"id":"ref-` + id + `","transactionId":"` + charge + `","amount":` + amount + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	event("evt-1", "refunded", "35.50")
	if err := s.SetEventVerdict(ctx, "evt-1", state.VerdictConfirmed, ""); err != nil { // the refund line read back
		t.Fatal(err)
	}
	event("evt-2", "unconfirmed", "9.00")
	if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{
		{ID: "b1", TransactionID: "medret", Amount: 5000, Status: api.BlockApproved, CreatedAt: at(3 * time.Hour)},
		{ID: "b2", TransactionID: "medopen", Amount: 7000, Status: api.BlockAwaitingResponse, CreatedAt: at(3 * time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{BR, CSV} {
		var b bytes.Buffer
		if _, err := Write(ctx, &b, s, Options{Format: f, Location: brt}); err != nil {
			t.Fatal(err)
		}
		recs := read(t, b.Bytes(), f)
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		label, rs, ra := col["status_label"], col["refund_status"], col["refund_amount"]
		if f == BR {
			label, rs, ra = col["situacao"], col["estorno_status"], col["estorno_valor"]
		}
		got := map[string][3]string{}
		for _, rec := range recs[1:] {
			got[rec[0]] = [3]string{rec[label], rec[rs], rec[ra]}
		}
		want := map[string][3]string{
			"refunded":    {"refunded", "completed", "35.50"},
			"medret":      {"returned", "med_returned", "50.00"},
			"medopen":     {"blocked", "med_blocked", "70.00"},
			"unconfirmed": {"paid", "", ""},
		}
		if f == BR {
			want = map[string][3]string{
				"refunded":    {"estornada", "completed", "35,50"},
				"medret":      {"devolvida (MED)", "med_returned", "50,00"},
				"medopen":     {"bloqueada (MED)", "med_blocked", "70,00"},
				"unconfirmed": {"paga", "", ""},
			}
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s %s: %q, want %q", f, id, got[id], w)
			}
		}
	}
}
