package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/loglimit"
	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/secret"
	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/host/tokens"
	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/search"
)

// Options configure a Host beyond its config.
type Options struct {
	// ConfigDir resolves relative paths in the config (env_file); "" means the
	// working directory.
	ConfigDir string
	// Environ is the host's environment ("KEY=value"), the source of what
	// stdio servers inherit (the allowlist, or everything for inherit_env).
	// nil means os.Environ().
	Environ []string
	// PluginDirs overrides where transport plugins are searched; nil means
	// tools.mcp.plugins.dirs, else plugindir.DefaultDirs.
	PluginDirs []string
	// Logger receives the host's logs; nil discards them.
	Logger hclog.Logger
	// Version is reported to servers as the client version.
	Version string
	// RelayOnly turns off the direct-pipes fast path: every message goes
	// through the plugin process (for comparison and diagnosis).
	RelayOnly bool
	// TokenStore keeps the OAuth logins of servers; nil means one file per
	// server under DefaultTokenDir of the user's home.
	TokenStore tokens.Store
	// SessionStore keeps the sessions' state; nil means an in-memory store
	// whose sessions expire after tools.mcp.gateway.session_idle_minutes.
	SessionStore SessionStore
	// Transports serves transport types in process: a server whose type is
	// a key here talks through that pluginapi.Transport inside the host
	// instead of a plugin executable (for tests, and for embedders that
	// bring their own transport).
	Transports map[string]pluginapi.Transport
}

// Host runs the configured MCP servers. Create it with New, then Start it;
// it is safe for concurrent use.
type Host struct {
	cfg       *config.Config
	opts      Options
	logger    hclog.Logger
	registry  *registry.Registry
	rules     *discovery.Rules
	index     *search.Index // nil with discovery off
	indexMu   sync.Mutex    // serializes reindex
	indexed   map[string][]string
	order     []string // every configured server, sorted
	servers   map[string]*supervisor.Server
	inactive  map[string]supervisor.Status // disabled or invalid entries
	store     *artifacts.Store             // saved results (the workspace)
	masker    *secret.Masker               // every configured secret value
	call      shaping.Handler              // every MCP tool call goes through it
	metrics   shaping.Metrics
	auth      *tokens.Manager                // OAuth logins
	creds     map[string]*tokens.Credentials // servers with oauth
	largeDone chan struct{}                  // signals returnMemory after a large call
	sessions  SessionStore
	unlocks   atomic.Int64 // tools unlocked by searches and exact-name calls
	relay     *relay       // what servers send on their own, to sessions
	fetched                // the shaping chain of results fetched outside a call

	viewMu sync.Mutex                     // serializes building views
	viewAt atomic.Pointer[discovery.View] // the view of the current snapshot

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	cancel  context.CancelFunc
	running sync.WaitGroup
	closed  bool
}

// New validates cfg and prepares a Host; nothing is started until Start. A
// global config problem (e.g. discovery on with no search engine) is an
// error; a bad server entry only marks that server invalid.
func New(cfg *config.Config, opts Options) (*Host, error) {
	if cfg == nil {
		return nil, errors.New("host: nil config")
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	dirs := pluginDirs(cfg, opts)
	return newHost(cfg, config.Validate(cfg, config.ValidateOptions{ExtraTypes: config.ThirdPartyTypes(cfg)}), dirs, opts)
}

// NewFromLoaded is New for a configuration from config.Load: it also reports
// what only the raw layers show (unknown keys, wrong JSON types, a server
// without "enabled").
func NewFromLoaded(l *config.Loaded, opts Options) (*Host, error) {
	if l == nil || l.Config == nil {
		return nil, errors.New("host: nil config")
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	dirs := pluginDirs(l.Config, opts)
	return newHost(l.Config, l.Validate(config.ValidateOptions{ExtraTypes: config.ThirdPartyTypes(l.Config)}), dirs, opts)
}

func newHost(cfg *config.Config, problems config.Problems, dirs []string, opts Options) (*Host, error) {
	if err := problems.Err(); err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	masker := config.NewMasker(cfg, opts.ConfigDir)
	h := &Host{
		cfg:       cfg,
		opts:      opts,
		masker:    masker,
		logger:    loglimit.New(masker.Logger(opts.Logger), loglimit.Options{}),
		registry:  registry.New(),
		servers:   map[string]*supervisor.Server{},
		inactive:  map[string]supervisor.Status{},
		changed:   make(chan struct{}),
		indexed:   map[string][]string{},
		creds:     map[string]*tokens.Credentials{},
		largeDone: make(chan struct{}, 1),
		sessions:  opts.SessionStore,
	}
	if h.sessions == nil {
		h.sessions = NewMemorySessionStore(MemorySessionStoreOptions{IdleTimeout: cfg.MCP.Gateway.SessionIdle()})
	}
	h.relay = newRelay(h)
	h.auth = newAuth(opts.TokenStore, h.logger)
	if err := h.newRules(); err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	if err := h.newShaping(); err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	for name, srv := range cfg.MCP.Servers {
		h.order = append(h.order, name)
		h.addServer(name, srv, problems.ServerErr(name), dirs)
	}
	sort.Strings(h.order)
	return h, nil
}

func (h *Host) addServer(name string, srv config.Server, problem error, dirs []string) {
	inactive := func(state supervisor.State, reason string) {
		h.inactive[name] = supervisor.Status{Name: name, State: state, Transport: srv.Transport(), LastError: h.masker.Mask(reason)}
	}
	creds := h.addCredentials(name, srv, problem)
	switch {
	case !h.cfg.MCP.Enabled:
		inactive(supervisor.StateDisabled, "tools.mcp.enabled is false")
		return
	case !srv.Enabled:
		inactive(supervisor.StateDisabled, "")
		return
	case problem != nil:
		inactive(supervisor.StateInvalid, problem.Error())
		return
	}
	spec, err := h.spec(name, srv, dirs)
	if err != nil {
		inactive(supervisor.StateInvalid, err.Error())
		return
	}
	if creds != nil {
		spec.Auth = creds
	}
	h.servers[name] = supervisor.New(spec, h.logger, func() { h.serverChanged(name) })
}

// spec turns a validated server entry into what the supervisor runs.
func (h *Host) spec(name string, srv config.Server, dirs []string) (supervisor.Spec, error) {
	typ := srv.Transport()
	inProcess := h.opts.Transports[typ]
	path, err := plugindir.Locate(typ, dirs)
	if err != nil && inProcess == nil {
		return supervisor.Spec{}, fmt.Errorf("%s: %w", config.ServerPath(name, "type"), err)
	}
	tcfg, err := srv.TransportConfig(h.opts.ConfigDir)
	if err != nil {
		return supervisor.Spec{}, fmt.Errorf("server %q: %w", name, err)
	}
	env := pluginapi.BaseEnviron(h.opts.Environ)
	if srv.InheritEnv {
		env = append([]string(nil), h.opts.Environ...)
	}
	t := srv.Timeouts(h.cfg.MCP.Timeouts.Durations())
	var fallback *supervisor.Fallback
	if inProcess == nil {
		if fallback, tcfg, err = autoDetectFallback(srv, tcfg, dirs, h.cfg.MCP.Plugins.SHA256); err != nil {
			return supervisor.Spec{}, fmt.Errorf("server %q: %w", name, err)
		}
	}
	return supervisor.Spec{
		Fallback:      fallback,
		PinSetting:    "tools.mcp.plugins.sha256." + typ,
		ConfigPath:    config.ServerPath(name),
		Name:          name,
		Transport:     typ,
		PluginPath:    path,
		PluginSHA256:  h.cfg.MCP.Plugins.SHA256[typ],
		PluginEnv:     env,
		Config:        tcfg,
		Timeouts:      supervisor.Timeouts{Start: t.Start, Initialize: t.Initialize, ListTools: t.ListTools, Call: t.Call},
		Backoff:       supervisor.Backoff{Initial: h.cfg.MCP.Restart.InitialBackoff(), Max: h.cfg.MCP.Restart.MaxBackoff()},
		ClientVersion: h.opts.Version,
		DirectPipes:   !h.opts.RelayOnly,
		InProcess:     inProcess,
		Masker:        h.masker,
		Limits:        supervisor.Limits{MaxMessageBytes: srv.MaxMessageBytes(h.cfg.MCP.MaxMessageMB), MaxMessageSetting: srv.MaxMessageSetting(name)},
		Relay:         h.relay,
	}, nil
}

// sseProbeSeconds bounds the wait for the legacy SSE endpoint event when the
// transport was auto-detected: a streamable-HTTP server may accept the GET
// and never announce an endpoint, and then streamable HTTP is tried.
const sseProbeSeconds = 5

// autoDetectFallback prepares the spec's rule for a url without a type: try
// sse first, and if the server refuses the legacy handshake in a way that
// shows it speaks streamable HTTP, use http. An explicit type is never
// second-guessed.
func autoDetectFallback(srv config.Server, tcfg json.RawMessage, dirs []string, pins map[string]string) (*supervisor.Fallback, json.RawMessage, error) {
	if srv.Type != "" || srv.Transport() != config.TransportSSE {
		return nil, tcfg, nil
	}
	path, err := plugindir.Locate(config.TransportHTTP, dirs)
	if err != nil {
		return nil, tcfg, nil // no http plugin: sse alone, as configured
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(tcfg, &fields); err != nil {
		return nil, nil, fmt.Errorf("transport config: %w", err)
	}
	fb := &supervisor.Fallback{Transport: config.TransportHTTP, PluginPath: path, PluginSHA256: pins[config.TransportHTTP], Config: tcfg}
	fields["endpoint_timeout_seconds"] = json.RawMessage(strconv.Itoa(sseProbeSeconds))
	probe, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, fmt.Errorf("transport config: %w", err)
	}
	return fb, probe, nil
}

// PluginSearchDirs returns the dirs a host built from cfg with default
// Options searches for third-party transport plugins, in order.
func PluginSearchDirs(cfg *config.Config) []string { return pluginDirs(cfg, Options{}) }

func pluginDirs(cfg *config.Config, opts Options) []string {
	if opts.PluginDirs != nil {
		return opts.PluginDirs
	}
	if len(cfg.MCP.Plugins.Dirs) > 0 {
		return cfg.MCP.Plugins.Dirs
	}
	exe, _ := os.Executable()
	home, _ := os.UserHomeDir()
	return plugindir.DefaultDirs(exe, home)
}

// Start launches every enabled server in parallel and returns at once; the
// host is usable while servers come up. It also starts artifact retention
// (old saved results are removed now and every few minutes). Everything
// stops when Close is called.
func (h *Host) Start(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil || h.closed {
		return
	}
	ctx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		h.runRetention(ctx)
	}()
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		h.returnMemory(ctx)
	}()
	for _, s := range h.servers {
		h.running.Add(1)
		go func() {
			defer h.running.Done()
			s.Run(ctx)
		}()
	}
}

// Close stops every server and plugin and waits until they are gone.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	cancel := h.cancel
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	h.running.Wait()
	loglimit.Flush(h.logger)
	if h.index != nil {
		return h.index.Close()
	}
	return nil
}

func (h *Host) serverChanged(name string) {
	s := h.servers[name]
	if defs := s.Definitions(); defs != nil || !keepsTools(s.Status()) {
		h.registry.SetServer(name, defs)
	}
	h.reindex()
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// keepsTools reports whether a server without a live tool list keeps the
// definitions it last listed: while it is down — crashed, failing, being
// restarted — its tools stay known (a call explains that the server is
// down), so clients' lists and prompt caches do not flap with every
// restart. A server that is stopped, invalid or disabled drops them.
func keepsTools(st supervisor.Status) bool {
	switch st.State {
	case supervisor.StateStopped, supervisor.StateInvalid, supervisor.StateDisabled:
		return false
	}
	return true
}

// view returns the discovery view of the current snapshot, building it once
// per snapshot (and rules): every session shares it.
func (h *Host) view() *discovery.View {
	snap := h.registry.Snapshot()
	if v := h.viewAt.Load(); v != nil && v.Snapshot() == snap && v.Rules() == h.rules {
		return v
	}
	h.viewMu.Lock()
	defer h.viewMu.Unlock()
	snap = h.registry.Snapshot()
	if v := h.viewAt.Load(); v != nil && v.Snapshot() == snap && v.Rules() == h.rules {
		return v
	}
	v := h.rules.NewView(snap, append(h.rules.SearchToolDefs(), pagingTools()...))
	h.viewAt.Store(v)
	return v
}

// UnlockCount returns how many tools sessions unlocked so far, by searches
// and exact-name calls (a renewal does not count).
func (h *Host) UnlockCount() int64 { return h.unlocks.Load() }

// Changed returns a channel closed at the next status or tool change.
func (h *Host) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Statuses returns every configured server's status, sorted by name.
func (h *Host) Statuses() []supervisor.Status {
	out := make([]supervisor.Status, 0, len(h.order))
	for _, name := range h.order {
		st, _ := h.Status(name)
		out = append(out, st)
	}
	return out
}

// Status returns one server's status.
func (h *Host) Status(name string) (supervisor.Status, bool) {
	if s, ok := h.servers[name]; ok {
		return h.withAuth(s.Status()), true
	}
	st, ok := h.inactive[name]
	return h.withAuth(st), ok
}

// Server returns the supervisor of a running server.
func (h *Host) Server(name string) (*supervisor.Server, bool) {
	s, ok := h.servers[name]
	return s, ok
}

// WaitSettled blocks until no server is connecting (each is connected or has
// failed at least once) or ctx ends.
func (h *Host) WaitSettled(ctx context.Context) error {
	for {
		ch := h.Changed()
		if !h.anyConnecting() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (h *Host) anyConnecting() bool {
	for _, s := range h.servers {
		if st := s.Status(); st.State == supervisor.StateConnecting && st.Restarts == 0 {
			return true
		}
	}
	return false
}

// Registry returns the current tool snapshot of every connected server.
func (h *Host) Registry() *registry.Snapshot { return h.registry.Snapshot() }
