package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/audit"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/sessionconn"
	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/lib/callstats"
	"github.com/plughost/plughost/lib/loglimit"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/oauth/tokens"
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
	// ReturnMemoryAfterLargeResults makes the host, after a tool call whose
	// result held 8 MiB or more (and after applying a config of 1,000
	// servers or more), force two garbage collections and return
	// the freed pages to the operating system (runtime.GC,
	// debug.FreeOSMemory; one return for concurrent calls, 100 ms after
	// the last). Without it a process that served one large result keeps
	// its pages until the next collection, which an idle gateway may not
	// run for minutes. It is off by default because both are process-wide:
	// they pause every goroutine of the program embedding the host, and a
	// library should not make that choice for it. The plughost binary
	// turns it on (it is a process of its own, whose idle memory is what
	// users see); an embedder that wants the same turns it on too.
	ReturnMemoryAfterLargeResults bool
	// TokenStore keeps the OAuth logins of servers; nil means one file per
	// server under DefaultTokenDir of the user's home.
	TokenStore tokens.Store
	// SessionStore keeps the sessions' state; nil means an in-memory store
	// whose sessions expire after tools.mcp.gateway.session_idle_minutes,
	// which is an error when tools.mcp.gateway.store asks for Redis (pass
	// the store redisstore.Open returns). Close closes it when it is an
	// io.Closer: the host owns it.
	SessionStore SessionStore
	// PinStore keeps the pins of tool trust (approved tool definitions);
	// nil means the session store's when it is a PinStoreProvider
	// (redisstore: shared by every replica), else tools.mcp.trust.pins_file;
	// trust.NewMemoryStore keeps them for this process only.
	PinStore trust.Store
	// Transports serves transport types in process: a server whose type is
	// a key here talks through that pluginapi.Transport inside the host
	// instead of a plugin executable (for tests, and for embedders that
	// bring their own transport).
	Transports map[string]pluginapi.Transport
	// TaskListPage is the most tasks one tasks/list answer holds (the rest
	// follow its nextCursor); 0 means DefaultTaskListPage.
	TaskListPage int
}

// Host runs the configured MCP servers. Create it with New, then Start it;
// Apply changes its configuration while it runs. It is safe for concurrent
// use.
type Host struct {
	opts      Options
	logger    hclog.Logger
	registry  *registry.Registry
	masker    *secret.Masker // every secret any config applied held; never forgets one
	metrics   shaping.Metrics
	calls     *callstats.Recorder // per-server calls and latency, for front ends
	auth      *tokens.Manager     // OAuth logins
	largeDone chan struct{}       // signals returnMemory after a large call
	freeOS    func()              // what returnMemory runs: freeOSMemory, or a test's hook
	returns   atomic.Int64        // memory returns asked for (afterLargeCall)
	sessions  SessionStore
	unlocks   atomic.Int64           // tools unlocked by searches and exact-name calls
	router    *routing.Router        // ties what servers send on their own to sessions
	plugins   *supervisor.PluginPool // stdio plugin processes shared by servers on direct pipes
	audit     *audit.Log             // the audit log; nil when off
	// quarantine holds back tools whose definitions are not approved.
	quarantine *quarantine.Keeper
	// diagnose asks a server's plugin for its diagnostics: Diagnostics, or
	// a test's stand-in (SetDiagnosticsHook).
	diagnose func(ctx context.Context, name string) (pluginapi.Diagnostics, bool)
	// tasksElsewhere lists a session's tasks on another replica
	// (SetTasksElsewhere); nil with one replica.
	tasksElsewhere atomic.Pointer[TasksElsewhere]

	viewMu sync.Mutex                     // serializes building views
	viewAt atomic.Pointer[discovery.View] // the view of the current snapshot and rules

	indexMu       sync.Mutex    // guards index and indexed; serializes reindex
	index         *search.Index // nil until discovery is first on
	indexSemantic config.Semantic
	indexed       map[string][]string

	// state is everything a config decides: Apply builds a new one and
	// swaps it, so readers never lock and always see one whole config.
	state atomic.Pointer[setup]

	applyMu  sync.Mutex               // serializes Start, Apply and Close
	lastDone map[string]chan struct{} // per name: done of the newest server started; under applyMu

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	runCtx    context.Context
	cancel    context.CancelFunc
	running   sync.WaitGroup
	closed    bool
	retention context.CancelFunc       // stops the current retention loop
	logins    map[string]*pendingLogin // logins StartLogin runs, by server, while they run
	applied   ApplyStatus
}

// setup is what one configuration makes of the host. It is never modified
// once published (the servers in it change setup on their own).
type setup struct {
	cfg      *config.Config
	order    []string // every configured server, sorted
	servers  map[string]*server
	inactive map[string]supervisor.Status // disabled or invalid entries
	chain    *callChain
	rules    *discovery.Rules               // the discovery rules of cfg
	creds    map[string]*tokens.Credentials // servers with oauth, enabled or not
	// kept are the running servers whose new entry was invalid, each with
	// the message saying so (KeptEntryMessage): they run, and cfg holds,
	// their previous entry.
	kept map[string]string
}

// server is one enabled server: its supervisor and the spec and OAuth
// settings it was built from, which decide whether a new config must
// restart it. stop and done are set when it starts, under Host.applyMu.
type server struct {
	sup  *supervisor.Server
	spec supervisor.Spec
	auth oauthKey // zero without oauth
	// iso and pool: a server with isolation "session" has a pool of the
	// sessions' own connections (the sup above lists its tools).
	iso  isolation
	pool *sessionconn.Pool // nil for isolation "shared"

	stop context.CancelFunc // nil until started
	done chan struct{}      // closed when its Run has returned
}

// newServer prepares (does not start) the supervisor of a server.
func (h *Host) newServer(name string, spec supervisor.Spec, auth oauthKey, iso isolation) *server {
	var sup *supervisor.Server
	sup = supervisor.New(spec, h.logger, func() { h.serverChanged(name, sup) })
	return &server{sup: sup, spec: spec, auth: auth, iso: iso, pool: h.newPool(spec, iso, sup)}
}

// New validates cfg and prepares a Host; nothing is started until Start. A
// global config problem (e.g. discovery on with no search engine) is an
// error; a bad server entry only marks that server invalid.
func New(cfg *config.Config, opts Options) (*Host, error) {
	if cfg == nil {
		return nil, errors.New("host: nil config")
	}
	return newHost(cfg, validate(cfg), opts)
}

// NewFromLoaded is New for a configuration from config.Load: it also reports
// what only the raw layers show (unknown keys, wrong JSON types, a server
// without "enabled").
func NewFromLoaded(l *config.Loaded, opts Options) (*Host, error) {
	if l == nil || l.Config == nil {
		return nil, errors.New("host: nil config")
	}
	return newHost(l.Config, validateLoaded(l), opts)
}

func validate(cfg *config.Config) config.Problems {
	return config.Validate(cfg, config.ValidateOptions{ExtraTypes: config.ThirdPartyTypes(cfg)})
}

func validateLoaded(l *config.Loaded) config.Problems {
	return l.Validate(config.ValidateOptions{ExtraTypes: config.ThirdPartyTypes(l.Config)})
}

func newHost(cfg *config.Config, problems config.Problems, opts Options) (*Host, error) {
	if len(problems.Fatal) > 0 {
		return nil, &InvalidConfigError{Problems: problems.Fatal}
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	masker := config.NewMasker(cfg, opts.ConfigDir)
	h := &Host{
		opts:      opts,
		masker:    masker,
		logger:    loglimit.New(masker.Logger(opts.Logger), loglimit.Options{}),
		registry:  registry.New(),
		changed:   make(chan struct{}),
		indexed:   map[string][]string{},
		lastDone:  map[string]chan struct{}{},
		applied:   ApplyStatus{OK: true},
		largeDone: make(chan struct{}, 1),
		freeOS:    freeOSMemory,
		sessions:  opts.SessionStore,
		calls:     callstats.New(nil),
	}
	if h.sessions == nil {
		if kind := cfg.MCP.Gateway.Store.Kind(); kind != config.StoreMemory {
			return nil, fmt.Errorf("tools.mcp.gateway.store.type is %q, but no session store was given: "+
				"open one (redisstore.Open) and pass it as host.Options.SessionStore", kind)
		}
		h.sessions = NewMemorySessionStore(MemorySessionStoreOptions{IdleTimeout: cfg.MCP.Gateway.SessionIdle()})
	}
	h.router = routing.New(routingServers{h}, h.logger.Named("routing"))
	h.plugins = supervisor.NewPluginPool(loglimit.Unlimited(h.logger)) // plugins' own logs, relayed whole
	if r, ok := h.sessions.(ReplicaStore); ok {
		h.router.SetReplica(r.Replica())
	}
	pins, err := pinStore(opts, h.sessions, cfg)
	if err != nil {
		return nil, err
	}
	h.quarantine = h.newKeeper(pins)
	h.audit = h.newAudit(cfg)
	h.diagnose = h.Diagnostics
	h.auth = newAuth(opts.TokenStore, h.logger)
	st, err := h.buildSetup(cfg, problems, nil)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	h.state.Store(st)
	h.setToolFilters(nil, st.cfg)
	return h, nil
}

// st returns the current state.
func (h *Host) st() *setup { return h.state.Load() }

// buildSetup makes the state of cfg. A server whose connection settings are
// those of the same server in prev is that server, kept as it runs (see
// Apply); prev may be nil.
func (h *Host) buildSetup(cfg *config.Config, problems config.Problems, prev *setup) (*setup, error) {
	if prev != nil {
		// A server kept on its previous entry changes the server map (which
		// the discovery rules read too): the caller's config stays as given.
		c := *cfg
		c.MCP.Servers = maps.Clone(cfg.MCP.Servers)
		cfg = &c
	}
	chain, err := h.newCallChain(cfg, prev)
	if err != nil {
		return nil, err
	}
	rules, err := h.newRules(cfg)
	if err != nil {
		return nil, err
	}
	st := &setup{cfg: cfg, servers: map[string]*server{}, inactive: map[string]supervisor.Status{}, chain: chain,
		rules: rules, creds: map[string]*tokens.Credentials{}, kept: map[string]string{}}
	dirs := pluginDirs(cfg, h.opts)
	for name, srv := range cfg.MCP.Servers {
		st.order = append(st.order, name)
		h.addServer(st, prev, name, srv, problems.Servers[name], dirs)
	}
	slices.Sort(st.order)
	return st, nil
}

// KeptEntryMessage begins the last error of a running server whose entry
// a reload found invalid: the server keeps running its previous settings,
// and the rest of the message gives each problem as "<path>: <problem>".
const KeptEntryMessage = "config entry invalid, still running previous settings: "

// addServer files one configured server into st: running, or inactive with
// the reason. A server that runs under prev and whose new entry is invalid
// keeps running its previous entry (keepPrevious); a new server with an
// invalid entry is inactive, invalid.
func (h *Host) addServer(st, prev *setup, name string, srv config.Server, problems []*config.ValidationError, dirs []string) {
	inactive := func(state supervisor.State, reason string) {
		st.inactive[name] = supervisor.Status{Name: name, State: state, Transport: srv.Transport(), LastError: h.masker.Mask(reason)}
	}
	auth, creds := h.addCredentials(st, name, srv, problems)
	switch {
	case !st.cfg.MCP.Enabled:
		inactive(supervisor.StateDisabled, "tools.mcp.enabled is false")
		return
	case len(problems) > 0 && (srv.Enabled || problemAt(problems, config.ServerPath(name, "enabled"))):
		// A bad "enabled" ("yes") is a problem to show, not a quiet "off".
		if !h.keepPrevious(st, prev, name, joinProblems(problems), dirs) {
			inactive(supervisor.StateInvalid, joinProblems(problems))
		}
		return
	case !srv.Enabled:
		inactive(supervisor.StateDisabled, "")
		return
	}
	if err := h.addRunnable(st, prev, name, srv, auth, creds, dirs); err != nil && !h.keepPrevious(st, prev, name, err.Error(), dirs) {
		inactive(supervisor.StateInvalid, err.Error())
	}
}

// addRunnable files an enabled, valid entry into st as a running server:
// the one of prev when it connects the same way, else a new one. It fails
// when the entry cannot be turned into a spec (no plugin for its type …).
func (h *Host) addRunnable(st, prev *setup, name string, srv config.Server, auth oauthKey, creds *tokens.Credentials, dirs []string) error {
	spec, err := h.spec(st.cfg, name, srv, dirs)
	if err != nil {
		return err
	}
	if creds != nil {
		spec.Auth = creds
	}
	if prev != nil {
		if old, ok := prev.servers[name]; ok && old.auth == auth && old.iso == isolationOf(name, srv) && sameConnection(old.spec, spec) {
			st.servers[name] = old
			return nil
		}
	}
	st.servers[name] = h.newServer(name, spec, auth, isolationOf(name, srv))
	return nil
}

// keepPrevious keeps a server that runs under prev on its previous entry
// when its new one is invalid (problem says how): a typo in the file must
// not stop a running server. st's config then holds the previous entry, and
// the server's status the problem (KeptEntryMessage). It reports whether
// it did; it does not when the server was not running, or when its
// previous entry cannot run under the new global settings either.
func (h *Host) keepPrevious(st, prev *setup, name, problem string, dirs []string) bool {
	if prev == nil {
		return false
	}
	if _, running := prev.servers[name]; !running {
		return false
	}
	old := prev.cfg.MCP.Servers[name]
	delete(st.creds, name)
	auth, creds := h.addCredentials(st, name, old, nil)
	if err := h.addRunnable(st, prev, name, old, auth, creds, dirs); err != nil {
		delete(st.creds, name)
		return false
	}
	st.cfg.MCP.Servers[name] = old
	st.kept[name] = h.masker.Mask(KeptEntryMessage + problem)
	return true
}

func problemAt(problems []*config.ValidationError, path string) bool {
	for _, p := range problems {
		if p.Path == path {
			return true
		}
	}
	return false
}

func joinProblems(problems []*config.ValidationError) string {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...).Error()
}

// spec turns a validated server entry into what the supervisor runs.
func (h *Host) spec(cfg *config.Config, name string, srv config.Server, dirs []string) (supervisor.Spec, error) {
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
	var fallback *supervisor.Fallback
	if inProcess == nil {
		if fallback, tcfg, err = autoDetectFallback(srv, tcfg, dirs, cfg.MCP.Plugins.SHA256); err != nil {
			return supervisor.Spec{}, fmt.Errorf("server %q: %w", name, err)
		}
	}
	tun := tuningOf(cfg, srv)
	var plugins *supervisor.PluginPool
	if typ == "stdio" {
		// Servers on direct pipes do not use their plugin process for
		// calls: one process can hold them all (docs/architecture.md,
		// "Plugin processes"). Remote transports relay every message and
		// keep a process per server.
		plugins = h.plugins
	}
	return supervisor.Spec{
		Plugins:       plugins,
		Fallback:      fallback,
		PinSetting:    "tools.mcp.plugins.sha256." + typ,
		ConfigPath:    config.ServerPath(name),
		Name:          name,
		Installer:     srv.PackageRunner(),
		Transport:     typ,
		PluginPath:    path,
		PluginSHA256:  cfg.MCP.Plugins.SHA256[typ],
		PluginEnv:     env,
		Config:        tcfg,
		Timeouts:      tun.Timeouts,
		Backoff:       tun.Backoff,
		ClientVersion: h.opts.Version,
		DirectPipes:   !h.opts.RelayOnly,
		InProcess:     inProcess,
		Masker:        h.masker,
		Limits: supervisor.Limits{MaxMessageBytes: srv.MaxMessageBytes(cfg.MCP.MaxMessageMB), MaxMessageSetting: srv.MaxMessageSetting(name),
			MaxResultBytes: srv.MaxResultBytes(cfg.MCP.MaxResultMB), MaxResultSetting: srv.MaxResultSetting(name),
			SpoolDir: artifacts.DirOf(cfg.MCP.Workspace, artifacts.KindMCP)},
		Router: h.router,
	}, nil
}

// tuningOf returns a server's timeouts and restart pacing under cfg.
func tuningOf(cfg *config.Config, srv config.Server) supervisor.Tuning {
	t := srv.Timeouts(cfg.MCP.Timeouts.Durations())
	return supervisor.Tuning{
		Timeouts: supervisor.Timeouts{Start: t.Start, Initialize: t.Initialize, ListTools: t.ListTools, Call: t.Call},
		Backoff:  supervisor.Backoff{Initial: cfg.MCP.Restart.InitialBackoff(), Max: cfg.MCP.Restart.MaxBackoff()},
	}
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
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	h.mu.Lock()
	if h.cancel != nil || h.closed {
		h.mu.Unlock()
		return
	}
	h.runCtx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	h.mu.Unlock()
	st := h.st()
	h.restartRetention(st)
	if h.audit != nil {
		h.running.Add(1)
		go func() {
			defer h.running.Done()
			h.audit.Run(h.runCtx)
		}()
	}
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		h.watchPins(h.runCtx)
	}()
	if h.opts.ReturnMemoryAfterLargeResults {
		h.running.Add(1)
		go func() {
			defer h.running.Done()
			h.returnMemory(h.runCtx)
		}()
	}
	for _, s := range st.servers {
		h.startServer(s)
	}
}

// started reports whether Start ran (and Close did not).
func (h *Host) started() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cancel != nil && !h.closed
}

// startServer runs the supervisor of s until it is stopped or the host
// closes. A server that replaces another of the same name first waits until
// that one is gone, so two never run at once; meanwhile its last tools stay
// known (calls say the server is restarting), as for any restart.
// Callers hold applyMu, after Start.
func (h *Host) startServer(s *server) {
	h.mu.Lock()
	ctx := h.runCtx
	h.mu.Unlock()
	name := s.spec.Name
	after := h.lastDone[name]
	ctx, s.stop = context.WithCancel(ctx)
	s.done = make(chan struct{})
	h.lastDone[name] = s.done
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		defer close(s.done)
		if after != nil {
			select {
			case <-after:
			case <-ctx.Done():
				return
			}
		}
		if s.pool != nil {
			poolDone := make(chan struct{})
			go func() {
				defer close(poolDone)
				s.pool.Run(ctx)
			}()
			defer func() { <-poolDone }() // its processes are gone before done closes
		}
		s.sup.Run(ctx)
	}()
}

// Close stops every server and plugin and waits until they are gone.
func (h *Host) Close() error {
	h.applyMu.Lock()
	h.mu.Lock()
	h.closed = true
	cancel := h.cancel
	h.mu.Unlock()
	h.applyMu.Unlock()
	if cancel != nil {
		cancel()
	}
	h.running.Wait()
	loglimit.Flush(h.logger)
	var errs []error
	if c, ok := h.sessions.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	h.indexMu.Lock()
	defer h.indexMu.Unlock()
	if h.index != nil {
		errs = append(errs, h.index.Close())
	}
	return errors.Join(errs...)
}

// serverChanged publishes a server's tools and status. Changes of a
// supervisor that a reload replaced are ignored: Apply clears its tools.
func (h *Host) serverChanged(name string, sup *supervisor.Server) {
	s, ok := h.st().servers[name]
	if !ok || s.sup != sup {
		return
	}
	if defs := sup.Definitions(); defs != nil || !keepsTools(sup.Status()) {
		h.publishTools(name, defs)
	}
	h.reindex()
	h.notify()
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

// view returns the discovery view of the current snapshot and rules,
// building it once per pair: every session shares it. A reload that
// changes the rules makes the next call build a new one.
func (h *Host) view() *discovery.View {
	snap, rules := h.registry.Snapshot(), h.st().rules
	if v := h.viewAt.Load(); v != nil && v.Snapshot() == snap && v.Rules() == rules {
		return v
	}
	h.viewMu.Lock()
	defer h.viewMu.Unlock()
	snap, rules = h.registry.Snapshot(), h.st().rules
	if v := h.viewAt.Load(); v != nil && v.Snapshot() == snap && v.Rules() == rules {
		return v
	}
	v := rules.NewView(snap, append(rules.SearchToolDefs(), pagingTools()...))
	h.viewAt.Store(v)
	return v
}

// UnlockCount returns how many tools sessions unlocked so far, by searches
// and exact-name calls (a renewal does not count).
func (h *Host) UnlockCount() int64 { return h.unlocks.Load() }

// notify wakes everyone waiting on Changed.
func (h *Host) notify() {
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// Changed returns a channel closed at the next status, tool or config
// change.
func (h *Host) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Statuses returns every configured server's status, sorted by name.
func (h *Host) Statuses() []supervisor.Status {
	st := h.st()
	out := make([]supervisor.Status, 0, len(st.order))
	for _, name := range st.order {
		s, _ := st.status(name)
		out = append(out, s)
	}
	return out
}

// Status returns one server's status.
func (h *Host) Status(name string) (supervisor.Status, bool) { return h.st().status(name) }

// status is a server's status, with its OAuth login state if it has one.
func (st *setup) status(name string) (supervisor.Status, bool) {
	if s, ok := st.servers[name]; ok {
		return st.withAuth(st.withKept(s.withSessions(s.sup.Status()))), true
	}
	s, ok := st.inactive[name]
	return st.withAuth(s), ok
}

// withKept adds to the status of a server kept on its previous entry
// why: ConfigError, and the first line of its last error.
func (st *setup) withKept(status supervisor.Status) supervisor.Status {
	msg, ok := st.kept[status.Name]
	if !ok {
		return status
	}
	status.ConfigError = msg
	if status.LastError == "" {
		status.LastError = msg
	} else {
		status.LastError = msg + "\n" + status.LastError
	}
	return status
}

// Server returns the supervisor of a running server.
func (h *Host) Server(name string) (*supervisor.Server, bool) {
	s, ok := h.st().servers[name]
	if !ok {
		return nil, false
	}
	return s.sup, true
}

// InFlight returns how many requests of sessions are in flight to server.
func (h *Host) InFlight(server string) int { return h.router.InFlight(server) }

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
	for _, s := range h.st().servers {
		if st := s.sup.Status(); st.State == supervisor.StateConnecting && st.Restarts == 0 {
			return true
		}
	}
	return false
}

// Registry returns the current tool snapshot of every connected server.
func (h *Host) Registry() *registry.Snapshot { return h.registry.Snapshot() }
