package api

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connGuard caps the connections a server holds. At the cap, a new connection evicts the
// connection that has waited longest without a request in progress (one that never sent a
// request, or an idle keep-alive); when every connection is busy with a request, the new one
// is closed at once. Idle floods therefore cannot starve the sender's deliveries of sockets
// (or the process of file descriptors).
type connGuard struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[net.Conn]*guardedConn

	evicted, refused *atomic.Uint64 // the receiver's counters
}

// guardedConn is what the guard knows of one connection.
type guardedConn struct {
	busy  bool      // a request is being read or served
	since time.Time // when it became quiet (new or idle)
}

func newConnGuard(ln net.Listener, max int, evicted, refused *atomic.Uint64) *connGuard {
	return &connGuard{Listener: ln, max: max, conns: make(map[net.Conn]*guardedConn, max), evicted: evicted, refused: refused}
}

// Accept returns the next connection once there is room for it.
func (g *connGuard) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if g.admit(c) {
			return c, nil
		}
		_ = c.Close()
		g.refused.Add(1)
	}
}

// admit registers c, evicting the longest-quiet connection when at the cap; it reports false
// when every held connection is busy.
func (g *connGuard) admit(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.conns) >= g.max {
		var (
			victim net.Conn
			oldest time.Time
		)
		for vc, st := range g.conns {
			if !st.busy && (victim == nil || st.since.Before(oldest)) {
				victim, oldest = vc, st.since
			}
		}
		if victim == nil {
			return false
		}
		delete(g.conns, victim)
		_ = victim.Close()
		g.evicted.Add(1)
	}
	g.conns[c] = &guardedConn{since: time.Now()}
	return true
}

// connState is the server's ConnState hook: it tracks which connections are busy.
func (g *connGuard) connState(c net.Conn, s http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.conns[c]
	switch s {
	case http.StateActive:
		if ok {
			st.busy = true
		}
	case http.StateIdle:
		if ok {
			st.busy, st.since = false, time.Now()
		}
	case http.StateClosed, http.StateHijacked:
		delete(g.conns, c)
	}
}

// open returns how many connections are held.
func (g *connGuard) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}
