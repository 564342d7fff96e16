package ui

import (
	"context"

	"pixdash/api"
	"pixdash/state/workflow"
)

// appState is the live context every view reads: the session, its generation and the active wallet.
type appState struct {
	sess *workflow.Session
	// gen changes when the session changes (profile switch); replies tagged with an older one are dropped.
	gen uint64
	// wallet is the active wallet: "principal" or a sub-account reference. Writes go to it.
	wallet string
	// allWallets widens the charges list and the day view to every wallet (toggled by a).
	allWallets bool
	// ctx lives as long as the session: replacing or closing the session cancels it, and with
	// it every command still running for it (see withTimeout). done is ctx.Done().
	ctx    context.Context
	cancel context.CancelFunc
	done   <-chan struct{}
	// subAccounts is the account's sub-account list as last loaded by the wallets view (nil until then).
	subAccounts []api.SubAccount
	// eventSeq is the Seq of the newest event the dashboard has seen (-1 until read).
	eventSeq int64
	// seenCharges and seenEvents are the store's change counters the views last read at.
	seenCharges, seenEvents uint64
}

// tag marks a command made now, so its reply can be dropped if the session or wallet changed.
func (a *appState) tag() tag { return tag{gen: a.gen, wallet: a.wallet} }

// stale reports whether a reply belongs to another session or wallet.
func (a *appState) stale(t tag) bool { return t.gen != a.gen || t.wallet != a.wallet }

// walletChangedMsg tells the views the active wallet changed; they drop data of the old one.
type walletChangedMsg struct{ wallet string }

// inspectMsg opens the transaction inspector on a lookup (id, external reference or idempotency key).
type inspectMsg struct {
	query  string
	wallet string
}

// switchWalletMsg asks the root to make a wallet active.
type switchWalletMsg struct{ wallet string }
