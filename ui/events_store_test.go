package ui

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// TestEventsShowsWhyDeliveriesWereRefused: the Events view says why the last delivery was
// refused and when, and counts the connections the receiver refused (issue 21 item 18, issue
// 22 item 13), in English and Portuguese.
func TestEventsShowsWhyDeliveriesWereRefused(t *testing.T) {
	stats := api.ReceiverStats{Accepted: 9, Rejected: 4, Refused: 7, Slow: 2,
		LastRejection: api.Rejection{At: time.Date(2026, 11, 21, 14, 2, 0, 0, time.UTC), Reason: api.RejectSignature, Remote: "203.0.113.9:4242", Detail: "webhook signature mismatch"}}
	cases := []struct {
		lang common.Lang
		want []string
	}{
		{common.LangEN, []string{"rejected 4", "last: bad signature 14:02", "connections refused 7", "too slow 2"}},
		{common.LangPT, []string{"rejeitados 4", "última: assinatura inválida 14:02", "conexões recusadas 7", "lentos demais 2"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.lang), func(t *testing.T) {
			s, _ := evSession(t, true, stats)
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 160, Height: 30})
			settle(t, m, m.focusActive())
			send(t, m, runeKey("5"))
			out := m.View()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the events view lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// Another day's refusal carries its date.
	stats.LastRejection = api.Rejection{At: time.Date(2026, 11, 19, 9, 5, 0, 0, time.UTC), Reason: api.RejectTimestamp}
	s, _ := evSession(t, true, stats)
	_, v := eventsModel(t, s, 160, 30)
	if got := v.StatsText(); !strings.Contains(got, "last: timestamp outside the window 19/11 09:05") {
		t.Errorf("stats %q", got)
	}
}

// TestPortTakenOpensWithoutReceiver: a session whose receiver could not listen (another program
// holds the port) opens, says so in the status and the events view (en and pt-BR), tries again
// quietly and receives once the port is free (issue 21 item 16).
func TestPortTakenOpensWithoutReceiver(t *testing.T) {
	for _, tc := range []struct {
		lang         common.Lang
		status, line string
	}{
		{common.LangEN, "The webhook port 127.0.0.1:8787 is in use by another program", "No webhook receiver: 127.0.0.1:8787 is in use by another program"},
		{common.LangPT, "A porta de webhooks 127.0.0.1:8787 está em uso por outro programa", "Sem receptor de webhooks: 127.0.0.1:8787 está em uso por outro programa"},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			s, _ := evSession(t, false, api.ReceiverStats{})
			s.ReceiverDown = "127.0.0.1:8787"
			intake, err := s.Store.OpenIntake()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = intake.Close() })
			free := false
			s.TakeOver = func(context.Context) (*Receiving, error) {
				if !free {
					return nil, fmt.Errorf("webhook receiver: %w: 127.0.0.1:8787", workflow.ErrWebhookAddrInUse)
				}
				return &Receiving{Intake: intake, Stats: func() api.ReceiverStats { return api.ReceiverStats{} }, URL: "http://127.0.0.1:8787/webhook"}, nil
			}
			clock := goldenNow
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return clock }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 200, Height: 30})
			if v := m.View(); !strings.Contains(v, tc.status) {
				t.Fatalf("the status does not say the port is taken:\n%s", v)
			}
			send(t, m, runeKey("5"))
			if v := m.View(); !strings.Contains(v, tc.line) {
				t.Fatalf("the events view does not say why there is no receiver:\n%s", v)
			}
			if m.takeOverTick(clock) != nil {
				t.Fatal("tried at once; the first try waits takeOverEvery")
			}
			clock = clock.Add(takeOverEvery)
			cmd := m.takeOverTick(clock)
			if cmd == nil {
				t.Fatal("no try while the port is taken")
			}
			m.Update(reply(m, runReply(cmd)))
			if v := m.View(); strings.Contains(v, "Could not take over") || strings.Contains(v, "Não foi possível") {
				t.Fatalf("the still-taken port was reported as a failure:\n%s", v)
			}
			free = true
			clock = clock.Add(takeOverEvery)
			m.Update(reply(m, m.takeOverTick(clock)()))
			if s.Intake == nil || s.ReceiverDown != "" || !strings.Contains(m.View(), "127.0.0.1:8787/webhook") {
				t.Fatalf("the receiver did not start once the port was free:\n%s", m.View())
			}
		})
	}
}

// TestDamagedDatabaseWarned: when the check the store runs at open finds the money indexes
// damaged, the dashboard says so at once in the status and keeps a red warning in the header
// naming the repair command, in en and pt-BR (issue 22 item 12).
func TestDamagedDatabaseWarned(t *testing.T) {
	dir := t.TempDir()
	s0, err := state.Open(context.Background(), dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		at := goldenNow.Add(-time.Duration(i) * time.Minute)
		if _, err := s0.UpsertCharge(context.Background(), state.Charge{ID: fmt.Sprintf("ch-%d", i), Wallet: "principal", Amount: 1000, Status: api.StatusCompleted, CreatedAt: at, PaidAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	file := s0.Path()
	_ = s0.Close()
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	var page, size int
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'charges_paid' AND pagetype = 'leaf' LIMIT 1`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	_ = db.QueryRow(`PRAGMA page_size`).Scan(&size)
	_ = db.Close()
	p := make([]byte, size)
	p[0], p[5], p[6] = 0x0a, byte(size>>8), byte(size) // an empty index leaf
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteAt(p, int64(page-1)*int64(size))
	_ = f.Close()

	for _, tc := range []struct {
		lang           common.Lang
		status, header string
	}{
		{common.LangEN, "The state database is damaged and the figures may be wrong", "database damaged: pixdash db repair"},
		{common.LangPT, "O banco de dados local está danificado", "banco danificado: pixdash db repair"},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			st, err := state.Open(context.Background(), dir, "loja")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			<-st.Checked()
			s := goldenSession(t, api.Sandbox)
			s.Store, s.Profile = st, "loja"
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 220, Height: 30})
			m.Update(common.TickMsg(goldenNow))
			v := m.View()
			for _, want := range []string{tc.status, tc.header, "pixdash db repair --profile loja"} {
				if !strings.Contains(v, want) {
					t.Errorf("the dashboard does not say %q:\n%s", want, v)
				}
			}
		})
	}
}
