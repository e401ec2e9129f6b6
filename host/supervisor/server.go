package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/msgtransport"
	"github.com/plughost/plughost/pluginapi"
)

// protocolVersion is the MCP version plughost asks for. Pinned: mcp-go's probe
// of the 2026 draft costs 5 s against every older server.
const protocolVersion = mcp.ProtocolVersion20251125

// Server supervises one MCP server. Create it with New and drive it with Run;
// every other method is safe for concurrent use.
type Server struct {
	spec     Spec
	logger   hclog.Logger
	onChange func()

	mu       sync.RWMutex
	status   Status
	tools    []json.RawMessage // definitions as the server listed them
	init     Initialized       // the last initialize answer, kept while down
	live     *connection
	ending   Ending // why live went away while status still says connected
	lastDiag pluginapi.Diagnostics
	listID   atomic.Int64 // numbers the tools/list requests
	// connectedOnce is set at the first connection: from then on a
	// package runner's server is bounded like any other (Spec.Installer).
	connectedOnce atomic.Bool
}

// connection is one live link to the server: a plugin process and the
// message transport on it.
type connection struct {
	plugin    pluginProcess
	connID    string // the plugin's id of the connection, for its diagnostics
	transport *msgtransport.Endpoint
	serverPID int
	path      string // "direct-pipes" or "relay"
	relist    chan struct{}
	throttled chan struct{} // a throttle episode began (see FloodLimit)
}

// New returns a supervisor for spec. onChange (may be nil) is called, never
// under a lock, whenever the status or tool list changes.
func New(spec Spec, logger hclog.Logger, onChange func()) *Server {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if onChange == nil {
		onChange = func() {}
	}
	return &Server{
		spec:     spec,
		logger:   logger.With("server", spec.Name),
		onChange: onChange,
		status:   Status{Name: spec.Name, State: StateConnecting, Transport: spec.Transport, Since: time.Now()},
	}
}

// Name returns the server's configured name.
func (s *Server) Name() string { return s.spec.Name }

// Status returns a snapshot of the server's status.
func (s *Server) Status() Status {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.status
}

// Definitions returns the server's tool definitions as it last listed them,
// each the raw JSON object the server sent: nil when not connected, empty
// (not nil) when connected to a server that lists no tools. The
// slice is replaced, never modified, on a re-list: callers must not modify
// it, and may compare it by identity to see whether the list changed.
func (s *Server) Definitions() []json.RawMessage {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tools
}

// Run keeps the server connected until ctx ends, restarting it with backoff
// after every failure; it returns once everything it started has stopped.
func (s *Server) Run(ctx context.Context) {
	var delay time.Duration
	for {
		refusals := s.refusals()
		conn, err := s.connect(ctx)
		if err != nil && s.refusals() > refusals {
			if !s.waitLogin(ctx, err) {
				return
			}
			continue
		}
		if err == nil {
			upAt := time.Now()
			err = s.serve(ctx, conn)
			var flood *FloodError
			if time.Since(upAt) >= stableAfter && !errors.As(err, &flood) {
				delay = 0 // a flood is no fresh failure: it backs off further each time
			}
		}
		if ctx.Err() != nil {
			s.update(func(st *Status) { st.State = StateStopped; st.NextRetry = time.Time{} })
			return
		}
		if pluginapi.KindOf(err) == pluginapi.KindInvalidConfig {
			// The transport rejected the config: retrying cannot help.
			msg := s.spec.Masker.Mask(err.Error())
			if s.spec.ConfigPath != "" {
				msg = s.spec.ConfigPath + ": " + msg
			}
			s.logger.Error("transport rejected the server config; not retrying", "error", msg)
			s.update(func(st *Status) { st.State, st.LastError, st.NextRetry = StateInvalid, msg, time.Time{} })
			return
		}
		delay = s.tuning().Backoff.next(delay)
		s.logger.Warn("server failed; restarting", "error", err, "in", delay)
		s.update(func(st *Status) {
			st.State, st.LastError, st.NextRetry = StateError, s.spec.Masker.Mask(err.Error()), time.Now().Add(delay)
		})
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			s.update(func(st *Status) { st.State = StateStopped; st.NextRetry = time.Time{} })
			return
		}
		s.update(func(st *Status) { st.Restarts++ })
	}
}

// refusals is the count of the server's refusals that wait for a login.
func (s *Server) refusals() uint64 {
	if s.spec.Auth == nil {
		return 0
	}
	return s.spec.Auth.Refusals()
}

// waitLogin parks a server the server refused for want of a login until the
// user logs in; it reports false when ctx ended first.
func (s *Server) waitLogin(ctx context.Context, err error) bool {
	s.logger.Warn("server needs login; waiting for `plughost mcp login`", "error", err)
	s.update(func(st *Status) { st.State, st.LastError, st.NextRetry = StateNeedsLogin, err.Error(), time.Time{} })
	if werr := s.spec.Auth.WaitLogin(ctx); werr != nil {
		s.update(func(st *Status) { st.State = StateStopped })
		return false
	}
	s.logger.Info("logged in; connecting")
	return true
}

// ConnectOnce connects, lists tools and disconnects: a connectivity check that
// does not restart anything. The returned Status has the tool count and the
// start-up duration; on failure the error says which phase failed.
func (s *Server) ConnectOnce(ctx context.Context) (Status, []json.RawMessage, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return s.Status(), nil, s.spec.Masker.Error(err)
	}
	st, tools := s.Status(), s.Definitions()
	s.teardown(conn, false)
	return st, tools, nil
}

// Diagnostics returns the server's diagnostics (stderr tail, pid) from the
// live plugin, or the last ones captured before a crash, with configured
// secrets masked (servers echo their environment).
func (s *Server) Diagnostics(ctx context.Context) pluginapi.Diagnostics {
	s.mu.RLock()
	conn, d := s.live, s.lastDiag
	s.mu.RUnlock()
	if conn != nil {
		if live, err := conn.plugin.ConnectionDiagnostics(ctx, conn.connID); err == nil {
			d = live
		}
	}
	m := s.spec.Masker
	d.Stderr, d.ExitStatus, d.Warnings = m.Mask(d.Stderr), m.Mask(d.ExitStatus), m.MaskAll(d.Warnings)
	return d
}

func (s *Server) update(f func(*Status)) {
	s.mu.Lock()
	before := s.status.State
	f(&s.status)
	if s.status.State != before {
		s.status.Since = time.Now()
		s.ending = ""
	}
	s.mu.Unlock()
	s.onChange()
}

// serve watches a live connection until it ends, re-listing tools whenever the
// server says they changed, paced by spec.Relist. It returns why the
// connection ended.
func (s *Server) serve(ctx context.Context, conn *connection) error {
	pacer := newRelistPacer(s.spec.Relist)
	var due <-chan time.Time // a paced re-list is waiting; changes meanwhile join it
	throttle := &throttleWatch{s: s, conn: conn}
	defer throttle.stop()
	for {
		select {
		case <-conn.transport.Done():
			err := s.withLimitHint(conn.transport.Err())
			s.teardown(conn, true)
			return fmt.Errorf("connection lost: %w", err)
		case <-conn.throttled:
			throttle.check()
		case <-throttle.poll():
			throttle.check()
		case <-conn.relist:
			if due != nil {
				continue
			}
			if d := pacer.wait(time.Now()); d > 0 {
				due = time.After(d)
				continue
			}
			s.relist(ctx, conn, pacer)
		case <-due:
			due = nil
			s.relist(ctx, conn, pacer)
		case <-ctx.Done():
			s.teardown(conn, false)
			return ctx.Err()
		}
	}
}

func (s *Server) relist(ctx context.Context, conn *connection, pacer *relistPacer) {
	err := s.listTools(ctx, conn)
	pacer.done(time.Now())
	if err != nil {
		s.logger.Warn("re-listing tools after list_changed failed", "error", err)
		return
	}
	s.logger.Info("tools changed", "tools", s.Status().Tools)
}

// teardown closes a connection. crashed says the connection already died: then
// the plugin may be gone too, and the server's process group is killed from
// here so nothing is orphaned.
func (s *Server) teardown(conn *connection, crashed bool) {
	diagCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	d, derr := conn.plugin.ConnectionDiagnostics(diagCtx, conn.connID)
	cancel()
	s.mu.Lock()
	if derr == nil {
		s.lastDiag = d
	}
	if s.live == conn {
		s.live = nil
		s.tools = nil
		// The status says connected until Run records what comes next;
		// a request meanwhile is told why the connection went away.
		s.ending = EndingStop
		if crashed {
			s.ending = EndingLost
		}
	}
	s.mu.Unlock()
	_ = conn.transport.Close()
	pluginDied := conn.plugin.Exited()
	if crashed && !pluginDied && pluginapi.KindOf(conn.transport.Err()) == pluginapi.KindPluginExited {
		// The stream broke because the plugin died, which go-plugin notices
		// a moment later; a shared process is not waited for by Kill below
		// while other servers hold it, so wait here.
		pluginDied = awaitExit(conn.plugin, pluginExitWait)
	}
	conn.plugin.Kill() // a shared process ends only when its last server lets it go
	if crashed && pluginDied && conn.serverPID > 0 {
		// The plugin died without stopping its server: stop the group here.
		killServerGroup(conn.serverPID)
	}
	s.update(func(st *Status) { st.Tools = 0; st.PluginPID = 0; st.ServerPID = 0; st.Throttle = "" })
}

// pluginExitWait bounds how long teardown waits for a plugin whose stream
// broke to be seen as exited.
const pluginExitWait = time.Second

// awaitExit reports whether p exits within d.
func awaitExit(p pluginProcess, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.Exited() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// withLimitHint adds to a message-too-large error which setting raises the
// limit; other errors pass unchanged.
func (s *Server) withLimitHint(err error) error {
	if pluginapi.KindOf(err) != pluginapi.KindMessageTooLarge {
		return err
	}
	if pluginapi.LimitSetting(err) != "" {
		return err // the error says which setting raises its limit
	}
	setting := s.spec.Limits.MaxMessageSetting
	if setting == "" {
		setting = "the message limit"
	}
	return fmt.Errorf("%w; raise %s to accept larger messages", err, setting)
}

// phaseError names the phase that failed and, for a timeout, the setting
// that controls it.
func phaseError(phase string, limit time.Duration, setting string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || pluginapi.KindOf(err) == pluginapi.KindTimeout {
		return fmt.Errorf("%s: no answer within %s (raise timeouts.%s to wait longer): %w", phase, limit, setting, err)
	}
	return fmt.Errorf("%s: %w", phase, err)
}
