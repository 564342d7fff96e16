package state

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pixdash/api"
)

// docTexts are texts a random charge draws from: empty, plain, accented, long, with control
// characters, invalid UTF-8 and NUL.
var docTexts = []string{"", "a", "Pedido 42", "Pão de queijo", "João da Silva", "=1+1", "linha 1\nlinha 2", "\x00nul",
	"\xff\xfeinvalid", strings.Repeat("longo ", 60), "00020101021226880014br.gov.bcb.pix2566qrcodes", "E18236120202611280000A1b2C3d4E5f"}

// randomTime is a time as a JSON document reads it back (its instant to the nanosecond and
// its offset, in UTC, the local zone or a fixed zone), or the zero time.
func randomTime(r *rand.Rand) time.Time {
	if r.IntN(8) == 0 {
		return time.Time{}
	}
	t := time.Unix(r.Int64N(5_000_000_000)-1_000_000_000, 0)
	switch r.IntN(3) {
	case 0:
		t = t.Truncate(time.Millisecond).Add(time.Duration(r.IntN(1000)) * time.Millisecond)
	case 1:
		t = t.Add(time.Duration(r.Int64N(int64(time.Second))))
	}
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", -3*3600), time.FixedZone("", 5*3600+30*60), time.FixedZone("BRT", -3*3600)}
	t = t.In(zones[r.IntN(len(zones))])
	js, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	var back time.Time
	if err := json.Unmarshal(js, &back); err != nil {
		panic(err)
	}
	return back
}

// docCharge is a charge with each field set or not, at random: every field of Charge the
// document holds or a column does.
func docCharge(r *rand.Rand, i int) Charge {
	text := func() string { return docTexts[r.IntN(len(docTexts))] }
	// The nested values (splits, blocks) are JSON inside the document, as in the former
	// documents, which turn invalid UTF-8 into U+FFFD: they draw valid texts.
	valid := func() string {
		for {
			if t := text(); utf8.ValidString(t) {
				return t
			}
		}
	}
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	money := func() api.Money { return api.Money(r.Int64N(2_000_000) - r.Int64N(1000)*int64(r.IntN(2))) }
	tptr := func() *time.Time {
		if r.IntN(2) == 0 {
			return nil
		}
		t := randomTime(r)
		return &t
	}
	mptr := func() *api.Money {
		if r.IntN(2) == 0 {
			return nil
		}
		m := money()
		return &m
	}
	split := func() []api.SplitItem {
		var legs []api.SplitItem
		for range r.IntN(3) {
			legs = append(legs, api.SplitItem{SubAccount: valid(), Amount: money()})
		}
		return legs
	}
	c := Charge{
		ID:                fmt.Sprintf("ch-%d-%s", i, pick("", "x", "ç")),
		IdempotencyKey:    pick("", "pixdash-0123456789abcdef0123456789abcdef", api.NewIdempotencyKey(), "3f6c1d2e-4b5a-4c3d-8e9f-0a1b2c3d4e5f", "3F6C1D2E-4B5A-4C3D-8E9F-0A1B2C3D4E5F", "pixdash-0123", text()),
		Wallet:            pick("principal", "loja-a", "", "sub com espaço"),
		Amount:            money(),
		Description:       text(),
		ExternalReference: text(),
		Status:            api.TxStatus(pick("", "pending", "completed", "failed", "cancelled", "refunded", "weird")),
		Expired:           r.IntN(2) == 0,
		CreatedAt:         randomTime(r),
		ExpiresAt:         randomTime(r),
		PaidAt:            tptr(),
		PixCopyPaste:      text(),
		E2EID:             text(),
		PayerName:         text(),
		PayerDocument:     pick("", "123.456.789-09", "***.456.789-**"),
		FailureReason:     text(),
		SplitRequested:    split(),
		SplitDistributed:  split(),
		HasDistributed:    r.IntN(2) == 0,
		Fee:               mptr(),
		FeeReported:       mptr(),
		SplitReported:     split(),
		UpdatedAt:         randomTime(r),
		Source:            pick("", SourceCreated, SourceEvent, SourceLookup, SourceHub, "other"),
		Counter:           pick("", "caixa-2"),
		Refunded:          money(),
		RefundedAt:        tptr(),
		Missing:           r.IntN(5) - 1,
		MissingSince:      randomTime(r),
		NotFound:          r.IntN(2) == 0,
		Mismatch:          text(),
	}
	if r.IntN(3) == 0 {
		c.BlockedDeposit = &api.BlockedDeposit{Reason: valid()}
		if r.IntN(2) == 0 {
			e2e := valid()
			c.BlockedDeposit.Refund = &api.Refund{Status: api.RefundStatus(pick("pending", "confirmed")), E2EID: &e2e, SettledAt: tptr()}
		}
	}
	if r.IntN(3) == 0 {
		c.Block = &Block{ID: valid(), Amount: money(), Status: api.BlockStatus(pick("awaiting_response", "approved")), CreatedAt: randomTime(r), ResolvedAt: tptr()}
	}
	return c
}

// rowOf is the row putChargeTx writes for c: its columns from c, created_at when it was first
// seen (firstSeen) for a charge whose creation time is unknown, and the document.
func rowOf(c *Charge, firstSeen time.Time) chargeRow {
	r := chargeRow{id: c.ID, wallet: c.Wallet, ref: c.ExternalReference, amount: int64(c.Amount),
		created: firstSeen.UnixMilli(), updated: c.UpdatedAt.UnixMilli(), owned: chargeDoc(c)}
	if !c.CreatedAt.IsZero() {
		r.created = c.CreatedAt.UnixMilli()
	}
	if c.PaidAt != nil {
		r.paid.Int64, r.paid.Valid = c.PaidAt.UnixMilli(), true
	}
	if c.Fee != nil {
		r.fee.Int64, r.fee.Valid = int64(*c.Fee), true
	}
	return r
}

// chargeDiff names the fields in which got and want differ ("" when none).
func chargeDiff(got, want Charge) string {
	var out []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			out = append(out, fmt.Sprintf("%s: got %#v, want %#v", g.Type().Field(i).Name, g.Field(i).Interface(), w.Field(i).Interface()))
		}
	}
	return strings.Join(out, "\n")
}

// checkDocRoundTrip checks that c reads back from its row exactly, every field.
func checkDocRoundTrip(t *testing.T, c Charge) {
	t.Helper()
	r := rowOf(&c, time.UnixMilli(1_700_000_000_123))
	var got Charge
	if err := r.charge(&got); err != nil {
		t.Fatalf("decoding %+v: %v", c, err)
	}
	if d := chargeDiff(got, c); d != "" {
		t.Fatalf("charge %s read back differs:\n%s", c.ID, d)
	}
}

// Every field of a charge reads back from its row (columns and document) exactly as it was
// written, for 20,000 random charges.
func TestChargeDocRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 12))
	for i := range 20_000 {
		checkDocRoundTrip(t, docCharge(r, i))
	}
}

// FuzzChargeDoc: decode(encode(c)) == c for charges drawn from the fuzzer's seed; and any
// bytes as a document either decode or fail, never panic.
func FuzzChargeDoc(f *testing.F) {
	for i := range 8 {
		f.Add(uint64(i), []byte{docV1, 0x0a, 0x01, 'x'})
	}
	f.Add(uint64(99), []byte(`{"id":"x","status":"completed"}`))
	f.Fuzz(func(t *testing.T, seed uint64, doc []byte) {
		checkDocRoundTrip(t, docCharge(rand.New(rand.NewPCG(seed, seed>>7)), int(seed%1000)))
		r := chargeRow{id: "x", owned: doc}
		var c Charge
		_ = r.charge(&c)
	})
}

// A new field of Charge must be written in the document (chargedoc.go) and drawn by
// docCharge: this count is the reminder.
func TestChargeDocCoversEveryField(t *testing.T) {
	if n := reflect.TypeFor[Charge]().NumField(); n != 33 {
		t.Errorf("Charge has %d fields, the document and docCharge know 33: add the new one to both", n)
	}
	// docCharge sets every field in some charge.
	r := rand.New(rand.NewPCG(1, 1))
	set := make([]bool, reflect.TypeFor[Charge]().NumField())
	for i := range 200 {
		v := reflect.ValueOf(docCharge(r, i))
		for j := range set {
			set[j] = set[j] || !v.Field(j).IsZero()
		}
	}
	for j, ok := range set {
		if !ok {
			t.Errorf("docCharge never sets %s", reflect.TypeFor[Charge]().Field(j).Name)
		}
	}
}

// A document written before schema 12 (the whole charge as JSON) reads as it always did, the
// columns ignored, but for the PIX code of a charge that can no longer be paid.
func TestChargeDocReadsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		c := docCharge(r, i)
		js, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		var want Charge
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		want.dropSpentCode()
		row := chargeRow{id: "other", wallet: "other", amount: 1, ref: "other", created: 5, updated: 6, owned: js}
		row.paid.Valid, row.fee.Valid = true, true
		var got Charge
		if err := row.charge(&got); err != nil {
			t.Fatal(err)
		}
		if d := chargeDiff(got, want); d != "" {
			t.Fatalf("JSON document of %s read back differs:\n%s", c.ID, d)
		}
	}
	var got Charge
	row := chargeRow{id: "x", owned: []byte("not a charge")}
	if err := row.charge(&got); err == nil {
		t.Error("an unreadable document read without an error")
	}
}

// The stored charge is what the store gives back, every field, read one by one or in a list,
// whatever the charge holds (random charges through UpsertCharge), and a final charge's PIX
// code is not kept.
func TestStoreChargeRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	r := rand.New(rand.NewPCG(5, 6))
	want := map[string]Charge{}
	for i := range 300 {
		c := docCharge(r, i)
		got, err := s.UpsertCharge(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if c.Wallet == "" {
			c.Wallet = api.WalletPrincipal
		}
		if c.Status == api.StatusCompleted || c.Status == api.StatusFailed || c.Status == api.StatusCancelled {
			c.PixCopyPaste = ""
		}
		if d := chargeDiff(got, c); d != "" {
			t.Fatalf("UpsertCharge(%s) returned a different charge:\n%s", c.ID, d)
		}
		want[c.ID] = c
	}
	for id, c := range want {
		got, ok, err := s.Charge(ctx, id)
		if err != nil || !ok {
			t.Fatalf("Charge(%s): %v %v", id, ok, err)
		}
		if d := chargeDiff(got, c); d != "" {
			t.Fatalf("Charge(%s) read back differs:\n%s", id, d)
		}
	}
	cs, _, err := s.ChargesBefore(ctx, ChargeQuery{}, 1<<62, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(want) {
		t.Fatalf("ChargesBefore read %d charges, want %d", len(cs), len(want))
	}
	for _, got := range cs {
		if d := chargeDiff(got, want[got.ID]); d != "" {
			t.Fatalf("ChargesBefore's %s differs:\n%s", got.ID, d)
		}
	}
	// Nothing changed: writing each again changes nothing.
	v0, _ := s.Versions()
	for _, c := range want {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if v1, _ := s.Versions(); v1 != v0 {
		t.Errorf("writing the same charges again changed the store (version %d -> %d)", v0, v1)
	}
}

// A charge's row no longer repeats its columns in its document: the generated history's
// documents (as genBuild writes them) take at most 130 bytes a charge on average (their JSON
// took 650 with the PIX code, 461 without).
func TestChargeDocSize(t *testing.T) {
	const n = 5000
	var bin, js int
	for i := range n {
		c := genCharge(i, n)
		c.dropSpentCode()
		bin += len(chargeDoc(&c))
		j, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		js += len(j)
	}
	t.Logf("documents: %d B a charge (JSON %d B)", bin/n, js/n)
	if bin/n > 130 {
		t.Errorf("documents take %d B a charge (JSON %d B), want at most 130", bin/n, js/n)
	}
}
