package pluginapi

import (
	"context"
	"encoding/json"
	"os"
	"time"
)

// Transport is the Go interface a transport plugin implements. A transport moves
// JSON-RPC messages between the host and one MCP server; it is not an MCP client:
// the host runs the MCP session (initialize, pagination, notifications) on top of it.
type Transport interface {
	// Describe reports the plugin's name, version and optional features.
	Describe(ctx context.Context) (Description, error)
	// Validate strictly decodes config (an unknown field is an error) without
	// connecting to anything. It returns a *Error of KindInvalidConfig on bad input.
	Validate(ctx context.Context, config json.RawMessage) error
	// Open connects to the server described by req. The returned Conn is owned by
	// the caller, who must Close it. ctx bounds the connection attempt only.
	Open(ctx context.Context, req OpenRequest) (Conn, error)
}

// Conn is one open connection to one MCP server. Send may be called from
// several goroutines; Recv is called from one reader goroutine.
type Conn interface {
	// Send delivers one JSON-RPC message (request, response or notification) to
	// the server. A deadline on ctx bounds the delivery.
	Send(ctx context.Context, msg json.RawMessage) error
	// Recv blocks until the server sends one JSON-RPC message, the connection
	// ends (io.EOF or a *Error of KindServerExited/KindPluginExited), or ctx ends.
	Recv(ctx context.Context) (json.RawMessage, error)
	// SessionID returns the transport session id, or "" when there is none.
	SessionID() string
	// Close ends the connection and releases everything it holds (for stdio,
	// the server's whole process group). It is safe to call more than once.
	Close() error
}

// OpenRequest is what a transport needs to open one connection.
type OpenRequest struct {
	// ServerName is the configured server name, for logs and error messages.
	ServerName string
	// Config is the server's configuration object as JSON (the fields of
	// `tools.mcp.servers.<name>` that the transport understands).
	Config json.RawMessage
	// WantDirectPipes asks a transport advertising FeatureDirectPipes to hand the
	// server's pipes to the host instead of relaying messages.
	WantDirectPipes bool
	// MaxMessageBytes is the largest JSON-RPC message the host accepts from
	// the server; 0 means DefaultMaxMessageBytes. A transport that reads the
	// server's messages itself fails the connection with a *Error of
	// KindMessageTooLarge past it, without buffering more of the message
	// (see LineReader), unless Spool takes it as a result; the host also
	// refuses relayed messages over it.
	MaxMessageBytes int
	// Spool, when set, is where a tools/call result over MaxMessageBytes
	// (and up to Spool.MaxBytes) is written as it is read instead of being
	// refused (see ResultSpool): by the host's own reader of a server's
	// stdout on the direct-pipes path, and by a transport that reads the
	// server's messages itself, which then relays the small result naming
	// the file. It crosses the plugin boundary in the Open frame (with Dir
	// made absolute); a plugin that ignores it keeps the message limit.
	Spool *ResultSpool
	// Credentials, when set, supplies the Authorization header of every
	// request to the server (the host holds the server's OAuth tokens). Only
	// transports advertising FeatureCredentials use it; nil means the server
	// has no OAuth.
	Credentials Credentials
}

// MessageLimit returns r.MaxMessageBytes, or DefaultMaxMessageBytes when it
// is not set.
func (r OpenRequest) MessageLimit() int {
	if r.MaxMessageBytes <= 0 {
		return DefaultMaxMessageBytes
	}
	return r.MaxMessageBytes
}

// Description identifies a transport plugin.
type Description struct {
	// Name is the transport type it serves, e.g. "stdio".
	Name string `json:"name"`
	// Version is the plugin's own version string.
	Version string `json:"version"`
	// Features lists optional capabilities (see the Feature constants).
	Features []string `json:"features,omitempty"`
}

// HasFeature reports whether d advertises feature f.
func (d Description) HasFeature(f string) bool {
	for _, x := range d.Features {
		if x == f {
			return true
		}
	}
	return false
}

// Feature names advertised in Description.Features.
const (
	// FeatureDirectPipes means Open can hand the host the server's stdin and
	// stdout (over a Unix socket, SCM_RIGHTS) so messages skip the plugin hop.
	FeatureDirectPipes = "direct-pipes"
	// FeatureDiagnostics means the plugin keeps server diagnostics (stderr tail).
	FeatureDiagnostics = "diagnostics"
	// FeatureCredentials means the transport sends the Authorization value
	// OpenRequest.Credentials supplies, and reports the server's refusals
	// (HTTP 401/403) back to it: the host can run OAuth for its server.
	FeatureCredentials = "credentials"
	// FeatureSharedProcess means one plugin process may serve the
	// connections of many servers: connections are independent (one
	// failing affects no other), each log line about a connection names
	// its server, and Diagnostics answers per connection (by the id the
	// Opened frame carries). The host then may run the servers of the
	// same plugin executable and environment in one process.
	FeatureSharedProcess = "shared-process"
)

// Diagnostics is what a transport knows about its server beyond messages.
type Diagnostics struct {
	// Stderr is the tail of the server's standard error (at most 64 KiB).
	Stderr string `json:"stderr,omitempty"`
	// PID is the server process id, 0 when there is no local process.
	PID int `json:"pid,omitempty"`
	// ExitedAt is when the server process exited, zero while it runs.
	ExitedAt time.Time `json:"exited_at,omitzero"`
	// ExitStatus describes how the server process ended ("exit status 1", "signal: killed").
	ExitStatus string `json:"exit_status,omitempty"`
	// Warnings are things the user should know about the connection, such as
	// plain HTTP to a remote host.
	Warnings []string `json:"warnings,omitempty"`
}

// DiagnosticsProvider is implemented by a Conn that can report Diagnostics.
type DiagnosticsProvider interface {
	Diagnostics() Diagnostics
}

// PipeHandoff is implemented by a Conn that can give the host its server's
// standard input and output, so messages skip the plugin hop (the
// FeatureDirectPipes fast path). The plugin keeps owning the process: it still
// watches it, keeps its stderr and kills its process group on Close.
type PipeHandoff interface {
	// HandOff returns the server's stdin (write end) and stdout (read end).
	// The caller owns the returned files. Afterwards Send fails and Recv
	// returns only when the server exits, with the exit error. It must be
	// called before the first Recv.
	HandOff() (stdin, stdout *os.File, err error)
}
