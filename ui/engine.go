package ui

import (
	"context"
	"time"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// sessionEngine is what the root asks of the session's engine (workflow.Engine): it polls,
// reads payment events back, follows the event feed, recovers, runs on_paid, and reports what
// changed (waitEngine turns the reports into the root's messages).
type sessionEngine interface {
	Start()
	Reports() <-chan workflow.Report
	Done() <-chan struct{}
	Watch(id string)
	Poll(ctx context.Context, id, wallet string) workflow.ChargeChanged
	RecoverAfter(d time.Duration)
	Authenticate(ctx context.Context) error
	TokenState() api.TokenState
	ReadBackAllBlocks(ctx context.Context) error
	LoadProjects(ctx context.Context, wallet string) ([]api.Project, error)
	CreateCharge(ctx context.Context, d workflow.Draft) workflow.Created
	Close()
}

// newEngine builds the engine of session s on the dashboard's clock (started by waitEngine).
func (m *Model) newEngine(s *workflow.Session) sessionEngine {
	return workflow.NewEngine(s, workflow.EngineOptions{Now: m.c.Now, CallTimeout: common.CallTimeout})
}
