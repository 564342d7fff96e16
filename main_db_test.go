package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/statetest"
)

// TestDamagedDatabaseRefusedAndRepaired: with one page of charges_paid damaged, pixdash close and
// export refuse to report figures (naming the file and the repair command) instead of printing
// fewer payments; pixdash db repair mends it and close reports the whole day again. A database
// file of zero bytes is reported, not taken for a new profile (issue 22 item 12).
func TestDamagedDatabaseRefusedAndRepaired(t *testing.T) {
	cfg, stateDir := isolatedDirs(t)
	body := "default_profile = \"loja\"\n[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n" +
		"[profiles.vazia]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(stateDir, "pixdash")
	ctx := context.Background()
	s, err := state.Open(ctx, dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	var gross api.Money
	for i := range 36 {
		at := start.Add(time.Duration(i) * time.Second)
		amount := api.Money(9000 + 101*i)
		gross += amount
		if _, err := s.UpsertCharge(ctx, state.Charge{ID: fmt.Sprintf("ch-%02d", i), Wallet: "principal", Amount: amount, Status: api.StatusCompleted, CreatedAt: at, PaidAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	file := s.Path()
	_ = s.Close()
	closeOut := func() (int, string, string) {
		var out, errb strings.Builder
		code := run([]string{"close", "--offline", "--lang", "en"}, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, whole, errText := closeOut()
	if code != 0 || !strings.Contains(whole, api.Money(gross).BRL()) {
		t.Fatalf("close before the damage: exit %d\n%s%s", code, whole, errText)
	}

	statetest.EmptyIndexPage(t, file, "charges_paid")
	code, out, errText := closeOut()
	if code != 1 || out != "" {
		t.Fatalf("close of a damaged database: exit %d, printed:\n%s", code, out)
	}
	for _, want := range []string{file, "damaged", "charges_paid", "pixdash db repair --profile loja"} {
		if !strings.Contains(errText, want) {
			t.Errorf("close's message lacks %q:\n%s", want, errText)
		}
	}
	var eout, eerr strings.Builder
	day := now.Format("2006-01-02")
	if code := run([]string{"export", "--from", day, "--to", day, "--output", "-"}, &eout, &eerr); code != 1 || eout.String() != "" ||
		!strings.Contains(eerr.String(), "pixdash db repair --profile loja") {
		t.Errorf("export of a damaged database: exit %d\n%s%s", code, eout.String(), eerr.String())
	}
	var cout, cerr strings.Builder
	if code := run([]string{"db", "check"}, &cout, &cerr); code != 1 || !strings.Contains(cerr.String(), "charges_paid") {
		t.Errorf("db check: exit %d\n%s%s", code, cout.String(), cerr.String())
	}

	var rout, rerr strings.Builder
	if code := run([]string{"db", "repair"}, &rout, &rerr); code != 0 {
		t.Fatalf("db repair: exit %d\n%s%s", code, rout.String(), rerr.String())
	}
	for _, want := range []string{file + " was damaged", "charges_paid", "before-repair-", "Repaired"} {
		if !strings.Contains(rout.String(), want) {
			t.Errorf("repair's report lacks %q:\n%s", want, rout.String())
		}
	}
	// The close says when it was made: a minute may turn between the two.
	madeAt := regexp.MustCompile(`(?m)^Made at \d\d:\d\d$`)
	if code, out, errText := closeOut(); code != 0 || madeAt.ReplaceAllString(out, "") != madeAt.ReplaceAllString(whole, "") {
		t.Errorf("close after the repair: exit %d\n%s%s\nwant\n%s", code, out, errText, whole)
	}
	rout.Reset()
	if code := run([]string{"db", "repair"}, &rout, &rerr); code != 0 || !strings.Contains(rout.String(), "no damage found") {
		t.Errorf("second repair: exit %d: %s", code, rout.String())
	}

	// A truncated database: reported, and left as it is.
	empty := filepath.Join(dir, state.DBFileName("vazia"))
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var zout, zerr strings.Builder
	if code := run([]string{"close", "--offline", "--profile", "vazia"}, &zout, &zerr); code != 1 ||
		!strings.Contains(zerr.String(), empty) || !strings.Contains(zerr.String(), "empty (0 bytes)") {
		t.Errorf("close of an empty database: exit %d\n%s%s", code, zout.String(), zerr.String())
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty database was changed: %v", err)
	}
}
