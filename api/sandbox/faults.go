package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"pixdash/api"
)

// kindTooManyRequests is the envelope's error of a 429.
const kindTooManyRequests = "TooManyRequests"

// check says what is wrong with f ("" when it can be applied).
func (f Faults) check() string {
	for _, p := range []struct {
		name string
		v    float64
	}{{"dropResponseAfterCommit", f.DropResponseAfterCommit}, {"error500", f.Error500}} {
		if !(p.v >= 0 && p.v <= 1) {
			return p.name + " must be a probability from 0 to 1"
		}
	}
	if f.LatencyMs < 0 || f.LatencyMs > MaxFaultLatencyMs {
		return fmt.Sprintf("latencyMs must be from 0 to %d", MaxFaultLatencyMs)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"status5xxBurst", f.Status5xxBurst}, {"status429Burst", f.Status429Burst},
		{"dropReplyAfterCommit", f.DropReplyAfterCommit}, {"redeliveryStorm", f.RedeliveryStorm}} {
		if p.v < 0 || p.v > maxFaultCount {
			return fmt.Sprintf("%s must be from 0 to %d", p.name, maxFaultCount)
		}
	}
	if f.RetryAfterSeconds < 0 || f.RetryAfterSeconds > 3600 {
		return "retryAfterSeconds must be from 0 to 3600"
	}
	return ""
}

// SetFaults replaces the faults in force (see Faults); it is what PUT /_sandbox/faults does.
func (s *Server) SetFaults(f Faults) error {
	if msg := f.check(); msg != "" {
		return fmt.Errorf("sandbox faults: %s", msg)
	}
	s.mu.Lock()
	s.faults = f
	s.mu.Unlock()
	s.deliv.setFaults(f.RedeliveryStorm, f.OutOfOrder)
	return nil
}

// currentFaults returns the faults in force, with what is left of the bursts.
func (s *Server) currentFaults() Faults {
	s.mu.Lock()
	f := s.faults
	s.mu.Unlock()
	f.RedeliveryStorm, f.OutOfOrder = s.deliv.faults()
	return f
}

func (s *Server) handleSetFaults(c *call) {
	var f Faults
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &f) {
		return
	}
	if msg := f.check(); msg != "" {
		c.badRequest(msg)
		return
	}
	_ = s.SetFaults(f)
	c.json(http.StatusOK, s.currentFaults())
}

func (s *Server) handleGetFaults(c *call) { c.json(http.StatusOK, s.currentFaults()) }

// injectBefore applies latency, then the 5xx and 429 bursts and the 500 probability; false when
// the request was answered (without doing anything).
func (s *Server) injectBefore(c *call) bool {
	s.mu.Lock()
	lat := s.faults.LatencyMs
	s.mu.Unlock()
	if lat > 0 {
		t := time.NewTimer(time.Duration(lat) * time.Millisecond)
		select {
		case <-t.C:
		case <-c.r.Context().Done():
			t.Stop()
		}
	}
	s.mu.Lock()
	burst5xx, burst429 := s.faults.Status5xxBurst > 0, false
	if burst5xx {
		s.faults.Status5xxBurst--
	} else if s.faults.Status429Burst > 0 {
		s.faults.Status429Burst--
		burst429 = true
	}
	retryAfter := s.faults.RetryAfterSeconds
	s.mu.Unlock()
	switch {
	case burst5xx:
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return false
	case burst429:
		if retryAfter <= 0 {
			retryAfter = 1
		}
		c.fail(http.StatusTooManyRequests, kindTooManyRequests, "Too many requests, try again later", nil)
		c.w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		return false
	}
	if s.drawFault(func(f Faults) float64 { return f.Error500 }) {
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return false
	}
	return true
}

// dropReply reports whether the reply of a request that took effect is to be lost: the
// dropReplyAfterCommit burst first, then the dropResponseAfterCommit probability.
func (s *Server) dropReply() bool {
	s.mu.Lock()
	burst := s.faults.DropReplyAfterCommit > 0
	if burst {
		s.faults.DropReplyAfterCommit--
	}
	s.mu.Unlock()
	return burst || s.drawFault(func(f Faults) float64 { return f.DropResponseAfterCommit })
}

func (s *Server) drawFault(p func(Faults) float64) bool {
	s.mu.Lock()
	prob := p(s.faults)
	s.mu.Unlock()
	if prob <= 0 {
		return false
	}
	return s.ids.float() < prob
}

// applyFixtureFaults puts the fixture's [faults] in force (Validate has checked them).
func (s *Server) applyFixtureFaults(fx *Fixture) {
	if fx == nil || fx.Faults == (Faults{}) {
		return
	}
	if err := s.SetFaults(fx.Faults); err != nil {
		s.log.Warn("sandbox: fixture faults skipped", "err", err)
	}
}
