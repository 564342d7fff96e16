package sandbox

import (
	"strings"
	"time"

	"pixdash/api"
	"pixdash/api/brdoc"
)

// Offsets of seeded events after a seeded charge's creation.
const (
	seedPayDelay    = 2 * time.Minute
	seedRefundDelay = 30 * time.Minute
)

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// seedHistory replays the fixture's charges and balance blocks of a, placed before now; s.mu is held.
func (s *Server) seedHistory(a *account, af *AccountFixture, now time.Time) {
	refs := map[string]bool{}
	for _, w := range a.walletOrder {
		refs[w.ref] = true
	}
	byExt := map[string]*tx{}
	for j, cf := range af.Charges {
		if err := checkCharge(cf, refs); err != nil {
			s.log.Warn("sandbox: fixture charge skipped", "account", a.name, "index", j, "err", err)
			continue
		}
		t := s.seedCharge(a, cf, now)
		if t != nil && cf.ExternalReference != "" {
			byExt[cf.ExternalReference] = t
		}
	}
	for j, bf := range af.BalanceBlocks {
		if err := checkBlockSeed(bf, map[string]bool{bf.Charge: byExt[bf.Charge] != nil}); err != nil {
			s.log.Warn("sandbox: fixture balance block skipped", "account", a.name, "index", j, "err", err)
			continue
		}
		t := byExt[bf.Charge]
		if t.status != api.StatusCompleted {
			s.log.Warn("sandbox: fixture balance block skipped: its charge is not paid", "account", a.name, "index", j)
			continue
		}
		amount := t.amount
		if bf.Amount != "" {
			amount, _ = api.ParseDecimal(bf.Amount)
			amount = min(amount, t.amount)
		}
		blockType := bf.BlockType
		if blockType == "" {
			blockType = api.BlockTypeMED
		}
		reason := bf.Reason
		if reason == "" {
			reason = "Bloqueio cautelar"
		}
		age, _ := parseAge(bf.Age)
		created := now.Add(-age)
		b := s.newBlock(t, amount, blockType, reason, created)
		if st := api.BlockStatus(bf.Status); st != "" && st != api.BlockAwaitingResponse {
			s.resolveBlock(b, st, bf.ResolutionReason, created.Add(now.Sub(created)/2))
		}
	}
}

// seedCharge creates one seeded charge and plays its story; nil when it cannot be built.
func (s *Server) seedCharge(a *account, cf ChargeFixture, now time.Time) *tx {
	w := a.main()
	if cf.Wallet != "" && cf.Wallet != api.WalletPrincipal {
		w = a.wallets[cf.Wallet]
	}
	amount, _ := api.ParseDecimal(cf.Amount)
	age, _ := parseAge(cf.Age)
	created := now.Add(-age)
	expiresIn := cf.ExpiresIn
	if expiresIn == 0 {
		expiresIn = api.DefaultExpiresIn
	}
	var legs []api.SplitItem
	for _, l := range cf.Split {
		m, _ := api.ParseDecimal(l.Amount)
		legs = append(legs, api.SplitItem{SubAccount: l.SubAccount, Amount: m})
	}
	if len(legs) > 0 {
		wallets := func(ref string) (bool, bool) {
			x := a.wallets[ref]
			return x != nil && ref != "", x != nil && x.status.Usable()
		}
		if ps := api.CheckSplit(legs, w.ref, amount, a.fee, wallets); len(ps) > 0 {
			s.log.Warn("sandbox: fixture charge skipped", "account", a.name, "externalReference", cf.ExternalReference, "err", ps[0].SpecMessage())
			return nil
		}
	}
	id := s.ids.uuid()
	code, err := api.EncodeBRCode(api.BRCodeParams{ // the service's shape: no description (see handleCreatePix)
		PixKey: a.pixKey, MerchantName: a.name, MerchantCity: a.city,
		TxID: strings.ReplaceAll(id, "-", "")[:api.BRCodeMaxTxID], Amount: amount,
	})
	if err != nil {
		s.log.Warn("sandbox: fixture charge skipped", "account", a.name, "externalReference", cf.ExternalReference, "err", err)
		return nil
	}
	t := &tx{
		id: id, wallet: w, status: api.StatusPending, typ: api.TypePayment, method: api.MethodPix, amount: amount,
		description: cf.Description, externalRef: cf.ExternalReference, metadata: cf.Metadata, copyPaste: code,
		expiresAt: created.Add(time.Duration(expiresIn) * time.Second), createdAt: created, updatedAt: created,
		split: legs, pspPaymentID: "psp_" + s.ids.hex(24),
	}
	if len(a.projects) == 1 {
		t.projectID = a.projects[0].id
	}
	name, doc := cf.PayerName, brdoc.Clean(cf.PayerDocument) // checked by the fixture's check
	if name == "" {
		name = DefaultPayerName
	}
	if doc == "" {
		doc = DefaultPayerDocument
	}
	s.store(t)
	paidAt := earliest(created.Add(seedPayDelay), now)
	switch cf.State {
	case SeedPending:
		if now.Before(t.expiresAt) {
			s.armExpiry(t, now)
		} else {
			s.expire(t, t.expiresAt)
		}
	case SeedExpired:
		s.expire(t, earliest(t.expiresAt, now))
	case SeedPaid, SeedRefunded:
		t.customerID = s.customerID(a, doc)
		s.settle(t, name, doc, paidAt)
		if cf.State == SeedRefunded {
			s.refund(t, t.amount, earliest(paidAt.Add(seedRefundDelay), now))
		}
	case SeedBlocked:
		t.customerID = s.customerID(a, doc)
		s.failBlocked(t, name, doc, paidAt)
		s.confirmBlockedRefund(t, earliest(paidAt.Add(BlockedRefundDelay), now))
	}
	return t
}
