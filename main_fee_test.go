package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/config"
	"pixdash/state"
	"pixdash/ui"
)

// The dashboard's close (C) and `pixdash close` show the same fees for the same store and
// profile: one rule (workflow.FeeEstimate) decides the estimate for the payments the service
// reported no fee for, and a fee the service did report (here a percentage of the amount)
// counts as reported in both. Once with a fixed pix_fee in the profile, once with none, where
// the fee learned from the service is the estimate.
func TestDashboardCloseAndCloseCommandShowTheSameFees(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pixFee  string    // the profile's pix_fee line ("" for none)
		learned api.Money // a fee learned from the service (0 for none)
		want    []string  // what both must show
	}{
		// 2% of R$ 163,50 reported (R$ 3,27) + R$ 0,99 estimated for the other payment.
		{name: "fixed pix_fee", pixFee: `pix_fee = "0.99"`, learned: 150, want: []string{"Fees (estimate)", "R$ 4,26", "1 of 2 at the estimated fee (R$ 0,99)"}},
		// No pix_fee: the learned R$ 1,50 is the estimate.
		{name: "learned fee", learned: 150, want: []string{"Fees (estimate)", "R$ 4,77", "1 of 2 at the estimated fee (R$ 1,50)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgPath, stateDir := isolatedDirs(t)
			t.Setenv("PIXDASH_TEST_FEE_SECRET", "cs-x")
			setLocale(t, "", "", "en_US.UTF-8")
			body := "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_FEE_SECRET\"\n" + tc.pixFee + "\n"
			if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
			if err != nil {
				t.Fatal(err)
			}
			paidAt := time.Now()                   // today, even a minute after midnight
			reported := api.Money(16350 * 2 / 100) // the service's fee: 2% of the amount
			for _, c := range []state.Charge{
				{ID: "pct", Wallet: "principal", Amount: 16350, Fee: &reported, Status: api.StatusCompleted, CreatedAt: paidAt, PaidAt: &paidAt},
				{ID: "est", Wallet: "principal", Amount: 5000, Status: api.StatusCompleted, CreatedAt: paidAt, PaidAt: &paidAt},
			} {
				if _, err := s.UpsertCharge(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if tc.learned != 0 {
				if err := s.LearnFee(ctx, state.LearnedFee{Fee: tc.learned}); err != nil {
					t.Fatal(err)
				}
			}
			_ = s.Close()

			// pixdash close
			var out, errb strings.Builder
			if code := run([]string{"close", "--offline", "--lang", "en"}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			cli := out.String()
			for _, w := range tc.want {
				if !strings.Contains(cli, w) {
					t.Errorf("pixdash close lacks %q:\n%s", w, cli)
				}
			}
			cliFees := feeFigures(cli)
			if len(cliFees) < 3 {
				t.Fatalf("no fee figures found in pixdash close: %q\n%s", cliFees, cli)
			}

			// The dashboard's close, on the same store and profile.
			cfg, err := config.Load(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			opts, err := dashboardOptions(cctx, dashboardFlags{lang: "en"}, cfg, cfg.Profiles[0], slog.New(slog.DiscardHandler), os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			opts.Bell, opts.Clipboard = func() {}, func(string) {}
			m := ui.New(opts)
			defer m.Close()
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
			var screen bytes.Buffer
			wait := screenWaiter(t, tm, &screen)
			wait("Charges")
			tm.Type("6") // the Sales view, where C makes the day's close
			wait("Sales")
			tm.Type("C")
			defer func() {
				if t.Failed() {
					_ = os.WriteFile("/tmp/validate-screen.txt", screen.Bytes(), 0o600)
				}
			}()
			wait(append([]string{"Day's close"}, tc.want...)...)
			_ = tm.Quit()
			tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
			dash := feeFigures(screen.String())
			for _, f := range cliFees {
				if !strings.Contains(strings.Join(dash, "\n"), f) {
					t.Errorf("the dashboard's close lacks the fee figure %q of pixdash close (dashboard: %q)", f, dash)
				}
			}
		})
	}
}

// feeFigures picks the fee lines' texts out of a close (a report or a screen): the label and
// the amount of the fees and the estimate's note.
func feeFigures(text string) []string {
	re := regexp.MustCompile(`Fees(?: \(estimate\))?|R\$ [0-9.]+,[0-9]{2}|[0-9]+ of [0-9]+ at the estimated fee \(R\$ [0-9.,]+\)`)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, "Fees") && !strings.Contains(l, "estimated fee") {
			continue
		}
		out = append(out, re.FindAllString(l, -1)...)
	}
	return out
}

// screenWaiter returns a wait that reads tm's output into screen until it holds every text
// (15 s at most), for the command tests that drive the dashboard.
func screenWaiter(t *testing.T, tm *teatest.TestModel, screen *bytes.Buffer) func(texts ...string) {
	return func(texts ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			screen.Write(b)
			for _, s := range texts {
				if !bytes.Contains(screen.Bytes(), []byte(s)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(15*time.Second))
	}
}
