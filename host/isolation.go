package host

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/sessionconn"
	"github.com/plughost/plughost/host/supervisor"
)

// isolation is a server's isolation settings (config.Server.Isolation and
// its bounds); a change of them restarts the server.
type isolation struct {
	session    bool // isolation "session"
	idle       time.Duration
	max        int
	maxSetting string
}

// isolationOf returns the isolation settings of server name's entry.
func isolationOf(name string, srv config.Server) isolation {
	if srv.IsolationMode() != config.IsolationSession {
		return isolation{}
	}
	return isolation{session: true, idle: srv.IsolationIdle(), max: srv.SessionLimit(),
		maxSetting: config.ServerPath(name, "max_sessions")}
}

// newPool returns the pool of session connections of a server with
// isolation "session" (nil for "shared"): each runs spec, and its tools
// are compared with those of shared, the server's shared connection.
func (h *Host) newPool(spec supervisor.Spec, iso isolation, shared *supervisor.Server) *sessionconn.Pool {
	if !iso.session {
		return nil
	}
	return sessionconn.New(sessionconn.Options{
		Spec: spec, Router: h.router, Idle: iso.idle, Max: iso.max, MaxSetting: iso.maxSetting,
		Shared: shared.Definitions, Logger: h.logger.With("server", spec.Name), OnChange: h.notify,
	})
}

// withSessions adds a pool's connections and tool-list note to status.
func (s *server) withSessions(status supervisor.Status) supervisor.Status {
	if s.pool == nil {
		return status
	}
	status.SessionConnections = s.pool.Open()
	if note := s.pool.Note(); note != "" {
		status.Warnings = append(append([]string(nil), status.Warnings...), note)
	}
	return status
}

// conn returns the connection a request of session to server goes on: the
// session's own for a server with isolation "session" (opened on first
// use), else the shared one. Call release once the request is answered.
func (h *Host) conn(ctx context.Context, session, server string) (srv *supervisor.Server, release func(), err error) {
	s, ok := h.st().servers[server]
	if !ok {
		return nil, nil, errServerNotRunning
	}
	if s.pool == nil || session == "" {
		return s.sup, func() {}, nil
	}
	return s.pool.Acquire(ctx, session)
}

// isolated reports whether server runs with isolation "session".
func (h *Host) isolated(server string) bool {
	s, ok := h.st().servers[server]
	return ok && s.pool != nil
}

// ownConn returns session's connection to an isolated server if one is
// open (nil otherwise): what the session's client says reaches it, and
// never opens one.
func (h *Host) ownConn(session, server string) *supervisor.Server {
	s, ok := h.st().servers[server]
	if !ok || s.pool == nil {
		return nil
	}
	sup, _ := s.pool.Find(session)
	return sup
}

// closeSessionConns closes every connection of session's own.
func (h *Host) closeSessionConns(session string) {
	for _, s := range h.st().servers {
		if s.pool != nil {
			s.pool.CloseSession(session)
		}
	}
}

// announceRoots tells the shared connections of servers kept from prev to
// next whose configured roots changed (notifications/roots/list_changed).
func (h *Host) announceRoots(prev, next *setup) {
	for name, s := range next.servers {
		if prev.servers[name] != s || slices.Equal(prev.cfg.MCP.Servers[name].Roots, next.cfg.MCP.Servers[name].Roots) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.sup.Notify(ctx, "notifications/roots/list_changed", json.RawMessage(`{}`)); err != nil {
			h.logger.Debug("telling a server its roots changed", "server", name, "error", err)
		}
		cancel()
	}
}
