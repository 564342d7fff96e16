package wallets

import (
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// A webhook event is not the wallets view's: it does no work for one (issue 27: every event
// is handed to every view, and this one, hidden, rebuilt its rows' cache for each).
func TestWebhookEventDoesNoWork(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	c := &common.Common{St: common.NewStyles(), Keys: common.NewKeyMap(tr), Tr: tr, Now: time.Now, Loc: time.UTC, App: &common.AppState{Sess: &workflow.Session{}}}
	v := NewWalletsView(c)
	v.SetSize(120, 30)
	ver := v.ver
	if cmd := v.Update(common.EventMsg{Ev: &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted}}); cmd != nil {
		t.Fatal("a command for a webhook event")
	}
	if v.ver != ver {
		t.Fatalf("the rows' cache stamp moved (%d → %d): the view redraws its rows for an event", ver, v.ver)
	}
}
