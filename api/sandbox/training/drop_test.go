package training

import (
	"errors"
	"net/url"
	"syscall"
	"testing"
)

// A request during the drop fails as an unreachable network does, so the dashboard words it as
// a real drop ("the network dropped the connection…"), not as an unknown error with its text.
func TestNetworkDownIsUnreachable(t *testing.T) {
	err := error(&url.Error{Op: "Get", URL: "http://127.0.0.1/v2/transactions/x", Err: ErrNetworkDown})
	if !errors.Is(err, syscall.ENETUNREACH) || !errors.Is(err, ErrNetworkDown) {
		t.Fatalf("%v is not an unreachable network", err)
	}
}
