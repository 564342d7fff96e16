package state

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pixdash/api"
)

// searchCharges are the charges TestSearchCharges looks for, across three wallets.
func searchCharges() []Charge {
	day := func(h, m int) time.Time { return time.Date(2026, 11, 23, h, m, 0, 0, time.UTC) }
	paid := func(h, m int) *time.Time { t := day(h, m); return &t }
	return []Charge{
		{ID: "c-joao", Wallet: "principal", Amount: 4990, Status: api.StatusCompleted, CreatedAt: day(14, 5), PaidAt: paid(14, 7),
			PayerName: "João da Silva", E2EID: "E99990000202611231407abcDEF12345"},
		{ID: "c-maria", Wallet: "loja-sul", Amount: 4990, Status: api.StatusPending, CreatedAt: day(13, 50),
			PayerName: "MARIA Souza", E2EID: "E11110000202611231351xyz"},
		{ID: "c-late", Wallet: "loja-norte", Amount: 123456, Status: api.StatusCompleted, CreatedAt: day(13, 0), PaidAt: paid(14, 20),
			PayerName: "Ana", E2EID: "E22220000"},
		{ID: "c-other", Wallet: "loja-norte", Amount: 49900, Status: api.StatusPending, CreatedAt: day(9, 0),
			Description: "mentions E99990000202611231407abcDEF12345 and r$ 49,90 and joão in its text"},
		{ID: "c-cents", Wallet: "principal", Amount: 1, Status: api.StatusPending, CreatedAt: day(15, 0), PayerName: "Li"},
	}
}

func TestSearchCharges(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	for _, c := range searchCharges() {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	tm := func(h, m int) time.Time { return time.Date(2026, 11, 23, h, m, 0, 0, time.UTC) }
	cases := []struct {
		name string
		q    ChargeSearch
		want []string
	}{
		{"e2e exact", ChargeSearch{Kind: SearchE2E, E2E: "E99990000202611231407abcDEF12345"}, []string{"c-joao"}},
		{"e2e case and spaces", ChargeSearch{Kind: SearchE2E, E2E: "e9999 0000 2026 1123 1407 ABCdef 12345"}, []string{"c-joao"}},
		{"e2e prefix is not a match", ChargeSearch{Kind: SearchE2E, E2E: "E99990000"}, nil},
		{"e2e short", ChargeSearch{Kind: SearchE2E, E2E: "E2"}, nil},
		{"amount across wallets", ChargeSearch{Kind: SearchAmount, Amount: 4990}, []string{"c-joao", "c-maria"}},
		{"amount exact centavos", ChargeSearch{Kind: SearchAmount, Amount: 499}, nil},
		{"amount grouped", ChargeSearch{Kind: SearchAmount, Amount: 123456}, []string{"c-late"}},
		{"amount one centavo", ChargeSearch{Kind: SearchAmount, Amount: 1}, []string{"c-cents"}},
		{"payer substring any case", ChargeSearch{Kind: SearchPayer, Payer: "souza"}, []string{"c-maria"}},
		{"payer accented", ChargeSearch{Kind: SearchPayer, Payer: "JOÃO"}, []string{"c-joao"}},
		{"payer short", ChargeSearch{Kind: SearchPayer, Payer: "li"}, []string{"c-cents"}},
		{"payer not in other fields", ChargeSearch{Kind: SearchPayer, Payer: "mentions"}, nil},
		{"window by creation or payment", ChargeSearch{Kind: SearchWindow, From: tm(14, 0), To: tm(14, 30)}, []string{"c-joao", "c-late"}},
		{"window end exclusive", ChargeSearch{Kind: SearchWindow, From: tm(13, 50), To: tm(14, 5)}, []string{"c-maria"}},
		{"window empty", ChargeSearch{Kind: SearchWindow, From: tm(16, 0), To: tm(17, 0)}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, capped, err := s.SearchCharges(ctx, tc.q, 0)
			if err != nil {
				t.Fatal(err)
			}
			ids := chargeIDs(got)
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) || capped {
				t.Fatalf("got %v (capped %v), want %v", ids, capped, tc.want)
			}
		})
	}
}

func TestSearchChargesRefusesEmpty(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	for _, q := range []ChargeSearch{{}, {Kind: SearchE2E, E2E: "  "}, {Kind: SearchAmount}, {Kind: SearchPayer, Payer: " "},
		{Kind: SearchWindow, From: at(5), To: at(5)}} {
		if _, _, err := s.SearchCharges(ctx, q, 0); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}

// A search returns at most its limit, newest first, and says it was capped; the full-text
// path (thousands of charges) finds what the row-by-row one does.
func TestSearchChargesCapped(t *testing.T) {
	s := bigStoreT(t)
	got, capped, err := s.SearchCharges(ctx, ChargeSearch{Kind: SearchAmount, Amount: 700}, 10)
	if err != nil || len(got) != 10 || !capped {
		t.Fatalf("got %d (capped %v, %v), want 10 capped", len(got), capped, err)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].CreatedAt.Before(got[i-1].CreatedAt) {
			t.Fatalf("not newest first: %v then %v", got[i-1].CreatedAt, got[i].CreatedAt)
		}
	}
	want := fmt.Sprintf("fill-%05d", (fillerCount-1)/50*50)
	if got[0].ID != want || got[0].Amount != 700 {
		t.Fatalf("first %s %v, want %s", got[0].ID, got[0].Amount, want)
	}
	all, capped, err := s.SearchCharges(ctx, ChargeSearch{Kind: SearchE2E, E2E: "e2e999"}, 0)
	if err != nil || capped || len(all) != 1 || all[0].ID != "7f3a-UUID" {
		t.Fatalf("e2e in the big store: %v %v %v", chargeIDs(all), capped, err)
	}
}
