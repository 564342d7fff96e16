package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/qr"
)

// countdownID is the pending charge of the countdown tests; countdownExp is when it expires.
const countdownID = "3f6c1a2e-0000-4000-8000-0000000000c0"

var countdownExp = goldenNow.Add(time.Hour)

// countdownModel is a dashboard in lang (the customer's language too) at 120x40 whose store
// holds one pending charge expiring at countdownExp, and whose clock reads *now.
func countdownModel(t *testing.T, lang common.Lang, now *time.Time) *Model {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	ch := state.Charge{ID: countdownID, Amount: 1234, Description: "Countdown", Status: api.StatusPending,
		CreatedAt: goldenNow.Add(-2 * time.Minute), ExpiresAt: countdownExp, PixCopyPaste: goldenCode(t, 1234), Wallet: api.WalletPrincipal}
	if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Session: s, Lang: lang, CustomerLang: lang, Now: func() time.Time { return *now }, Location: time.UTC})
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	settle(t, m, m.focusActive())
	return m
}

// lineFrom is the text of screen from the first occurrence of prefix to the end of its line,
// trimmed ("" when screen has no prefix).
func lineFrom(screen, prefix string) string {
	screen = ansi.Strip(screen)
	i := strings.Index(screen, prefix)
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(screen[i:], "\n")
	return strings.TrimSpace(line)
}

// A countdown is shown in whole minutes, rounded down so it never promises more time than is
// left, with a text of its own for the last minute: on the customer's QR screen in words, in
// the charges list and the inspector in their short form, in en and pt-BR (issue 27: the
// seconds rewrote a QR line every second, 306 B/s on an idle QR screen).
func TestCountdownInWholeMinutes(t *testing.T) {
	type want struct{ qr, list, inspector string }
	for _, tc := range []struct {
		left   time.Duration
		en, pt want
	}{
		{59*time.Minute + 59*time.Second,
			want{"Expires in 59 min", "in 59m", "in 59m"}, want{"Expira em 59 min", "em 59m", "em 59m"}},
		{5 * time.Minute,
			want{"Expires in 5 min", "in 5m", "in 5m"}, want{"Expira em 5 min", "em 5m", "em 5m"}},
		{4*time.Minute + 51*time.Second,
			want{"Expires in 4 min", "in 4m", "in 4m"}, want{"Expira em 4 min", "em 4m", "em 4m"}},
		{time.Minute,
			want{"Expires in 1 min", "in 1m", "in 1m"}, want{"Expira em 1 min", "em 1m", "em 1m"}},
		{59 * time.Second,
			want{"Expires in under 1 min", "in <1m", "in <1m"}, want{"Expira em menos de 1 min", "em <1m", "em <1m"}},
		{time.Second,
			want{"Expires in under 1 min", "in <1m", "in <1m"}, want{"Expira em menos de 1 min", "em <1m", "em <1m"}},
		{time.Millisecond,
			want{"Expires in under 1 min", "in <1m", "in <1m"}, want{"Expira em menos de 1 min", "em <1m", "em <1m"}},
		{0, // the moment it expires: the expired state as before
			want{"Expired; confirming with the bank…", "expiring…", "<1m ago"}, want{"Expirada; confirmando com o banco…", "expirando…", "há <1m"}},
		{-90 * time.Second,
			want{"Expired; confirming with the bank…", "expiring…", "1m ago"}, want{"Expirada; confirmando com o banco…", "expirando…", "há 1m"}},
	} {
		for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
			w := tc.en
			if lang == common.LangPT {
				w = tc.pt
			}
			now := countdownExp.Add(-tc.left)

			m := countdownModel(t, lang, &now)
			row := lineFrom(m.View(), "Countdown")
			if !strings.HasSuffix(row, "  "+w.list) {
				t.Errorf("%s, %v left: the list row reads %q, want it to end in %q", lang, tc.left, row, w.list)
			}

			openQRByID(t, m, countdownID)
			if got := lineFrom(m.View(), "Expir"); got != w.qr {
				t.Errorf("%s, %v left: the QR screen reads %q, want %q", lang, tc.left, got, w.qr)
			}

			m = countdownModel(t, lang, &now)
			exp := countdownExp
			tx := &api.Transaction{ID: countdownID, Status: api.StatusPending, Type: api.TypePayment, PaymentMethod: api.MethodPix,
				Amount: 1234, Currency: "BRL", CreatedAt: goldenNow.Add(-2 * time.Minute), ExpiresAt: &exp}
			ch, _ := chargeByID(t, m.app.Sess.Store, countdownID)
			showLookup(t, m, countdownID, "principal", tx, ch, true, nil)
			label := m.c.Tr.T("inspector.expires")
			field := ""
			for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, label+" ") {
					field = l
				}
			}
			if !strings.HasSuffix(field, "· "+w.inspector) {
				t.Errorf("%s, %v left: the inspector's expiry reads %q, want it to end in %q", lang, tc.left, field, w.inspector)
			}
		}
	}
}

// The QR screen's longer countdowns: hours and minutes, days and hours, rounded down.
func TestQRTimeLeftLonger(t *testing.T) {
	for _, tc := range []struct {
		left   time.Duration
		en, pt string
	}{
		{time.Hour, "1 h 00 min", "1 h 00 min"},
		{23*time.Hour + 58*time.Minute + 59*time.Second, "23 h 58 min", "23 h 58 min"},
		{24 * time.Hour, "1 day 0 h", "1 dia 0 h"},
		{6*24*time.Hour + 23*time.Hour + 59*time.Minute, "6 days 23 h", "6 dias 23 h"},
	} {
		if got := qr.TimeLeft(common.Catalog{Lang: common.LangEN}, tc.left); got != tc.en {
			t.Errorf("en, %v: %q, want %q", tc.left, got, tc.en)
		}
		if got := qr.TimeLeft(common.Catalog{Lang: common.LangPT}, tc.left); got != tc.pt {
			t.Errorf("pt-BR, %v: %q, want %q", tc.left, got, tc.pt)
		}
	}
}

// The QR screen's last minute builds one frame when it begins, none during it, and one at the
// exact moment the charge expires, which switches the screen to the expired state then, not at
// the next minute.
func TestQRCountdownExpiresAtTheExactMoment(t *testing.T) {
	now := countdownExp.Add(-61 * time.Second)
	m := countdownModel(t, common.LangEN, &now)
	openQRByID(t, m, countdownID)
	frames := countFrames(t)
	tick := func(at time.Time) string {
		t.Helper()
		now = at
		send(t, m, common.TickMsg(now))
		return lineFrom(m.View(), "Expir")
	}
	if got := tick(now); got != "Expires in 1 min" || *frames != 1 {
		t.Fatalf("61 s left: %q, %d frames", got, *frames)
	}
	*frames = 0
	if got := tick(countdownExp.Add(-time.Minute + time.Millisecond)); got != "Expires in under 1 min" || *frames != 1 {
		t.Fatalf("the last minute begins: %q, %d frames (want 1)", got, *frames)
	}
	*frames = 0
	for at := countdownExp.Add(-59 * time.Second); at.Before(countdownExp); at = at.Add(time.Second / 2) {
		if got := tick(at); got != "Expires in under 1 min" {
			t.Fatalf("%v left: %q", countdownExp.Sub(at), got)
		}
	}
	if got := tick(countdownExp.Add(-time.Millisecond)); got != "Expires in under 1 min" || *frames != 0 {
		t.Fatalf("1 ms left: %q; %d frames in the last minute, want 0", got, *frames)
	}
	if got := tick(countdownExp); got != "Expired; confirming with the bank…" || *frames != 1 {
		t.Fatalf("at the moment it expires: %q, %d frames (want the expired state, 1 frame)", got, *frames)
	}
}
