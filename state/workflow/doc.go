// Package workflow holds the merchant's workflows on top of the service's client and the local
// store, with no user interface: creating a charge with its Idempotency-Key and recovering the
// submissions left unconfirmed, polling a charge, the feed of webhook events and the read-back
// of payment events, pruning old events, and opening a session (client, store, receiver,
// payment simulator) for a profile or for demo mode.
//
// Every workflow takes a context.Context and returns a plain result; the dashboard wraps them
// in Bubble Tea commands, and a command-line interface or a multi-counter hub can call them
// as they are. The service and the store are reached through small interfaces declared here
// (ChargeAPI, SubmissionStore, EventFeed…), which *api.Client and *state.Store satisfy.
//
// A Session offers the calls a screen makes as methods bound to its client and store (Lookup,
// Balance, ListSubAccounts, CreateSubAccount, Blocks, Projects, CloseDay, ReadBack, Refund,
// Withdraw: session_calls.go, accounts.go), so that the dashboard holds the session only and
// never the service's client; a view declares the few methods it uses as an interface.
//
// Engine runs the long-lived parts of a session on its own goroutines: polling the pending
// charges, the read-back queue (bounded, the charge on the customer's screen first), the event
// feed, recovery, MED block read-backs and on_paid. It reports what changed on a channel of
// small typed values (ChargeChanged, Events, EventConfirmed, RecoveryDone, OnPaidDone) that
// the dashboard turns into messages, a command line prints and a hub publishes.
//
// Nothing here assumes a terminal, and nothing imports the emulator (api/sandbox): the
// payment simulator is an interface (PaymentSimulator) that the caller wires.
package workflow
