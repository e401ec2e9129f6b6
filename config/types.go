package config

import (
	"encoding/json"
	"time"

	"github.com/plughost/plughost/lib/secret"
)

// Config is the effective plughost configuration. Its JSON form has the shape
// of the spec, {"tools": {"mcp": {...}}}, so users can paste existing
// snippets. Marshalling masks secrets: use it for display, never to write a
// config file back.
type Config struct {
	// MCP is the tools.mcp section.
	MCP MCP
	// Chat is the top-level chat section: the model `plughost chat` uses.
	Chat Chat
}

// fileShape is the JSON shape of a config file; the schema of every layer is
// derived from it.
type fileShape struct {
	Tools struct {
		MCP MCP `json:"mcp"`
	} `json:"tools"`
	Chat Chat `json:"chat"`
}

// MarshalJSON encodes c in the spec's shape, secrets masked; an unset chat
// section is left out.
func (c Config) MarshalJSON() ([]byte, error) {
	var f struct {
		Tools struct {
			MCP MCP `json:"mcp"`
		} `json:"tools"`
		Chat *Chat `json:"chat,omitempty"`
	}
	f.Tools.MCP = c.MCP
	if c.Chat != (Chat{}) {
		f.Chat = &c.Chat
	}
	return json.Marshal(f)
}

// UnmarshalJSON decodes the spec's shape without any schema check; use Load
// and Validate for user input.
func (c *Config) UnmarshalJSON(b []byte) error {
	var f fileShape
	f.Tools.MCP, f.Chat = c.MCP, c.Chat
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	c.MCP, c.Chat = f.Tools.MCP, f.Chat
	return nil
}

// MCP is the tools.mcp section: the global integration settings and the
// servers.
type MCP struct {
	// Enabled turns the MCP integration on.
	Enabled bool `json:"enabled"`
	// Discovery configures hiding tools behind search tools.
	Discovery Discovery `json:"discovery"`
	// MaxInlineTextChars is the head+tail character budget of a text result.
	MaxInlineTextChars int `json:"max_inline_text_chars"`
	// MaxMessageMB is the largest JSON-RPC message accepted from a server, in
	// MiB; a larger one fails that server, which is restarted. A server's
	// max_message_mb overrides it.
	MaxMessageMB int `json:"max_message_mb"`
	// MaxResultMB is the largest tools/call result accepted from a server,
	// in MiB, on every transport: a result over max_message_mb but within it
	// is spooled to an artifact file while it is read (by the host on the
	// direct pipes, by the transport plugin otherwise; never held whole in
	// memory) and the call gets a bounded view naming the file; over it,
	// the result is refused with an error naming this setting. A server's
	// max_result_mb overrides it.
	MaxResultMB int `json:"max_result_mb"`
	// Workspace is the directory holding result artifacts (~ expanded by Load).
	Workspace string `json:"workspace"`
	// Artifacts says how long saved results are kept.
	Artifacts Artifacts `json:"artifacts"`
	// Audit is the log of every call (tools.mcp.audit).
	Audit Audit `json:"audit"`
	// Trust pins, scans and approves servers' tool definitions.
	Trust Trust `json:"trust"`
	// Timeouts are the global per-phase timeouts, in seconds.
	Timeouts TimeoutSeconds `json:"timeouts"`
	// Restart paces the restarts of crashed servers.
	Restart Restart `json:"restart"`
	// Plugins says where transport plugins are found and pins their digests.
	Plugins Plugins `json:"plugins"`
	// Servers maps a server name to its config.
	Servers map[string]Server `json:"servers"`
	// Gateway configures `plughost serve`, which serves the tools as one MCP
	// server over streamable HTTP.
	Gateway Gateway `json:"gateway"`
}

// Gateway is tools.mcp.gateway: where `plughost serve` listens and how
// clients authenticate.
type Gateway struct {
	// Listen is the host:port of the HTTP listener (MCP at /mcp, plus
	// /healthz, /readyz and /metrics).
	Listen string `json:"listen"`
	// Auth requires "Authorization: Bearer <token>" on /mcp, /readyz and
	// /metrics. It may be off only on a loopback address.
	Auth bool `json:"auth"`
	// TokenFile holds the bearer token; it is created (mode 0600, random)
	// on first use (~ expanded by Load).
	TokenFile string `json:"token_file"`
	// SessionIdleMinutes ends a session no request touched for that long:
	// its unlocks are forgotten and an HTTP client must initialize again.
	SessionIdleMinutes float64 `json:"session_idle_minutes"`
	// MaxRequestMB caps the body of one HTTP request; a larger one is
	// refused with 413 and a JSON-RPC error.
	MaxRequestMB float64 `json:"max_request_mb"`
	// ReadTimeoutSeconds bounds reading one request, headers and body (a
	// slow sender is cut off); it does not bound the call the request makes.
	ReadTimeoutSeconds float64 `json:"read_timeout_seconds"`
	// IdleTimeoutSeconds closes a keep-alive connection idle that long.
	IdleTimeoutSeconds float64 `json:"idle_timeout_seconds"`
	// Debug serves Go's runtime profiles (net/http/pprof) at /debug/pprof/,
	// behind the token: the named profiles (the reliability suite reads the
	// heap after a collection there), a CPU profile and an execution trace
	// (frontdoor.Door.MountProfiles). Off by default.
	Debug bool `json:"debug"`
	// ShutdownSeconds is how long a stopping gateway waits for calls in
	// flight to finish before it closes the servers.
	ShutdownSeconds float64 `json:"shutdown_seconds"`
	// DrainSeconds is how long a stopping gateway keeps serving every
	// request while /readyz answers 503 ("draining"), before it stops
	// accepting connections: the time a load balancer or a Kubernetes
	// Service needs to stop sending it requests. 0 (the default) stops at
	// once.
	DrainSeconds float64 `json:"drain_seconds"`
	// AllowedOrigins lists the web pages, besides plughost's own, that may
	// use the MCP endpoints from a browser: origins written
	// scheme://host[:port] (e.g. "http://localhost:6274"). A request
	// carrying any other Origin is refused with 403 (package
	// lib/origin has the rule).
	AllowedOrigins []string `json:"allowed_origins"`
	// Store says where the sessions' state is kept: in this process (the
	// default) or in Redis, shared by every replica that uses it.
	Store Store `json:"store"`
	// Clients are the named clients besides the administrator: each has
	// its own token and sees only its servers and tools (see Client).
	Clients map[string]Client `json:"clients,omitempty"`
}

// Session store types of tools.mcp.gateway.store.type.
const (
	// StoreMemory keeps sessions in the process (the default).
	StoreMemory = "memory"
	// StoreRedis keeps sessions in Redis, shared by replicas.
	StoreRedis = "redis"
)

// Store is tools.mcp.gateway.store: where the gateway's sessions
// (their unlocks, turns left and client facts) are kept.
type Store struct {
	// Type is "memory" (or empty: sessions live as long as this process)
	// or "redis" (any replica using the same Redis serves any session).
	Type string `json:"type"`
	// URL locates Redis: redis://[[user]:password@]host:port/db, or
	// rediss:// for TLS. Its password is masked wherever it is shown.
	URL secret.URL `json:"url,omitempty"`
	// Prefix starts every Redis key and channel plughost uses, so several
	// deployments can share one Redis.
	Prefix string `json:"prefix,omitempty"`
	// TLSCAFile is a PEM file of the CAs that sign Redis's certificate,
	// for a rediss:// URL; empty trusts the system's CAs.
	TLSCAFile string `json:"tls_ca_file,omitempty"`
	// TLSCertFile and TLSKeyFile are PEM files of the certificate and key
	// plughost presents to a Redis that requires client certificates
	// (mutual TLS), for a rediss:// URL; both or neither.
	TLSCertFile string `json:"tls_cert_file,omitempty"`
	TLSKeyFile  string `json:"tls_key_file,omitempty"`
	// SkipVerify is refused: without verifying Redis's certificate, anyone
	// on the path can pose as Redis and read its password and every
	// session. It exists so that the refusal says why and what to do
	// (TLSCAFile).
	SkipVerify bool `json:"skip_verify,omitempty"`
}

// Kind returns the effective store type: StoreMemory when Type is empty.
func (s Store) Kind() string {
	if s.Type == "" {
		return StoreMemory
	}
	return s.Type
}

// SessionIdle returns SessionIdleMinutes as a duration.
func (g Gateway) SessionIdle() time.Duration { return minutes(g.SessionIdleMinutes) }

// MaxRequestBytes returns MaxRequestMB in bytes.
func (g Gateway) MaxRequestBytes() int64 { return int64(g.MaxRequestMB * (1 << 20)) }

// ReadTimeout returns ReadTimeoutSeconds as a duration.
func (g Gateway) ReadTimeout() time.Duration { return seconds(g.ReadTimeoutSeconds) }

// IdleTimeout returns IdleTimeoutSeconds as a duration.
func (g Gateway) IdleTimeout() time.Duration { return seconds(g.IdleTimeoutSeconds) }

// ShutdownTimeout returns ShutdownSeconds as a duration.
func (g Gateway) ShutdownTimeout() time.Duration { return seconds(g.ShutdownSeconds) }

// Drain returns DrainSeconds as a duration.
func (g Gateway) Drain() time.Duration { return seconds(g.DrainSeconds) }

func minutes(m float64) time.Duration { return time.Duration(m * float64(time.Minute)) }

// Discovery is tools.mcp.discovery.
type Discovery struct {
	// Enabled hides the tools of deferred servers behind the search tools.
	Enabled bool `json:"enabled"`
	// TTL is the number of turns a discovered tool stays unlocked.
	TTL int `json:"ttl"`
	// MaxSearchResults caps the tools one search returns.
	MaxSearchResults int `json:"max_search_results"`
	// UseBM25 registers tool_search_tool_bm25.
	UseBM25 bool `json:"use_bm25"`
	// UseRegex registers tool_search_tool_regex.
	UseRegex bool `json:"use_regex"`
	// Semantic adds a semantic signal to the BM25 search.
	Semantic Semantic `json:"semantic"`
}

// Semantic is tools.mcp.discovery.semantic: vectors beside BM25 (see
// docs/architecture.md "Discovery").
type Semantic struct {
	// WordVectors is "off" (or empty, the default), "auto" (the word-vector file
	// `make` installs next to plughost, or $PLUGHOST_WORDVEC) or the path
	// of a word-vector file. A missing file leaves search lexical, with a
	// log line.
	WordVectors string `json:"word_vectors"`
	// Endpoint is an optional OpenAI-compatible embeddings API.
	Endpoint EmbeddingEndpoint `json:"endpoint"`
}

// EmbeddingEndpoint is tools.mcp.discovery.semantic.endpoint: an
// OpenAI-compatible /v1/embeddings API (Ollama, llama.cpp, vLLM, OpenAI).
// It is used only when URL is set.
type EmbeddingEndpoint struct {
	// URL is the API's base URL, e.g. http://127.0.0.1:11434/v1;
	// "/embeddings" is appended.
	URL string `json:"url"`
	// Model is the embedding model's name.
	Model string `json:"model"`
	// APIKeyEnv names the environment variable holding the API key (sent
	// as a bearer token); empty sends none.
	APIKeyEnv string `json:"api_key_env"`
	// TimeoutSeconds bounds each call (0: 2 seconds).
	TimeoutSeconds float64 `json:"timeout_seconds"`
}

// TimeoutSeconds is tools.mcp.timeouts: the global timeout of each phase, in
// seconds (fractions allowed).
type TimeoutSeconds struct {
	// Start bounds launching a transport plugin.
	Start float64 `json:"start_seconds"`
	// Initialize bounds connecting and the MCP initialize exchange.
	Initialize float64 `json:"initialize_seconds"`
	// ListTools bounds one tools/list.
	ListTools float64 `json:"list_tools_seconds"`
	// Call bounds one tools/call.
	Call float64 `json:"call_seconds"`
}

// Durations converts t to durations.
func (t TimeoutSeconds) Durations() Timeouts {
	return Timeouts{
		Start:      seconds(t.Start),
		Initialize: seconds(t.Initialize),
		ListTools:  seconds(t.ListTools),
		Call:       seconds(t.Call),
	}
}

// TimeoutOverrides is a server's timeouts object: each field, when set,
// replaces the global value of that phase.
type TimeoutOverrides struct {
	// Start overrides tools.mcp.timeouts.start_seconds.
	Start *float64 `json:"start_seconds,omitempty"`
	// Initialize overrides tools.mcp.timeouts.initialize_seconds.
	Initialize *float64 `json:"initialize_seconds,omitempty"`
	// ListTools overrides tools.mcp.timeouts.list_tools_seconds.
	ListTools *float64 `json:"list_tools_seconds,omitempty"`
	// Call overrides tools.mcp.timeouts.call_seconds.
	Call *float64 `json:"call_seconds,omitempty"`
}

// Timeouts are effective per-phase timeouts.
type Timeouts struct {
	// Start bounds launching a transport plugin and its handshake.
	Start time.Duration
	// Initialize bounds connecting and the MCP initialize exchange.
	Initialize time.Duration
	// ListTools bounds one tools/list.
	ListTools time.Duration
	// Call bounds one tools/call.
	Call time.Duration
}

// Restart is tools.mcp.restart: exponential backoff between restarts of a
// crashed server.
type Restart struct {
	// InitialBackoffSeconds is the first delay.
	InitialBackoffSeconds float64 `json:"initial_backoff_seconds"`
	// MaxBackoffSeconds caps the delay.
	MaxBackoffSeconds float64 `json:"max_backoff_seconds"`
}

// InitialBackoff returns InitialBackoffSeconds as a duration.
func (r Restart) InitialBackoff() time.Duration { return seconds(r.InitialBackoffSeconds) }

// MaxBackoff returns MaxBackoffSeconds as a duration.
func (r Restart) MaxBackoff() time.Duration { return seconds(r.MaxBackoffSeconds) }

// Artifacts is tools.mcp.artifacts: the retention of the full payloads of
// oversized results under <workspace>/.artifacts.
type Artifacts struct {
	// MaxAgeHours removes artifacts older than this many hours.
	MaxAgeHours float64 `json:"max_age_hours"`
	// MaxTotalMB removes the oldest artifacts while all of them together
	// take more than this many mebibytes.
	MaxTotalMB float64 `json:"max_total_mb"`
	// SearchTimeoutSeconds bounds one search_files call; it then returns
	// what it found with a note.
	SearchTimeoutSeconds float64 `json:"search_timeout_seconds"`
	// SearchMaxMB bounds how many mebibytes one search_files call reads.
	SearchMaxMB float64 `json:"search_max_mb"`
}

// SearchTimeout returns SearchTimeoutSeconds as a duration.
func (a Artifacts) SearchTimeout() time.Duration { return seconds(a.SearchTimeoutSeconds) }

// SearchMaxBytes returns SearchMaxMB in bytes.
func (a Artifacts) SearchMaxBytes() int64 { return mebibytes(a.SearchMaxMB) }

// MaxAge returns MaxAgeHours as a duration.
func (a Artifacts) MaxAge() time.Duration { return seconds(a.MaxAgeHours * 3600) }

// MaxTotalBytes returns MaxTotalMB in bytes.
func (a Artifacts) MaxTotalBytes() int64 { return mebibytes(a.MaxTotalMB) }

// mebibytes converts MiB to bytes, saturating instead of overflowing; NaN
// and negative values become 0.
func mebibytes(mb float64) int64 {
	const maxMB = float64(1<<63-1) / (1 << 20)
	if !(mb > 0) {
		return 0
	}
	if mb >= maxMB {
		return 1<<63 - 1
	}
	return int64(mb * (1 << 20))
}

// Plugins is tools.mcp.plugins.
type Plugins struct {
	// Dirs are searched in order for mcp-transport-<type> executables. Empty
	// means the built-in default (plugins/ beside the binary, then
	// ~/.plughost/plugins). Load expands a leading ~.
	Dirs []string `json:"dirs"`
	// SHA256 pins a transport type's plugin executable to a hex sha256 digest.
	SHA256 map[string]string `json:"sha256"`
}

// Server is one entry of tools.mcp.servers.
type Server struct {
	// Enabled turns the server on. It is required in the config file.
	Enabled bool `json:"enabled"`
	// DeferredOverride is the per-server "deferred" setting; nil when omitted.
	// Use the Deferred method for the effective value.
	DeferredOverride *bool `json:"deferred,omitempty"`
	// Type is the transport as written ("" means auto-detect). Use the
	// Transport method for the effective value.
	Type string `json:"type,omitempty"`
	// Command is the executable of a stdio server.
	Command string `json:"command,omitempty"`
	// Args are the arguments of a stdio server.
	Args []string `json:"args,omitempty"`
	// Env sets environment variables of a stdio server.
	Env map[string]secret.String `json:"env,omitempty"`
	// EnvFile is an environment file for a stdio server (~ expanded by Load;
	// relative paths are relative to the config file's directory).
	EnvFile string `json:"env_file,omitempty"`
	// InheritEnv passes the host's whole environment to a stdio server.
	InheritEnv bool `json:"inherit_env,omitempty"`
	// URL is the endpoint of an sse or http server. It may carry
	// credentials (user:password@, a secret query parameter), so it masks
	// them whenever it is printed or marshalled; Reveal returns it.
	URL secret.URL `json:"url,omitempty"`
	// Headers are sent with every request of an sse or http server.
	Headers map[string]secret.String `json:"headers,omitempty"`
	// OAuth enables browser login for a remote server.
	OAuth *OAuth `json:"oauth,omitempty"`
	// TimeoutOverrides replaces global timeouts for this server. Use the
	// Timeouts method for the effective values.
	TimeoutOverrides TimeoutOverrides `json:"timeouts,omitzero"`
	// MaxMessageMBOverride replaces tools.mcp.max_message_mb for this
	// server; nil when omitted. Use the MaxMessageBytes method.
	MaxMessageMBOverride *int `json:"max_message_mb,omitempty"`
	// MaxResultMBOverride replaces tools.mcp.max_result_mb for this server;
	// nil when omitted. Use the MaxResultBytes method.
	MaxResultMBOverride *int `json:"max_result_mb,omitempty"`
	// Isolation is "shared" (one upstream connection for every session;
	// the default when "") or "session" (each session its own). Use the
	// IsolationMode method for the effective value.
	Isolation string `json:"isolation,omitempty"`
	// IsolationIdleSeconds closes a session's own connection after this
	// long unused (0: DefaultIsolationIdleSeconds). Use IsolationIdle.
	IsolationIdleSeconds int `json:"isolation_idle_seconds,omitempty"`
	// MaxSessions bounds the session connections open at once with
	// isolation "session" (0: DefaultMaxSessions). Use SessionLimit.
	MaxSessions int `json:"max_sessions,omitempty"`
	// Roots are what plughost answers the server's roots/list with on a
	// shared connection: absolute directory paths or file:// URIs. A
	// client's roots never reach a shared connection.
	Roots []string `json:"roots,omitempty"`
	// IncludeTools, when set, shows only the server's tools whose own
	// names match one of these globs (path.Match syntax: * ? [a-z]);
	// the others are hidden from every client.
	IncludeTools []string `json:"include_tools,omitempty"`
	// ExcludeTools hides the server's tools whose own names match one of
	// these globs, from every client.
	ExcludeTools []string `json:"exclude_tools,omitempty"`
	// Trust is "pin", "approve" or "off" ("" for tools.mcp.trust.mode).
	// Use the TrustMode method for the effective value.
	Trust string `json:"trust,omitempty"`
	// TrustScan is "warn" or "quarantine" ("" for tools.mcp.trust.scan).
	// Use the ScanMode method for the effective value.
	TrustScan string `json:"trust_scan,omitempty"`
	// Extra holds the keys this schema does not know, each with its raw JSON
	// value (a secret, since it may hold one). They are kept for servers of
	// third-party transport types, whose plugin receives (and validates) them;
	// for built-in types they are reported as unknown keys. Extra is not
	// marshalled.
	Extra map[string]secret.String `json:"-"`
}

// UnmarshalJSON decodes a server, keeping unknown keys in Extra.
func (s *Server) UnmarshalJSON(b []byte) error {
	type plain Server // plain has no methods, so this does not recurse
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	known := serverKeys()
	for k, v := range all {
		if known[k] {
			continue
		}
		if p.Extra == nil {
			p.Extra = map[string]secret.String{}
		}
		p.Extra[k] = secret.String(v)
	}
	*s = Server(p)
	return nil
}

// OAuth is a server's oauth object; {} enables browser login with dynamic
// client registration.
type OAuth struct {
	// ClientID is a pre-registered client id (dynamic registration if empty).
	ClientID string `json:"client_id,omitempty"`
	// ClientSecret is the pre-registered client's secret, if it has one.
	ClientSecret secret.String `json:"client_secret,omitempty"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// describing plughost, used as the client id by authorization servers
	// that support such documents (instead of registering a client).
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// Issuer overrides the authorization server discovered from the server.
	Issuer string `json:"issuer,omitempty"`
	// Scopes are the scopes requested.
	Scopes []string `json:"scopes,omitempty"`
	// CallbackPort fixes the local redirect port (0: any free port).
	CallbackPort int `json:"callback_port,omitempty"`
}

// seconds converts a number of seconds to a duration, saturating instead of
// overflowing; NaN and negative values become 0.
func seconds(s float64) time.Duration {
	const maxSeconds = float64(1<<63-1) / float64(time.Second)
	switch {
	case !(s > 0):
		return 0
	case s >= maxSeconds:
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(s * float64(time.Second))
}
