package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/naming"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/supervisor"
)

// UnknownToolError is returned for a tool name that no server provides. Its
// suggestions only ever name tools of the server the name points to (by its
// mcp_<server>_ prefix): a model that mistyped a tool of one server is never
// steered to another server.
type UnknownToolError struct {
	// Name is the name the model called.
	Name string
	// Server is the configured server the name's prefix points to, "" when
	// none.
	Server string
	// Down describes Server when it has no tools known because it never
	// connected (e.g. "error; last error: …"), else "".
	Down string
	// Closest are the nearest names among Server's tools, best first.
	Closest []string
	// SearchTools are the search tools the model may use to find the tool
	// it meant; empty with discovery off.
	SearchTools []string
}

// Error implements error.
func (e *UnknownToolError) Error() string {
	msg := fmt.Sprintf("unknown tool %q", e.Name)
	switch {
	case e.Down != "":
		msg += fmt.Sprintf(": server %q is %s, so its tools are not known", e.Server, e.Down)
	case len(e.Closest) > 0:
		msg += fmt.Sprintf("; closest names of server %q: %s", e.Server, strings.Join(e.Closest, ", "))
	default:
		msg += ": no tool of that name exists"
	}
	if len(e.SearchTools) > 0 {
		msg += "; find the tool you need with " + strings.Join(e.SearchTools, " or ")
	}
	return msg
}

// unknownTool builds the error for a call of a name no tool has.
func (h *Host) unknownTool(v *discovery.View, name string, rule access.Rule) *UnknownToolError {
	e := &UnknownToolError{Name: name, SearchTools: v.Rules().SearchToolNames()}
	e.Server = h.serverOfNameFor(name, rule)
	if e.Server == "" {
		return e
	}
	for _, c := range v.Snapshot().Closest(e.Server, name, 3+closestSpare) {
		if rule.Allows(e.Server, c) && len(e.Closest) < 3 {
			e.Closest = append(e.Closest, c)
		}
	}
	if len(e.Closest) == 0 {
		if st, ok := h.Status(e.Server); ok && st.State != supervisor.StateConnected {
			e.Down = describeDown(st)
		}
	}
	return e
}

// closestSpare is how many more close names unknownTool asks for than it
// shows, to make up for those a client may not see.
const closestSpare = 7

// unknownScoped builds the error for a call, in a session scoped to server,
// of a name that server has no tool of.
func (h *Host) unknownScoped(server, name string) *UnknownToolError {
	e := &UnknownToolError{Name: name, Server: server}
	if st, ok := h.Status(server); ok && st.State != supervisor.StateConnected && len(h.registry.Snapshot().Server(server)) == 0 {
		e.Down = describeDown(st)
	}
	return e
}

// serverOfName returns the configured server whose agent-facing prefix
// (mcp_<sanitized server>_) starts name — the longest one when several do —
// or "".
func (h *Host) serverOfName(name string) string {
	best, bestLen := "", 0
	for _, server := range h.st().order {
		clean, _ := naming.Sanitize(server)
		prefix := naming.Prefix + clean + "_"
		if strings.HasPrefix(name, prefix) && len(prefix) > bestLen {
			best, bestLen = server, len(prefix)
		}
	}
	return best
}

// ServerUnavailableError is returned for a call of a known tool whose server
// is not connected: down, restarting, failed or stopped. The tool stays
// known (its last definition is kept) so the model learns why it fails
// instead of being told it does not exist.
type ServerUnavailableError struct {
	// Tool is the agent-facing tool name called.
	Tool string
	// Server is the tool's server.
	Server string
	// State is the server's state when the call was made.
	State supervisor.State
	// LastError is the server's most recent failure.
	LastError string
	// NextRetry is when the next connection attempt starts (zero: none
	// scheduled).
	NextRetry time.Time
	// Going, when set, says what is happening to a server whose status
	// still said connected when the call was refused: its connection had
	// just ended ("restarting: its connection was lost", "restarting to
	// apply a config change", "stopping: plughost is shutting down", …).
	Going string
	// Err is the underlying error.
	Err error
}

// Error implements error.
func (e *ServerUnavailableError) Error() string {
	var starting *StartTimeoutError
	if errors.As(e.Err, &starting) {
		return fmt.Sprintf("tool %q is unavailable: server %q is %s", e.Tool, e.Server, stillStarting(starting, e.LastError))
	}
	if e.Going != "" {
		msg := fmt.Sprintf("tool %q is unavailable: server %q is %s", e.Tool, e.Server, e.Going)
		if e.LastError != "" {
			msg += "; last error: " + e.LastError
		}
		return msg
	}
	return fmt.Sprintf("tool %q is unavailable: server %q is %s", e.Tool, e.Server,
		describeDown(supervisor.Status{State: e.State, LastError: e.LastError, NextRetry: e.NextRetry}))
}

// stillStarting says that a server is still starting after a request
// waited for it as long as its start may take, with its last error.
func stillStarting(e *StartTimeoutError, lastError string) string {
	s := e.phrase()
	if lastError != "" {
		s += "; last error: " + lastError
	}
	return s
}

// Unwrap returns the underlying error.
func (e *ServerUnavailableError) Unwrap() error { return e.Err }

// describeDown says what state a server is in and why, for messages.
func describeDown(st supervisor.Status) string {
	var s string
	switch st.State {
	case supervisor.StateConnecting:
		s = "connecting (starting or restarting)"
	case supervisor.StateError:
		s = "down after a failure"
		if !st.NextRetry.IsZero() {
			s += fmt.Sprintf(", next restart attempt in %s", time.Until(st.NextRetry).Round(100*time.Millisecond).Abs())
		}
	case supervisor.StateInvalid:
		s = "not running: its config is invalid"
	case supervisor.StateDisabled:
		s = "disabled"
	case supervisor.StateStopped:
		s = "stopped"
	default:
		s = string(st.State)
	}
	s += fmt.Sprintf(" (state %s)", st.State)
	if st.LastError != "" {
		s += "; last error: " + st.LastError
	}
	return s
}

// unavailable is the error of a call of a known tool whose server still
// starting was waited for in vain (err from awaitStart).
func (h *Host) unavailable(tool, server string, err error) error {
	st, _ := h.Status(server)
	return &ServerUnavailableError{Tool: tool, Server: server, State: st.State, LastError: st.LastError, NextRetry: st.NextRetry, Err: err}
}

// explainCallError turns a call's failure because its server is not
// connected into a *ServerUnavailableError, and one because its OAuth
// server wants a new login into a *NeedsLoginError; other errors pass
// unchanged. It describes the server as it was when the call was refused
// (a status read now may say connected again, after a quick restart).
func (h *Host) explainCallError(ctx context.Context, tool string, server string, err error) error {
	if needs := h.loginNeeded(ctx, tool, server, err); needs != nil {
		return needs
	}
	var nc *supervisor.NotConnectedError
	switch {
	case errors.As(err, &nc):
		st := nc.Status
		return &ServerUnavailableError{Tool: tool, Server: server, State: st.State, LastError: st.LastError, NextRetry: st.NextRetry,
			Going: h.going(server, nc.Ending), Err: err}
	case errors.Is(err, supervisor.ErrNotConnected), errors.Is(err, errServerNotRunning):
		st, _ := h.Status(server)
		return &ServerUnavailableError{Tool: tool, Server: server, State: st.State, LastError: st.LastError, NextRetry: st.NextRetry, Err: err}
	}
	return err
}

// going says what happens to a server whose connection ended as ending
// says while its status still said connected ("" for no ending).
func (h *Host) going(server string, ending supervisor.Ending) string {
	switch {
	case ending == supervisor.EndingLost:
		return "restarting: its connection was lost"
	case ending != supervisor.EndingStop:
		return ""
	case h.isClosed():
		return "stopping: plughost is shutting down"
	}
	if _, configured := h.st().servers[server]; configured {
		return "restarting to apply a config change"
	}
	return "stopping: it was removed or disabled in the config"
}

// errServerNotRunning: the tool's server has no supervisor (not configured
// any more, or disabled).
var errServerNotRunning = routing.ErrServerNotRunning
