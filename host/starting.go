package host

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/plughost/plughost/host/supervisor"
)

// Cold start. Host.Start returns while servers come up, and front ends
// answer initialize at once (stdio after its --wait), so a client's first
// request can name a server that is still starting. Such a request waits
// for it (awaitStart) — for the server it names, never for the others —
// then goes on: answered once the server is up, or failing with the
// server's state and last error as soon as its start failed. The wait is
// bounded by how long the server's start may take: its
// timeouts.start_seconds + timeouts.initialize_seconds, counted from the
// request. Lists (tools/list, prompts/list, resources/list) do not wait:
// they show what is up, and list_changed follows.

// startWaitSettings names the settings that bound a wait for a starting
// server.
const startWaitSettings = "timeouts.start_seconds + timeouts.initialize_seconds"

// StartTimeoutError says that a request waited for servers to start as long
// as their start may take and they were still starting.
type StartTimeoutError struct {
	// Servers are the servers still starting, sorted.
	Servers []string
	// Waited is how long the request waited: the longest of the servers'
	// timeouts.start_seconds + timeouts.initialize_seconds.
	Waited time.Duration
}

// Error implements error.
func (e *StartTimeoutError) Error() string {
	quoted := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		quoted[i] = strconv.Quote(s)
	}
	if len(quoted) == 1 {
		return fmt.Sprintf("server %s is %s", quoted[0], e.phrase())
	}
	return fmt.Sprintf("servers %s are %s", strings.Join(quoted, ", "), e.phrase())
}

// phrase says what the servers are, for a message that names them.
func (e *StartTimeoutError) phrase() string {
	return fmt.Sprintf("still starting after %s, the bound of %s (raise them to wait longer) (state %s)",
		e.Waited, startWaitSettings, supervisor.StateConnecting)
}

// awaitStart waits while any of servers is starting (connecting, for the
// first time or after a restart), at most as long as the longest start of
// them may take. It reports whether it waited, and fails with a
// *StartTimeoutError when the bound passed first or with ctx's error. A
// server that is up, down, failed or not running is not waited for: the
// caller's own path answers or explains.
func (h *Host) awaitStart(ctx context.Context, servers ...string) (bool, error) {
	waiting := h.starting(servers)
	if len(waiting) == 0 {
		return false, nil
	}
	bound := h.startBound(waiting)
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		changed := h.Changed()
		if waiting = h.starting(waiting); len(waiting) == 0 {
			return true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return true, &StartTimeoutError{Servers: waiting, Waited: bound}
		case <-ctx.Done():
			return true, fmt.Errorf("waiting for server %s to start: %w", strings.Join(waiting, ", "), ctx.Err())
		}
	}
}

// starting returns those of names that are starting: servers of the
// current config, in state connecting, on a started host.
func (h *Host) starting(names []string) []string {
	st := h.st()
	var out []string
	for _, name := range names {
		if s, ok := st.servers[name]; ok && s.sup.Status().State == supervisor.StateConnecting {
			out = append(out, name)
		}
	}
	if len(out) == 0 || !h.started() {
		return nil
	}
	return out
}

// newcomers returns the servers starting for the first time since they
// were configured (never initialized): what they offer is not known yet,
// so a request no other server can take may be theirs.
func (h *Host) newcomers() []string {
	var out []string
	for _, name := range h.starting(h.st().order) {
		if srv, ok := h.Server(name); ok {
			if _, initialized := srv.Initialized(); !initialized {
				out = append(out, name)
			}
		}
	}
	return out
}

// startBound is how long a request waits for servers to start: the longest
// of their timeouts.start_seconds + timeouts.initialize_seconds.
func (h *Host) startBound(servers []string) time.Duration {
	cfg := h.st().cfg
	var bound time.Duration
	for _, name := range servers {
		srv, ok := cfg.MCP.Servers[name]
		if !ok {
			continue
		}
		t := srv.Timeouts(cfg.MCP.Timeouts.Durations())
		bound = max(bound, t.Start+t.Initialize)
	}
	return bound
}
