package sandbox

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// WithEventLog writes one JSON line to w per API request and per webhook delivery attempt
// (pixdash sandbox --log). Secrets, tokens, signatures and request bodies are never written.
func WithEventLog(w io.Writer) Option {
	return func(s *Server) {
		if w != nil {
			s.elog = &eventLog{w: w}
		}
	}
}

// eventLog serialises JSON lines to a writer; a nil *eventLog writes nothing.
type eventLog struct {
	mu sync.Mutex
	w  io.Writer
}

// RequestLine is the log line of one API request.
type RequestLine struct {
	Time       time.Time `json:"time"`
	Type       string    `json:"type"` // "request"
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Wallet     string    `json:"wallet,omitempty"` // "principal" or the X-Sub-Account reference
	Status     int       `json:"status"`
	DurationMs float64   `json:"durationMs"`
	TraceID    string    `json:"traceId,omitempty"`
	// Dropped is set when a fault closed the connection after the request took effect.
	Dropped bool `json:"dropped,omitempty"`
}

// DeliveryLine is the log line of one webhook delivery attempt.
type DeliveryLine struct {
	Time       time.Time `json:"time"`
	Type       string    `json:"type"` // "delivery"
	DeliveryID string    `json:"deliveryId"`
	EndpointID string    `json:"endpoint"`
	URL        string    `json:"url"`
	Event      string    `json:"event"`
	EventID    string    `json:"eventId"`
	Attempt    int       `json:"attempt"`
	Status     int       `json:"status,omitempty"` // the receiver's HTTP status; 0 when none came
	Answer     string    `json:"answer,omitempty"` // the start of the receiver's body, cleaned
	Error      string    `json:"error,omitempty"`
	Outcome    string    `json:"outcome"` // delivered, retrying or failed
	Redelivery bool      `json:"redelivery,omitempty"`
}

func (l *eventLog) write(v any) {
	if l == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
}
