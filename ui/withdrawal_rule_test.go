package ui

import (
	"fmt"
	"testing"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// The withdrawal form and the workflow apply one check of the amount against the minimum and
// the spendable balance: for every amount, mode, fee and balance around the edges, the form
// refuses the amount exactly when workflow.CheckWithdrawal would refuse the order it sends.
func TestWithdrawalFormAndWorkflowAgree(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	bal := func(m api.Money) *api.Money { return &m }
	for _, byNet := range []bool{false, true} {
		for _, feeKnown := range []bool{false, true} {
			for _, spendable := range []*api.Money{nil, bal(1000), bal(1150), bal(99)} {
				for _, amount := range []string{"0,99", "1,00", "9,99", "10,00", "11,50", "11,51"} {
					name := fmt.Sprintf("net=%v fee=%v spendable=%v amount=%s", byNet, feeKnown, spendable != nil, amount)
					in := wdInput{keyType: api.PixKeyEmail, key: "ana@example.com", name: "Ana Souza", doc: "529.982.247-25", byNet: byNet, amount: amount}
					c := checkWithdrawal(tr, in, spendable, 150, feeKnown)
					formOK := c.errs[wfAmount] == ""

					amt, err := api.ParseBRL(amount)
					if err != nil {
						t.Fatal(err)
					}
					o := workflow.WithdrawalOrder{Spendable: spendable, Req: api.CreateWithdrawalRequest{PixKey: "ana@example.com", PixKeyType: api.PixKeyEmail,
						HolderName: "Ana Souza", HolderDocument: "52998224725", HolderDocumentType: api.DocumentCPF}}
					if byNet {
						o.Req.NetAmount = &amt
					} else {
						o.Req.Amount = &amt
					}
					if feeKnown {
						o.Fee = 150
					}
					werr := workflow.CheckWithdrawal(o)
					if formOK != (werr == nil) {
						t.Errorf("%s: the form says %q, the workflow %v", name, c.errs[wfAmount], werr)
					}
					if formOK && c.need != o.Need() {
						t.Errorf("%s: the form takes %s from the wallet, the workflow %s", name, c.need.BRL(), o.Need().BRL())
					}
				}
			}
		}
	}
}

// A BalanceShort says which part of what is missing is the fee, so a netAmount withdrawal's
// refusal can say "with the fee".
func TestCheckFundsNamesTheFee(t *testing.T) {
	sp, net := api.Money(1000), api.Money(900)
	o := workflow.WithdrawalOrder{Spendable: &sp, Fee: 150, Req: api.CreateWithdrawalRequest{NetAmount: &net}}
	short, ok := o.CheckFunds().(workflow.BalanceShort)
	if !ok || short.Need != 1050 || short.Fee != 150 || short.Spendable != 1000 {
		t.Fatalf("CheckFunds = %#v", o.CheckFunds())
	}
	c := checkWithdrawal(common.Catalog{Lang: common.LangEN}, wdInput{keyType: api.PixKeyEmail, key: "a@b.co", name: "A", doc: "52998224725", byNet: true, amount: "9,00"}, &sp, 150, true)
	if want := "R$ 10,50 with the fee is more than the spendable R$ 10,00."; c.errs[wfAmount] != want {
		t.Errorf("form says %q, want %q", c.errs[wfAmount], want)
	}
}
