package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/ui/blocks"
	"pixdash/ui/common"
	"pixdash/ui/inspector"
)

// countingPane counts the commands a view returns: Update does no I/O, so every read a view
// starts is a command.
type countingPane struct {
	common.Pane
	cmds int
}

func (c *countingPane) Update(msg tea.Msg) tea.Cmd {
	cmd := c.Pane.Update(msg)
	if cmd != nil {
		c.cmds++
	}
	return cmd
}

// floodEvent is a webhook event of kind for transaction tx in the principal wallet.
func floodEvent(t *testing.T, i int, kind api.EventKind, tx string) *api.Event {
	t.Helper()
	ev := map[string]any{"eventId": fmt.Sprintf("evt-flood-%06d", i), "event": kind, "createdAt": goldenNow.Format(time.RFC3339),
		"transactionId": tx, "amount": 12.34, "netAmount": 12.34, "feeAmount": 0.5}
	if kind.IsBalanceBlock() {
		ev["balanceBlock"] = map[string]any{"blockType": api.BlockTypeMED, "amount": 12.34, "status": api.BlockAwaitingResponse, "referenceNumber": "MED-1"}
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := api.DecodeEvent(raw)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// A flood of webhook events and store changes while the charges view is on screen makes the
// hidden views read nothing, not even the inspector showing the very transaction the events are
// about or the blocks view of the wallet whose blocks they report (issue 27: hidden views
// recomputed on every event). Each reads what it missed when shown again.
func TestHiddenViewsIdleUnderFlood(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	for _, k := range []string{"2", "4", "5", "6", "1"} { // each view started once, then left
		send(t, m, runeKey(k))
	}
	const tx = "3f6c1a2e-0000-4000-8000-000000000001"
	iv := m.panes[viewInspector].(*inspector.View)
	iv.Res, iv.Loading = &inspector.InspectResult{Query: tx, Wallet: api.WalletPrincipal, Tx: &api.Transaction{ID: tx}}, false
	bv := m.panes[viewBlocks].(*blocks.View)
	bv.Loaded, bv.Loading = true, false
	hidden := map[viewID]*countingPane{}
	for _, id := range []viewID{viewInspector, viewBlocks, viewEvents, viewDay} {
		hidden[id] = &countingPane{Pane: m.panes[id]}
		m.panes[id] = hidden[id]
	}
	kinds := []api.EventKind{api.EventPaymentCompleted, api.EventBalanceBlockCreated, api.EventRefundCompleted, api.EventBalanceBlockApproved}
	for i := range 200 {
		items := make([]common.EventMsg, 5)
		for j := range items {
			items[j] = common.EventMsg{Gen: m.app.Gen, Ev: floodEvent(t, i*5+j, kinds[(i+j)%len(kinds)], tx)}
		}
		m.Update(eventsMsg{gen: m.app.Gen, items: items, last: int64(i)})
		m.Update(common.StoreChangedMsg{Gen: m.app.Gen, Charges: true, Events: true})
		m.Update(common.TickMsg(goldenNow))
	}
	for id, p := range hidden {
		if p.cmds != 0 {
			t.Errorf("hidden view %v (%s) started %d commands during the flood, want 0", id, p.Title(), p.cmds)
		}
	}
	// Shown again, each reads what it missed.
	m.panes[viewInspector], m.panes[viewBlocks] = iv, bv
	m.showView(viewInspector)
	if !iv.Loading {
		t.Error("the inspector did not look its transaction up again when shown")
	}
	m.showView(viewBlocks)
	if !bv.Loading {
		t.Error("the blocks view did not read when shown")
	}
}
