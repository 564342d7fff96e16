package common

import (
	"context"

	"pixdash/api"
	"pixdash/state/workflow"
)

// AppState is the live context every view reads: the session, its generation and the active wallet.
type AppState struct {
	Sess *workflow.Session
	// Gen changes when the session changes (profile switch); replies tagged with an older one are dropped.
	Gen uint64
	// Wallet is the active wallet: "principal" or a sub-account reference. Writes go to it.
	Wallet string
	// AllWallets widens the charges list and the day view to every wallet (toggled by a).
	AllWallets bool
	// Ctx lives as long as the session: replacing or closing the session cancels it, and with
	// it every command still running for it (see withTimeout). done is ctx.Done().
	Ctx    context.Context
	Cancel context.CancelFunc
	Done   <-chan struct{}
	// SubAccounts is the account's sub-account list as last loaded by the wallets view (nil until then).
	SubAccounts []api.SubAccount
	// EventSeq is the Seq of the newest event the dashboard has seen (-1 until read).
	EventSeq int64
	// SeenCharges and seenEvents are the store's change counters the views last read at.
	SeenCharges, SeenEvents uint64
	// SeenSettled is the store's SettledVersion the views last read at.
	SeenSettled uint64
}

// Tag marks a command made now, so its reply can be dropped if the session or wallet changed.
func (a *AppState) Tag() Tag { return Tag{Gen: a.Gen, Wallet: a.Wallet} }

// Stale reports whether a reply belongs to another session or wallet.
func (a *AppState) Stale(t Tag) bool { return t.Gen != a.Gen || t.Wallet != a.Wallet }

// WalletChangedMsg tells the views the active wallet changed; they drop data of the old one.
type WalletChangedMsg struct{ Wallet string }

// InspectMsg opens the transaction inspector on a lookup (id, external reference or idempotency key).
type InspectMsg struct {
	Query  string
	Wallet string
}

// SwitchWalletMsg asks the root to make a wallet active.
type SwitchWalletMsg struct{ Wallet string }
