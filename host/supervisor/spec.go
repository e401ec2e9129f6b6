package supervisor

import (
	"context"
	"encoding/json"
	"time"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/oauth/tokens"
	"github.com/plughost/plughost/pluginapi"
)

// Spec is everything the supervisor needs to run one server. The host builds it
// from validated config; the supervisor applies no config rules of its own.
type Spec struct {
	// Name is the configured server name.
	Name string
	// Installer names the package runner a stdio server is started with
	// (npx, uvx …), whose first start downloads the package: until the
	// server has connected once, opening and initializing it is bounded
	// by FirstStartBound instead of the initialize timeout, and its status
	// says it is installing. "" for any other server.
	Installer string
	// Transport is the effective transport type ("stdio", "sse", "http", …).
	Transport string
	// PluginPath is the transport plugin executable; PluginSHA256 an optional pin.
	PluginPath   string
	PluginSHA256 string
	// PinSetting and ConfigPath name the config keys behind a pin mismatch
	// and an invalid server config, for messages.
	PinSetting string
	ConfigPath string
	// PluginEnv is the plugin process's whole environment.
	PluginEnv []string
	// Config is the transport's part of the server config, secrets revealed.
	Config json.RawMessage
	// Timeouts bound each phase.
	Timeouts Timeouts
	// Backoff paces restarts.
	Backoff Backoff
	// ClientVersion is reported to servers in initialize.
	ClientVersion string
	// Fallback, when set, is tried once if the server answers with
	// pluginapi.KindProtocolMismatch: the transport was auto-detected and the
	// server speaks another one. After a switch it is used for good.
	Fallback *Fallback
	// InProcess, when set, is the transport itself, running in the host
	// process: no plugin executable is started (PluginPath, PluginSHA256
	// and PluginEnv are unused). For tests and for embedders that bring
	// their own transport.
	InProcess pluginapi.Transport
	// Limits bound what the server may send.
	Limits Limits
	// Relist paces re-lists after notifications/tools/list_changed.
	Relist RelistPacing
	// Flood bounds the notifications and requests the server sends on its
	// own (zero: DefaultFloodLimit).
	Flood FloodLimit
	// Masker masks configured secrets in what the supervisor reports: last
	// errors, stderr tails, warnings, ConnectOnce's error (nil: URLs only).
	// The supervisor's logger is expected to mask its lines already.
	Masker *secret.Masker
	// DirectPipes lets a plugin that advertises pluginapi.FeatureDirectPipes
	// hand the server's stdin/stdout to the host, so calls skip the plugin hop.
	DirectPipes bool
	// Plugins, when set, is the pool the server's plugin process comes
	// from when it uses direct pipes: servers of the same plugin
	// executable and environment then share one process (see
	// PluginPool). Nil: the server has a plugin process of its own.
	Plugins *PluginPool
	// Router, when set, receives the server's notifications and its
	// requests for the client; without one, server requests other than
	// ping are answered -32601.
	Router Router
	// Auth, when set, is the server's OAuth login: the transport gets its
	// Authorization from it, and a connection refused for want of a login
	// waits for one instead of retrying.
	Auth Auth
}

// Auth is a server's OAuth login as the supervisor uses it (the host's
// tokens.Credentials).
type Auth interface {
	pluginapi.Credentials
	// Refusals counts the server's refusals that wait for the user to log
	// in; an increase during a connection attempt means it failed for that.
	Refusals() uint64
	// WaitLogin returns once the server has a usable login, or ctx ends.
	WaitLogin(ctx context.Context) error
	// Status describes the login, for status output.
	Status(ctx context.Context) tokens.Status
}

// Limits bound what a server may send.
type Limits struct {
	// MaxMessageBytes is the largest JSON-RPC message accepted from the
	// server (0: pluginapi.DefaultMaxMessageBytes); a larger one fails the
	// connection, and the server is restarted.
	MaxMessageBytes int
	// MaxMessageSetting names the setting that raises MaxMessageBytes, for
	// the error.
	MaxMessageSetting string
	// MaxResultBytes is the largest tools/call result accepted; one over
	// MaxMessageBytes but within it is spooled to a file in SpoolDir as it
	// is read (pluginapi.ResultSpool), by the host on the direct pipes and
	// by the transport plugin on a relay. 0, or not more than
	// MaxMessageBytes, spools nothing.
	MaxResultBytes int
	// MaxResultSetting names the setting that raises MaxResultBytes.
	MaxResultSetting string
	// SpoolDir is where spooled results go (the artifact store's directory
	// of MCP results).
	SpoolDir string
}

// FirstStartBound bounds opening and initializing a server started by a
// package runner (Spec.Installer) until it has connected once: npm or uv
// may spend minutes downloading the package and its dependencies.
const FirstStartBound = 5 * time.Minute

// Timeouts bound each phase of a server's life.
type Timeouts struct {
	// Start bounds launching the plugin process and its handshake.
	Start time.Duration
	// Initialize bounds opening the connection and the MCP initialize exchange.
	Initialize time.Duration
	// ListTools bounds one tools/list (all pages).
	ListTools time.Duration
	// Call bounds one tools/call.
	Call time.Duration
}

// Backoff paces restarts: the delay starts at Initial, doubles after each
// failure up to Max, and resets once a connection has stayed up for
// stableAfter.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
}

// stableAfter is how long a connection must last before a later failure is
// treated as a fresh one rather than part of a crash loop.
const stableAfter = 30 * time.Second

func (b Backoff) next(d time.Duration) time.Duration {
	if d <= 0 {
		return b.Initial
	}
	return min(2*d, b.Max)
}

// Fallback is the transport to switch to when an auto-detected one turns out
// to be wrong.
type Fallback struct {
	Transport    string
	PluginPath   string
	PluginSHA256 string
	Config       json.RawMessage
}
