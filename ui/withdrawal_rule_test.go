package ui

import (
	"fmt"
	"testing"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/withdrawal"
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
					in := withdrawal.WdInput{KeyType: api.PixKeyEmail, Key: "ana@example.com", Name: "Ana Souza", Doc: "529.982.247-25", ByNet: byNet, Amount: amount}
					c := withdrawal.CheckWithdrawal(tr, in, spendable, 150, feeKnown)
					formOK := c.Errs[withdrawal.WfAmount] == ""

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
						t.Errorf("%s: the form says %q, the workflow %v", name, c.Errs[withdrawal.WfAmount], werr)
					}
					if formOK && c.Need != o.Need() {
						t.Errorf("%s: the form takes %s from the wallet, the workflow %s", name, c.Need.BRL(), o.Need().BRL())
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
	c := withdrawal.CheckWithdrawal(common.Catalog{Lang: common.LangEN}, withdrawal.WdInput{KeyType: api.PixKeyEmail, Key: "a@b.co", Name: "A", Doc: "52998224725", ByNet: true, Amount: "9,00"}, &sp, 150, true)
	if want := "R$ 10,50 with the fee is more than the spendable R$ 10,00."; c.Errs[withdrawal.WfAmount] != want {
		t.Errorf("form says %q, want %q", c.Errs[withdrawal.WfAmount], want)
	}
}
