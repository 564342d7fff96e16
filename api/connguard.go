package api

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connGuard caps the connections a server holds, overall and per remote address. At a cap, a
// new connection evicts the connection that has waited longest without a request in progress
// (one that never sent a request, or an idle keep-alive); when there is none, the one that has
// been reading its request longest, once that is stalledAfter old (a delivery's body arrives in
// milliseconds; a peer trickling bytes does not); when every held connection is busy otherwise,
// the new one is closed at once. Idle and slow-body floods therefore cannot starve the sender's
// deliveries of sockets (or the process of file descriptors), and one address cannot take
// every socket.
type connGuard struct {
	net.Listener
	max, perIP int

	mu    sync.Mutex
	conns map[net.Conn]*guardedConn
	byIP  map[string]int

	evicted, refused *atomic.Uint64 // the receiver's counters
}

// stalledAfter is how long a connection may have been reading its request before, at a cap, a
// new connection may evict it.
const stalledAfter = 250 * time.Millisecond

// guardedConn is what the guard knows of one connection.
type guardedConn struct {
	host    string
	busy    bool      // a request is being read or served
	reading bool      // busy, and its body is not read yet
	since   time.Time // when it became quiet (new or idle), or started its request
}

func newConnGuard(ln net.Listener, limit, perIP int, evicted, refused *atomic.Uint64) *connGuard {
	return &connGuard{Listener: ln, max: limit, perIP: max(perIP, 1), conns: make(map[net.Conn]*guardedConn, limit),
		byIP: make(map[string]int), evicted: evicted, refused: refused}
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

// hostOf is the address part of a connection's remote address.
func hostOf(c net.Conn) string {
	a := c.RemoteAddr()
	if a == nil {
		return ""
	}
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

// admit registers c, evicting a quiet or stalled connection when at a cap (of c's address
// first); it reports false when there is none to evict.
func (g *connGuard) admit(c net.Conn) bool {
	host := hostOf(c)
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byIP[host] >= g.perIP && !g.evict(now, host, true) {
		return false
	}
	if len(g.conns) >= g.max && !g.evict(now, "", false) {
		return false
	}
	g.conns[c] = &guardedConn{host: host, since: now}
	g.byIP[host]++
	return true
}

// evict closes the longest-quiet connection (of host when sameHost), else the longest-stalled
// one; it reports false when there is neither. g.mu is held.
func (g *connGuard) evict(now time.Time, host string, sameHost bool) bool {
	var (
		quiet, stalled     net.Conn
		quietAt, stalledAt time.Time
	)
	for vc, st := range g.conns {
		if sameHost && st.host != host {
			continue
		}
		switch {
		case !st.busy:
			if quiet == nil || st.since.Before(quietAt) {
				quiet, quietAt = vc, st.since
			}
		case st.reading && now.Sub(st.since) >= stalledAfter:
			if stalled == nil || st.since.Before(stalledAt) {
				stalled, stalledAt = vc, st.since
			}
		}
	}
	victim := quiet
	if victim == nil {
		victim = stalled
	}
	if victim == nil {
		return false
	}
	g.drop(victim)
	_ = victim.Close()
	g.evicted.Add(1)
	return true
}

// drop forgets c. g.mu is held.
func (g *connGuard) drop(c net.Conn) {
	st, ok := g.conns[c]
	if !ok {
		return
	}
	delete(g.conns, c)
	if g.byIP[st.host]--; g.byIP[st.host] <= 0 {
		delete(g.byIP, st.host)
	}
}

// connState is the server's ConnState hook: it tracks which connections are busy.
func (g *connGuard) connState(c net.Conn, s http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.conns[c]
	switch s {
	case http.StateActive:
		if ok {
			st.busy, st.reading, st.since = true, true, time.Now()
		}
	case http.StateIdle:
		if ok {
			st.busy, st.reading, st.since = false, false, time.Now()
		}
	case http.StateClosed, http.StateHijacked:
		g.drop(c)
	}
}

// guardKey keys the request context's guardRef.
type guardKey struct{}

// guardRef lets a handler tell the guard that its connection's body is read.
type guardRef struct {
	g *connGuard
	c net.Conn
}

// connContext is the server's ConnContext hook: it puts the connection in its requests' context.
func (g *connGuard) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, guardKey{}, guardRef{g, c})
}

// bodyRead marks the connection of a request's context as past reading its body: it is no
// longer a stalled peer to evict but a delivery being served. A context without a guard
// (the handler served directly) is left alone.
func bodyRead(ctx context.Context) {
	ref, ok := ctx.Value(guardKey{}).(guardRef)
	if !ok {
		return
	}
	ref.g.mu.Lock()
	if st, ok := ref.g.conns[ref.c]; ok {
		st.reading = false
	}
	ref.g.mu.Unlock()
}

// open returns how many connections are held.
func (g *connGuard) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// openFrom returns how many connections are held from host.
func (g *connGuard) openFrom(host string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.byIP[host]
}
