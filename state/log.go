package state

import (
	"context"
	"log/slog"

	"pixdash/api"
)

// WithLogger sets the logger that receives one debug line per committed write: the kind of
// record and its id (default: discard). Never a document, a payload or a secret.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// logWrite writes the debug line of a committed write: record is the kind of record (charge,
// event, verdict, submission, refund, withdrawal, on_paid, fee, lookup), id its key.
func (s *Store) logWrite(record, op, id string, attrs ...slog.Attr) {
	if s.log == nil || !s.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	base := []slog.Attr{slog.String("record", record), slog.String("op", op), slog.String("id", id)}
	s.log.LogAttrs(context.Background(), slog.LevelDebug, "state: write", append(base, attrs...)...)
}

// logReason is a reason or message for the debug log, long digit runs (documents) masked.
func logReason(s string) string { return api.MaskDigitRuns(s) }

// logRefund writes the debug line of a committed refund record.
func (s *Store) logRefund(op string, r Refund) {
	s.logWrite("refund", op, r.ChargeID, slog.String("wallet", r.Wallet), slog.String("state", string(r.State)))
}

// logConfirmation writes the debug line of an event read back against the service: its id,
// kind, verdict (confirmed, disputed, unknown) and reason.
func (s *Store) logConfirmation(e *api.Event, c Confirmation) {
	if s.log == nil || !s.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	s.log.LogAttrs(context.Background(), slog.LevelDebug, "webhook: read back", slog.String("event", e.EventID),
		slog.String("kind", string(e.Kind)), slog.String("verdict", string(c.Verdict)),
		slog.String("charge", c.After.ID), slog.String("reason", logReason(c.Reason)))
}
