package state

import (
	"path"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Pão de Queijo":     "pao de queijo",
		"JOÃO":              "joao",
		"Açaí":              "acai",
		"ÁÉÍÓÚ áéíóú âêô ü": "aeiou aeiou aeo u",
		"pa\u0303o":         "pao", // decomposed: the combining tilde is dropped
		"Straße Ærø Œuvre":  "strasse aero oeuvre",
		"ÇÑ":                "cn",
		"r$ 1.234,56\x1f":   "r$ 1.234,56\x1f",
		"already lower":     "already lower",
		"ΣΊΣΥΦΟΣ":           "σίσυφοσ", // other scripts: lower case only
		"":                  "",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// The charges filter (/) matches without accents or case, on both paths (row by row and the
// trigram index): "pao" finds "Pão de Queijo", "joao" finds "JOÃO"; accented text still works.
func TestChargeFilterIgnoresAccents(t *testing.T) {
	small := OpenMemory(WithLocation(time.UTC))
	defer small.Close()
	for _, c := range probeCharges() {
		if _, err := small.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	big := bigStoreT(t)
	for _, q := range []string{"pao", "pao de q", "PAO DE QUEIJO", "pão", "joao", "Joao", "JOÃO", "pa\u0303o"} {
		for name, s := range map[string]*Store{"row by row": small, "full text": big} {
			p := windowT(t, s, ChargeQuery{Text: q}, 0, 20)
			if got := strings.Join(chargeIDs(p.Charges), " "); got != "7f3a-UUID" || p.Total != 1 {
				t.Errorf("%s: %q found %q (total %d), want 7f3a-UUID", name, q, got, p.Total)
			}
		}
	}
	// Thousands of fillers say "Açaí": "acai" and "açaí" select the same ones, through the index.
	a := windowT(t, big, ChargeQuery{Text: "acai"}, 0, 5)
	b := windowT(t, big, ChargeQuery{Text: "AÇAÍ"}, 0, 5)
	if a.Total == 0 || a.Total != b.Total || strings.Join(chargeIDs(a.Charges), " ") != strings.Join(chargeIDs(b.Charges), " ") {
		t.Errorf("acai: %d %v; AÇAÍ: %d %v", a.Total, chargeIDs(a.Charges), b.Total, chargeIDs(b.Charges))
	}
}

// The search (S) by payer name ignores accents and case too.
func TestSearchPayerIgnoresAccents(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	for _, c := range searchCharges() {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"joao", "JOAO DA", "João", "jo"} {
		got, _, err := s.SearchCharges(ctx, ChargeSearch{Kind: SearchPayer, Payer: p}, 0)
		if err != nil || strings.Join(chargeIDs(got), " ") != "c-joao" {
			t.Errorf("payer %q: %v %v, want c-joao", p, chargeIDs(got), err)
		}
	}
}

// Migration 0008 folds the haystacks written before it, and the trigram index follows.
func TestMigrationFoldsOldHaystacks(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(ctx, dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range probeCharges() {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	at := -1
	for i, f := range migrationFiles() {
		if strings.HasPrefix(path.Base(f), "0008_") {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no migration 0008")
	}
	// As the build before 0008 wrote it: lower case, accents kept.
	if _, err := s.wdb.Exec(`UPDATE charges SET hay = 'pão de queijo' || char(31) || 'joão' WHERE id = '7f3a-UUID'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec("PRAGMA user_version = " + strconv.Itoa(at)); err != nil {
		t.Fatal(err)
	}
	if p := windowT(t, s, ChargeQuery{Text: "pao"}, 0, 5); len(p.Charges) != 0 {
		t.Fatalf("the unfolded row already matches: %v", chargeIDs(p.Charges))
	}
	_ = s.Close()
	if s, err = Open(ctx, dir, "p"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var hay string
	var n, v int
	if err := s.rdb.QueryRow(`SELECT hay FROM charges WHERE id = '7f3a-UUID'`).Scan(&hay); err != nil || hay != "pao de queijo\x1fjoao" {
		t.Fatalf("hay after the migration = %q, %v", hay, err)
	}
	if err := s.rdb.QueryRow(`SELECT count(*) FROM charges_fts WHERE charges_fts MATCH '"pao" AND "o d"'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the trigram index finds %d rows for pao and o d (%v), want 1", n, err)
	}
	if err := s.rdb.QueryRow(`SELECT count(*) FROM charges_fts WHERE charges_fts MATCH '"pão"'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the trigram index still holds the accented text (%d, %v)", n, err)
	}
	if err := s.rdb.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Errorf("user_version %d (%v), want %d", v, err, SchemaVersion())
	}
	if p := windowT(t, s, ChargeQuery{Text: "joao"}, 0, 5); strings.Join(chargeIDs(p.Charges), " ") != "7f3a-UUID" {
		t.Errorf("joao after the migration: %v", chargeIDs(p.Charges))
	}
}

// FuzzFold: folding is idempotent, keeps the field separator and leaves no ASCII capital, so a
// folded haystack and a folded filter text compare as the filter means.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"Pão de Queijo", "JOÃO", "pa\u0303o", "Straße", "İstanbul", "ǅ", "\xff", "a\x1fB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Fold(s)
		if twice := Fold(once); twice != once {
			t.Fatalf("Fold(%q) = %q, Fold of that = %q", s, once, twice)
		}
		if strings.Count(once, "\x1f") != strings.Count(s, "\x1f") || strings.ContainsAny(once, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Fatalf("Fold(%q) = %q", s, once)
		}
	})
}
