package training

import (
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
)

// Network is the shop's network as training mode sees it: it can drop, so the dashboard's
// requests and the service's webhook deliveries fail until it comes back.
type Network struct{ down atomic.Bool }

// ErrNetworkDown is what a request meets while the training network is down: an unreachable
// network, so the dashboard words it as it would a real drop.
var ErrNetworkDown error = networkDown{}

type networkDown struct{}

func (networkDown) Error() string { return "training: the network is down (simulated)" }
func (networkDown) Unwrap() error { return syscall.ENETUNREACH }

// SetDown drops the network (true) or brings it back.
func (n *Network) SetDown(down bool) { n.down.Store(down) }

// Down reports whether the network is down.
func (n *Network) Down() bool { return n.down.Load() }

// Transport wraps base (http.DefaultTransport when nil): while the network is down every
// request fails before it leaves, as with a cable pulled out.
func (n *Network) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper{n: n, base: base}
}

type roundTripper struct {
	n    *Network
	base http.RoundTripper
}

func (t roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.n.Down() {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, ErrNetworkDown
	}
	return t.base.RoundTrip(r)
}

// Listener wraps ln: while the network is down, connections it accepts are closed at once,
// so the service's webhook deliveries fail and are retried later.
func (n *Network) Listener(ln net.Listener) net.Listener { return listener{Listener: ln, n: n} }

type listener struct {
	net.Listener
	n *Network
}

func (l listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !l.n.Down() {
			return c, err
		}
		_ = c.Close()
	}
}
