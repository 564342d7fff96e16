package workflow

import (
	"context"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// The service, as the workflows call it; *api.Client implements every interface below.

// Authenticator signs in to the service.
type Authenticator interface {
	Authenticate(ctx context.Context) error
}

// TransactionReader reads a transaction as the service holds it, by id, external reference
// or idempotency key.
type TransactionReader = state.TransactionReader

// ChargeAPI creates PIX charges and reads them back.
type ChargeAPI interface {
	CreatePix(ctx context.Context, req *api.CreatePixRequest, opts ...api.RequestOption) (*api.PixCharge, error)
	TransactionReader
}

// ProjectLister lists a wallet's projects, every page.
type ProjectLister interface {
	ListAllProjects(ctx context.Context, opts ...api.RequestOption) ([]api.Project, error)
}

// PaymentSimulator acts as a payer on the sandbox emulator (*sandbox.Control implements it);
// sessions against any other service have none.
type PaymentSimulator interface {
	// Pay makes the payer named payerName, with CPF or CNPJ payerDocument, pay charge id.
	Pay(ctx context.Context, id, payerName, payerDocument string) error
	// Expire makes pending charge id expire now.
	Expire(ctx context.Context, id string) error
}

// The local store, as the workflows use it; *state.Store implements every interface below.

// SubmissionStore records a charge submission before its first attempt and its outcome after.
type SubmissionStore interface {
	BeginSubmission(ctx context.Context, sub state.Submission) error
	CompleteSubmission(ctx context.Context, key string, c state.Charge) (state.Charge, error)
	AbandonSubmission(ctx context.Context, key string) error
	PendingSubmissions(ctx context.Context) ([]state.Submission, error)
	ResolveSubmission(ctx context.Context, key string, tx *api.Transaction) (state.Charge, error)
}

// ChargeStore reads a tracked charge and applies the service's answer to it.
type ChargeStore interface {
	Charge(ctx context.Context, id string) (state.Charge, bool, error)
	ApplyTransaction(ctx context.Context, tx *api.Transaction) (state.Charge, bool, error)
	// MarkMissing records a 404 on a read-back (see state.Store.MarkMissing).
	MarkMissing(ctx context.Context, id string) (state.Charge, bool, error)
}

// Tracker starts tracking a charge the service already holds.
type Tracker interface {
	TrackTransaction(ctx context.Context, tx *api.Transaction, wallet string) (state.Charge, error)
}

// EventFeed reads the webhook events recorded after a position, and says when more arrive.
type EventFeed interface {
	// Changed is closed at the next write to the store.
	Changed() <-chan struct{}
	EventsAfter(ctx context.Context, seq int64, max int) ([]state.EventEntry, error)
	LastEventSeq(ctx context.Context) (int64, error)
}

// PaymentChecker reads recorded payment events back from the service and records the verdict.
type PaymentChecker interface {
	ConfirmEvent(ctx context.Context, r state.TransactionReader, e *api.Event) (state.Confirmation, error)
	UncheckedPayments(ctx context.Context, max int) ([]state.EventEntry, error)
}

// EventPruner removes the webhook events received before a time.
type EventPruner interface {
	PruneEvents(ctx context.Context, before time.Time) (int, error)
}
