package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

func TestImportNoticeInBothLanguages(t *testing.T) {
	r := &state.ImportReport{Charges: 3, Events: 2, Submissions: 1, Damaged: 4, Kept: []string{"loja.journal.imported"}, Dir: "/st"}
	for _, tc := range []struct {
		lang common.Lang
		want []string
	}{
		{common.LangEN, []string{"Imported 3 charges, 2 events and 1 pending charge creation from", "4 damaged records were skipped", "kept in /st as loja.journal.imported"}},
		{common.LangPT, []string{"3 cobranças, 2 eventos e 1 criação de cobrança pendente", "4 registros danificados foram ignorados", "ficam em /st como loja.journal.imported"}},
	} {
		got := importNotice(common.Catalog{Lang: tc.lang}, r)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.lang, got, w)
			}
		}
	}
	if got := importNotice(common.Catalog{Lang: common.LangEN}, nil); got != "" {
		t.Errorf("no import: %q", got)
	}
}

// A profile's event_retention_days removes older events when the session opens, off the
// UI path, and says how many; charges stay.
func TestRetentionPrunesOldEventsAtStart(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	now := time.Now()
	ev := func(id string) *api.Event {
		raw := fmt.Sprintf(`{"event":"refund_completed","eventId":%q,"data":{"id":"r1"}}`, id)
		e, err := api.DecodeEvent([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if _, err := s.Store.ApplyEvent(context.Background(), ev("old")); err != nil {
		t.Fatal(err)
	}
	s.EventRetentionDays = 1
	m := New(Options{Session: s, Now: func() time.Time { return now.Add(48 * time.Hour) }})
	cmd := m.pruneEvents()
	if cmd == nil {
		t.Fatal("no prune command with event_retention_days = 1")
	}
	m.Update(reply(m, runReply(cmd)))
	if !strings.Contains(m.status.Text, "Removed 1 event older than 1 day (event_retention_days)") {
		t.Errorf("status = %q", m.status.Text)
	}
	if _, ok, err := s.Store.Event(context.Background(), "old"); ok || err != nil {
		t.Errorf("old event still there (%v)", err)
	}
	s.EventRetentionDays = 0
	if New(Options{Session: s}).pruneEvents() != nil {
		t.Error("prune command without a retention")
	}
}
