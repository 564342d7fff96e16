package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// manyCharges tracks n pending charges in wallet, "Pedido 0000" the newest, a minute apart.
func manyCharges(t testing.TB, s *Session, wallet string, n int) {
	t.Helper()
	for i := range n {
		created := goldenNow.Add(-time.Duration(i) * time.Minute)
		ch := state.Charge{ID: fmt.Sprintf("%s-%04d", wallet, i), Amount: api.Money(100 + i), Description: fmt.Sprintf("Pedido %04d", i),
			Status: api.StatusCompleted, Wallet: wallet, CreatedAt: created, UpdatedAt: created}
		if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
}

// listRows are the lines of the charges list between its column header and the footer.
func listRows(t testing.TB, screen string) []string {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "STATUS") {
			var rows []string
			for _, r := range lines[i+1:] {
				if strings.TrimSpace(r) == "" || strings.Contains(r, "? help") {
					break
				}
				rows = append(rows, r)
			}
			return rows
		}
	}
	t.Fatalf("no charges list on screen:\n%s", screen)
	return nil
}

// checkFullList fails unless the list shows rows charges from want on, each drawn (never the
// placeholder of a row not read yet).
func checkFullList(t testing.TB, screen string, want, rows int) {
	t.Helper()
	got := listRows(t, screen)
	if len(got) != rows {
		t.Fatalf("%d rows drawn, want %d:\n%s", len(got), rows, screen)
	}
	for i, r := range got {
		if d := fmt.Sprintf("Pedido %04d", want+i); !strings.Contains(r, d) {
			t.Fatalf("row %d is %q, want %s:\n%s", i, r, d, screen)
		}
	}
}

// The first read may land before the terminal's size is known (the runtime runs Init's commands
// and the first WindowSizeMsg concurrently), and a terminal can grow: the rows a resize uncovers
// are read, not left as placeholders.
func TestChargesReadTheRowsAResizeUncovers(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	manyCharges(t, s, api.WalletPrincipal, 100)
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	settle(t, m, m.focusActive()) // Init's read, before any size
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	checkFullList(t, m.View(), 0, m.charges.Visible())
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	checkFullList(t, m.View(), 0, m.charges.Visible())
	send(t, m, tea.WindowSizeMsg{Width: 200, Height: 90})
	checkFullList(t, m.View(), 0, m.charges.Visible())
}

// The events view reads the rows a resize uncovers too.
func TestEventsReadTheRowsAResizeUncovers(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	evs := make([]*api.Event, 100)
	for i := range evs {
		evs[i] = decoded(t, fmt.Sprintf(`{"eventId":"e%03d","event":"refund_completed","amount":%d.00}`, i, i+1))
	}
	if _, err := s.Store.ApplyEvents(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	m, v := eventsModel(t, s, 80, 24)
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
	out := m.View()
	if strings.Contains(out, "\n…") {
		t.Fatalf("rows left unread after the resize:\n%s", out)
	}
	// The newest first, down to the last row that fits.
	for i := range v.Visible() {
		if want := fmt.Sprintf("R$ %d,00", 100-i); !strings.Contains(out, want) {
			t.Fatalf("row %d (%s) is not drawn:\n%s", i, want, out)
		}
	}
}

// The list shows the active wallet's charges, newest first, and reads more of them as the
// cursor moves: to the end and back, a page at a time.
func TestChargesListPagesThroughTheStore(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	manyCharges(t, s, api.WalletPrincipal, 500)
	manyCharges(t, s, "loja-sul", 7)
	m := goldenModel(t, s, 120, 40)
	rows := m.charges.Visible()
	out := m.View()
	if !strings.Contains(out, "500 charges · wallet principal") || strings.Contains(out, "loja-sul-") {
		t.Fatalf("not the principal's 500 charges:\n%s", out)
	}
	checkFullList(t, out, 0, rows)
	send(t, m, runeKey("G"))
	checkFullList(t, m.View(), 500-rows, rows)
	if ch, ok := m.charges.SelectedLine(); !ok || ch.Description != "Pedido 0499" {
		t.Fatalf("G selected %+v (%v), want the oldest charge", ch, ok)
	}
	send(t, m, runeKey("g"))
	checkFullList(t, m.View(), 0, rows)
	for range 3 {
		send(t, m, tea.KeyMsg{Type: tea.KeyPgDown})
	}
	if ch, ok := m.charges.SelectedLine(); !ok || ch.Description != fmt.Sprintf("Pedido %04d", 3*rows) {
		t.Fatalf("three pages down selected %+v (%v)", ch, ok)
	}
	if strings.Contains(m.View(), "\n…") {
		t.Fatalf("rows left unread:\n%s", m.View())
	}
	// Another wallet lists its own charges, from the top.
	send(t, m, common.SwitchWalletMsg{Wallet: "loja-sul"})
	out = m.View()
	if !strings.Contains(out, "7 charges · wallet loja-sul") || strings.Contains(out, "principal-") || m.charges.Cursor != 0 {
		t.Fatalf("after switching to loja-sul (cursor %d):\n%s", m.charges.Cursor, out)
	}
}

// What the filter matches: the date as the list shows it (in the dashboard's time zone) among
// the other fields; the placeholder says so.
func TestChargesFilterMatchesTheDate(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	send(t, m, runeKey("/"))
	if out := m.View(); !strings.Contains(out, "filter: id, description, reference, wallet, amount, date") {
		t.Fatalf("the placeholder does not mention the date:\n%s", out)
	}
	for _, r := range "21/11/2026 11:30" { // "Encomenda de festa", created 3 h before goldenNow (UTC)
		send(t, m, runeKey(string(r)))
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	out := m.View()
	if rows := listRows(t, out); len(rows) != 1 || !strings.Contains(rows[0], "Encomenda de festa") || !strings.Contains(out, "1 charge ·") {
		t.Fatalf("filter by date:\n%s", out)
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEsc})
	if rows := listRows(t, m.View()); len(rows) != 3 {
		t.Fatalf("esc did not clear the filter:\n%s", m.View())
	}
}

// The list follows the store: a charge another window tracks appears once the store-change
// notice comes, and drawing never reads the store (it shows what the last read brought).
func TestChargesListFollowsStoreChanges(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	ch := state.Charge{ID: "3f6c1a2e-0000-4000-8000-000000000009", Amount: 4200, Description: "Chegou agora", Status: api.StatusPending,
		Wallet: api.WalletPrincipal, CreatedAt: goldenNow, UpdatedAt: goldenNow, ExpiresAt: goldenNow.Add(time.Hour)}
	if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	if out := m.View(); strings.Contains(out, "Chegou agora") || !strings.Contains(out, "3 charges") {
		t.Fatalf("the frame changed without a read:\n%s", out)
	}
	storeChanged(t, m)
	out := m.View()
	if rows := listRows(t, out); len(rows) != 4 || !strings.Contains(rows[0], "Chegou agora") || !strings.Contains(out, "4 charges") {
		t.Fatalf("after the store-change notice:\n%s", out)
	}
	// The highlight stayed on the charge it was on (now the second row); one up is the new
	// charge, and enter opens it as the list read it.
	if sel, _ := m.charges.SelectedLine(); sel.ID != "3f6c1a2e-0000-4000-8000-000000000001" || m.charges.Cursor != 1 {
		t.Fatalf("the highlight moved to %s (row %d)", sel.ID, m.charges.Cursor)
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyUp})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	if msg, ok := runReply(cmd).(common.OpenChargeMsg); !ok || msg.Charge.ID != ch.ID || msg.Charge.Amount != 4200 {
		t.Fatalf("enter sent %+v", msg)
	}
}

// A text filter that matches more charges than are counted says so ("1000+").
func TestChargesFilterCountIsCapped(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	manyCharges(t, s, api.WalletPrincipal, state.MaxCountedMatches+5)
	m := goldenModel(t, s, 120, 40)
	if out := m.View(); !strings.Contains(out, fmt.Sprintf("%d charges", state.MaxCountedMatches+5)) {
		t.Fatalf("without a filter the count is exact:\n%s", out)
	}
	send(t, m, runeKey("/"))
	for _, r := range "pedido" {
		send(t, m, runeKey(string(r)))
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if out := m.View(); !strings.Contains(out, fmt.Sprintf("%d+ charges", state.MaxCountedMatches)) {
		t.Fatalf("a capped count is not marked:\n%s", out)
	}
	// The end of the list is still reachable, and the count grows to what was read.
	send(t, m, runeKey("G"))
	if ch, ok := m.charges.SelectedLine(); !ok || !strings.HasPrefix(ch.Description, "Pedido") {
		t.Fatalf("G on a capped list selected %+v (%v)", ch, ok)
	}
}

// Defect 3: the highlight follows the charge, not the row index, when a newer charge arrives
// above it: enter and i then still open the charge the merchant was on.
func TestChargesCursorFollowsTheChargeWhenOneArrivesAbove(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	manyCharges(t, s, api.WalletPrincipal, 10)
	m := goldenModel(t, s, 120, 40)
	for range 3 {
		send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	}
	want, ok := m.charges.SelectedLine()
	if !ok || want.Description != "Pedido 0003" {
		t.Fatalf("row 3 holds %+v (%v)", want, ok)
	}
	newer := state.Charge{ID: "principal-new", Amount: 999, Description: "Chegou agora", Status: api.StatusPending,
		Wallet: api.WalletPrincipal, CreatedAt: goldenNow.Add(time.Minute), UpdatedAt: goldenNow.Add(time.Minute), ExpiresAt: goldenNow.Add(time.Hour)}
	if _, err := s.Store.UpsertCharge(context.Background(), newer); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	out := m.View()
	if rows := listRows(t, out); len(rows) != 11 || !strings.Contains(rows[0], "Chegou agora") {
		t.Fatalf("the new charge is not listed first:\n%s", out)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	if msg, ok := runReply(cmd).(common.OpenChargeMsg); !ok || msg.Charge.ID != want.ID {
		t.Fatalf("enter opened %q, want %q (the highlighted charge before the new one came)", msg.Charge.ID, want.ID)
	}
	_, cmd = m.Update(runeKey("i"))
	if msg, ok := runReply(cmd).(common.InspectMsg); !ok || msg.Query != want.ID {
		t.Fatalf("i inspected %+v, want %s", msg, want.ID)
	}
	// The highlight is on that charge's line, the fifth on screen now.
	if m.charges.Cursor != 4 || !strings.Contains(listRows(t, out)[4], "Pedido 0003") {
		t.Fatalf("the highlight is on row %d:\n%s", m.charges.Cursor, out)
	}
	// Where the merchant moves it, it goes from there.
	send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	if sel, _ := m.charges.SelectedLine(); sel.Description != "Pedido 0004" {
		t.Fatalf("down from Pedido 0003 selected %s", sel.Description)
	}
}

// Off screen (under the form or the QR screen, behind another view), a highlight on the first row
// stays there as charges arrive: coming back from creating a charge, the merchant finds it
// highlighted. On screen, it stays on its charge.
func TestChargesTopStaysOnTheNewestWhileOffScreen(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	manyCharges(t, s, api.WalletPrincipal, 5)
	m := goldenModel(t, s, 120, 40)
	add := func(id string, at time.Duration) {
		t.Helper()
		ch := state.Charge{ID: id, Amount: 700, Description: id, Status: api.StatusPending, Wallet: api.WalletPrincipal,
			CreatedAt: goldenNow.Add(at), UpdatedAt: goldenNow.Add(at), ExpiresAt: goldenNow.Add(time.Hour)}
		if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
		storeChanged(t, m)
	}
	send(t, m, runeKey("3")) // another view
	add("made-elsewhere", time.Minute)
	send(t, m, runeKey("1"))
	if sel, _ := m.charges.SelectedLine(); sel.ID != "made-elsewhere" || m.charges.Cursor != 0 {
		t.Fatalf("coming back, the highlight is on %s (row %d)", sel.ID, m.charges.Cursor)
	}
	// On screen, the same arrival leaves the highlight on its charge.
	add("arrived-on-screen", 2*time.Minute)
	if sel, _ := m.charges.SelectedLine(); sel.ID != "made-elsewhere" || m.charges.Cursor != 1 {
		t.Fatalf("on screen, the highlight moved to %s (row %d)", sel.ID, m.charges.Cursor)
	}
}
