package routing

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/plughost/plughost/host/supervisor"
)

// Servers is what the router needs of the host: its configured servers,
// their supervisors, what they offer and their call timeouts.
type Servers interface {
	// Names returns every configured server, in name order.
	Names() []string
	// Running reports whether server runs in the host's current state.
	Running(server string) bool
	// Server returns the supervisor of a running server.
	Server(server string) (*supervisor.Server, bool)
	// Capabilities returns what server offers, from its last initialize;
	// ok is false when it is not running or never initialized.
	Capabilities(server string) (caps Capabilities, ok bool)
	// CallTimeout is the server's call timeout (0: none known).
	CallTimeout(server string) time.Duration
	// Answered is told of every server→client request the router
	// answered, once answered (for the host's audit log). It must not
	// block.
	Answered(a Answer)
	// Roots is the roots/list result plughost answers server's shared
	// connection with: its configured roots, never a client's.
	Roots(server string) json.RawMessage
}

// Answer is a server→client request the router answered: passed to the
// session that caused it, or refused (Routed false).
type Answer struct {
	// Session is the session it was passed to ("" when none).
	Session string
	// Routed is false when no session could take it: none or several
	// could have caused it, or its client does not support the method.
	Routed bool
	// Server and Method name the request, Params are its params as sent.
	Server, Method string
	Params         json.RawMessage
	// Result and Err are the answer.
	Result json.RawMessage
	Err    error
	// Began is when it came in, Took how long its answer took.
	Began time.Time
	Took  time.Duration
}

// ErrServerNotRunning is the cause of an error for a server that has no
// supervisor (not configured, disabled or invalid).
var ErrServerNotRunning = errors.New("server is not running")
