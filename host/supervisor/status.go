package supervisor

import (
	"time"

	"github.com/plughost/plughost/oauth/tokens"
)

// State is where a server is in its lifecycle.
type State string

// States a server can be in.
const (
	// StateDisabled: `enabled: false` in config; never started.
	StateDisabled State = "disabled"
	// StateInvalid: its config is wrong; never started until fixed.
	StateInvalid State = "invalid"
	// StateConnecting: plugin starting, initialize or tools/list under way.
	StateConnecting State = "connecting"
	// StateConnected: up, tools listed.
	StateConnected State = "connected"
	// StateError: the last attempt failed or the server crashed; a restart is
	// scheduled (see Status.NextRetry).
	StateError State = "error"
	// StateNeedsLogin: the server refused to connect without an OAuth login
	// (or with more scope); it connects once the user logs in
	// (`plughost mcp login`).
	StateNeedsLogin State = "needs login"
	// StateStopped: shut down by the host.
	StateStopped State = "stopped"
)

// Status is a snapshot of one server, safe to copy and print.
type Status struct {
	Name      string `json:"name"`
	State     State  `json:"state"`
	Transport string `json:"transport"`
	// Tools is how many tools the server lists (when connected).
	Tools int `json:"tools"`
	// Installing names the package runner (npx, uvx …) of a server
	// connecting for the first time, which may be downloading its package
	// for minutes (up to FirstStartBound); "" otherwise.
	Installing string `json:"installing,omitempty"`
	// LastError is the most recent failure, kept after recovery for diagnosis.
	LastError string `json:"last_error,omitempty"`
	// Restarts counts restarts after a crash or failed attempt.
	Restarts int `json:"restarts"`
	// Since is when State last changed.
	Since time.Time `json:"since"`
	// NextRetry is when the next attempt starts, in StateError.
	NextRetry time.Time `json:"next_retry,omitzero"`
	// StartupDuration is how long the last successful connect took
	// (plugin start + initialize + tools/list).
	StartupDuration time.Duration `json:"startup_ns,omitempty"`
	// ServerName and ServerVersion are what the server reported in initialize.
	ServerName    string `json:"server_name,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	// ProtocolVersion is the negotiated MCP protocol version.
	ProtocolVersion string `json:"protocol_version,omitempty"`
	// TransportNote explains an automatic transport choice, e.g. that the
	// server refused legacy SSE and streamable HTTP is used instead.
	TransportNote string `json:"transport_note,omitempty"`
	// Warnings are things to know about the connection (plain HTTP to a
	// remote host …), reported by the transport.
	Warnings []string `json:"warnings,omitempty"`
	// ConfigError is set while the server's entry in the config is invalid
	// and the server keeps running its previous settings: it says so and
	// gives each problem with its JSON path (the host sets it).
	ConfigError string `json:"config_error,omitempty"`
	// Throttle is set while the server sends more notifications and
	// requests than its FloodLimit allows: it says since when they are read
	// at the limit's rate.
	Throttle string `json:"throttle,omitempty"`
	// Path says how messages travel: "direct-pipes" (the host talks to the
	// server's stdio itself) or "relay" (through the plugin process).
	Path string `json:"path,omitempty"`
	// PluginPID and ServerPID identify the processes (0 when unknown).
	PluginPID int `json:"plugin_pid,omitempty"`
	ServerPID int `json:"server_pid,omitempty"`
	// SessionConnections counts the sessions' own connections open to a
	// server with isolation "session" (the host sets it).
	SessionConnections int `json:"session_connections,omitempty"`
	// Auth is the OAuth login state of a server with oauth (nil otherwise).
	Auth *tokens.Status `json:"auth,omitempty"`
}
