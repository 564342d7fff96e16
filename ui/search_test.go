package ui

import (
	"strings"
	"testing"

	"pixdash/api"
	"pixdash/state"
)

// The customer says they paid: pay a charge with $, search by the e2e id of the receipt from
// S, see the service's answer after the read-back, open it in the inspector; a search with no
// match says what was searched.
func TestFlowSearchCustomerPaid(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "charges", "STATUS")
	f.newCharge("43,21", "Bolo")
	f.waitFor("Pague com PIX", "Aguardando pagamento")
	f.keys("$")
	f.waitFor("PAGO", "Maria da Silva")
	f.keys("esc")
	f.waitFor("Bolo")
	cs := allCharges(t, s.Store, state.ChargeQuery{Wallet: api.WalletPrincipal})
	if len(cs) == 0 || cs[0].E2EID == "" {
		t.Fatalf("no paid charge with an e2e id: %+v", cs)
	}
	ch := cs[0]
	f.keys("S")
	f.waitFor("The customer says they paid", "every wallet of profile demo")
	// As the receipt prints it: lowercase, in groups.
	e2e := strings.ToLower(ch.E2EID)
	f.keys(e2e[:10]+" "+e2e[10:], "enter")
	f.waitFor("1 charge with e2e id", "R$ 43,21", "Maria da Silva", ch.E2EID, "paid")
	f.keys("enter")
	f.waitFor(ch.ID)
	if f.m.view != viewInspector || len(f.m.overlays) != 0 {
		t.Fatalf("enter on a match: view %v, %d overlays", f.m.view, len(f.m.overlays))
	}
	f.keys("S")
	f.waitFor("The customer says they paid")
	f.keys("E99990000000000000000nothing", "enter")
	f.waitFor("No charge with e2e id E99990000000000000000nothing in any wallet of profile demo.")
	f.keys("esc")
}
