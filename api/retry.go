package api

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how often and how patiently an idempotent request is tried.
//
// A request is idempotent when it is a GET (or HEAD) or carries an Idempotency-Key; every
// other request is sent once. Connection errors (including a connection dropped after the
// server committed), timeouts, 5xx and 429 are retried; other 4xx never are.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt; values below 1 mean 1.
	MaxAttempts int
	// BaseDelay and MaxDelay bound the capped exponential backoff with full jitter:
	// before attempt n+1 the client waits a uniform random time in [0, min(MaxDelay, BaseDelay·2^(n-1))].
	BaseDelay, MaxDelay time.Duration
	// AttemptTimeout bounds each attempt within the caller's context (0: only the HTTP client's Timeout).
	AttemptTimeout time.Duration
}

const (
	defaultMaxAttempts = 4
	defaultBaseDelay   = 200 * time.Millisecond
	defaultMaxDelay    = 3 * time.Second
)

// DefaultRetry is the policy a client uses unless WithRetry says otherwise (changing this
// variable does not change clients: they use the same values from constants).
var DefaultRetry = RetryPolicy{MaxAttempts: defaultMaxAttempts, BaseDelay: defaultBaseDelay, MaxDelay: defaultMaxDelay}

func defaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: defaultMaxAttempts, BaseDelay: defaultBaseDelay, MaxDelay: defaultMaxDelay}
}

// maxRetryAfter caps how long a Retry-After header can make the client wait.
const maxRetryAfter = 30 * time.Second

func (p RetryPolicy) normalized() RetryPolicy {
	if p.MaxAttempts < 1 {
		p.MaxAttempts = 1
	}
	if p.BaseDelay < 0 {
		p.BaseDelay = 0
	}
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	if p.AttemptTimeout < 0 {
		p.AttemptTimeout = 0
	}
	return p
}

// backoff returns the wait after failed attempt n (1-based): Retry-After when the reply had one
// (capped), else full jitter over the capped exponential ceiling.
func (c *Client) backoff(n int, res attemptResult) time.Duration {
	if res.hasRetry {
		return min(res.retryAfter, maxRetryAfter)
	}
	ceiling := c.retry.MaxDelay
	if shift := n - 1; shift < 30 {
		if d := c.retry.BaseDelay << shift; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(c.jitter(int64(ceiling) + 1))
}

// retryable reports whether sending the same request again may succeed.
func retryable(err error) bool {
	var pe *permanentError
	if errors.As(err, &pe) {
		return false
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae.HTTPStatus >= 500 || ae.HTTPStatus == http.StatusTooManyRequests
	}
	var (
		certErr      *tls.CertificateVerificationError
		unknownAuth  x509.UnknownAuthorityError
		hostnameErr  x509.HostnameError
		certInvalid  x509.CertificateInvalidError
		recordHdrErr tls.RecordHeaderError
	)
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostnameErr) ||
		errors.As(err, &certInvalid) || errors.As(err, &recordHdrErr) {
		return false
	}
	// Connection refused or reset, EOF, a dropped connection, a truncated body, a timeout.
	return true
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
