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
	// Roots is the roots/list result plughost answers server's shared
	// connection with: its configured roots, never a client's.
	Roots(server string) json.RawMessage
}

// ErrServerNotRunning is the cause of an error for a server that has no
// supervisor (not configured, disabled or invalid).
var ErrServerNotRunning = errors.New("server is not running")
