package hub

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerOptions configure the embedded NATS server of `pixdash hub`.
type ServerOptions struct {
	// Listen is the client address, host:port (port 0 picks a free one). When empty, the
	// ConfigFile's listen settings, else DefaultListen.
	Listen string
	// ConfigFile is a nats-server configuration file (accounts, users, permissions, TLS); ""
	// for none: then the server accepts loopback clients without authentication.
	ConfigFile string
	// StoreDir is where JetStream keeps its files (the hub's state directory); required.
	StoreDir string
	// Logger receives the server's notices and errors (discarded when nil).
	Logger *slog.Logger
	// SyncAlways has JetStream flush every write to disk before it acknowledges it: what the
	// hub acknowledged then survives a power cut too, not only a crash of the process (by
	// default the files are flushed every two minutes; the operating system keeps what a
	// killed process wrote).
	SyncAlways bool
}

// DefaultListen is the embedded server's client address when none is given.
const DefaultListen = "127.0.0.1:4222"

// Server is an embedded NATS server with JetStream on file storage.
type Server struct {
	ns *server.Server
}

// ErrUnprotected reports a NATS server or connection beyond loopback without TLS and
// authentication: the hub refuses to start.
var ErrUnprotected = errors.New("hub: NATS beyond loopback needs TLS and authentication")

// StartServer starts the embedded server and waits until it takes clients. It refuses a
// listen address beyond loopback unless the configuration sets TLS and authentication.
func StartServer(o ServerOptions) (*Server, error) {
	if o.StoreDir == "" {
		return nil, errors.New("hub: the embedded server needs a store directory")
	}
	opts := &server.Options{}
	if o.ConfigFile != "" {
		var err error
		if opts, err = server.ProcessConfigFile(o.ConfigFile); err != nil {
			return nil, fmt.Errorf("hub: %w", err)
		}
	}
	if o.Listen != "" || opts.Host == "" && opts.Port == 0 {
		listen := o.Listen
		if listen == "" {
			listen = DefaultListen
		}
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("hub: listen address %q: %w", listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("hub: listen address %q: bad port", listen)
		}
		if p == 0 {
			p = server.RANDOM_PORT
		}
		opts.Host, opts.Port = host, p
	}
	if !loopbackHost(opts.Host) && (opts.TLSConfig == nil || !hasAuth(opts)) {
		return nil, fmt.Errorf("%w: listening on %q; set tls and authorization or accounts in a server config (--nats-config), or listen on 127.0.0.1", ErrUnprotected, opts.Host)
	}
	opts.JetStream = true
	if opts.StoreDir == "" {
		opts.StoreDir = o.StoreDir
	}
	if err := os.MkdirAll(opts.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	if opts.ServerName == "" {
		opts.ServerName = "pixdash-hub"
	}
	opts.NoSigs = true // the hub command handles signals
	if o.SyncAlways {
		opts.SyncAlways = true
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	if o.Logger != nil {
		ns.SetLoggerV2(slogAdapter{o.Logger}, false, false, false)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("hub: the NATS server did not start (store %s)", filepath.Clean(opts.StoreDir))
	}
	return &Server{ns: ns}, nil
}

// URL is the server's client URL, e.g. nats://127.0.0.1:4222.
func (s *Server) URL() string { return s.ns.ClientURL() }

// NATS is the embedded server, for tests and in-process connections.
func (s *Server) NATS() *server.Server { return s.ns }

// Shutdown stops the server and waits until it stopped (JetStream's files flushed).
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// hasAuth reports whether opts authenticate clients.
func hasAuth(o *server.Options) bool {
	return o.Username != "" || o.Authorization != "" || len(o.Users) > 0 || len(o.Nkeys) > 0 ||
		len(o.TrustedOperators) > 0 || len(o.TrustedKeys) > 0 || o.AuthCallout != nil
}

// loopbackHost reports whether host is a loopback name or address ("" and 0.0.0.0 are every
// interface, not loopback).
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// slogAdapter writes the server's log to a slog.Logger.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Noticef(format string, v ...any) { a.l.Info("nats: " + fmt.Sprintf(format, v...)) }
func (a slogAdapter) Warnf(format string, v ...any)   { a.l.Warn("nats: " + fmt.Sprintf(format, v...)) }
func (a slogAdapter) Fatalf(format string, v ...any)  { a.l.Error("nats: " + fmt.Sprintf(format, v...)) }
func (a slogAdapter) Errorf(format string, v ...any)  { a.l.Error("nats: " + fmt.Sprintf(format, v...)) }
func (a slogAdapter) Debugf(format string, v ...any)  { a.l.Debug("nats: " + fmt.Sprintf(format, v...)) }
func (a slogAdapter) Tracef(string, ...any)           {}
