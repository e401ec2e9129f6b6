package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/supervisor"
)

// ApplyResult says what Apply changed.
type ApplyResult struct {
	// Added are servers started: new in the config, or newly enabled.
	Added []string `json:"added,omitempty"`
	// Removed are servers stopped: gone from the config, or now disabled or
	// invalid.
	Removed []string `json:"removed,omitempty"`
	// Restarted are servers whose connection settings changed.
	Restarted []string `json:"restarted,omitempty"`
	// Unchanged are servers that kept running as they were (a new timeout
	// applies to their next call).
	Unchanged []string `json:"unchanged,omitempty"`
	// Settings are the global sections that changed (JSON paths); they
	// apply from the next call or turn on.
	Settings []string `json:"settings,omitempty"`
	// KeptPrevious are running servers whose new entry is invalid: they
	// keep running their previous settings, and their status says why
	// (KeptEntryMessage). They are in Unchanged or Restarted too.
	KeptPrevious []string `json:"kept_previous,omitempty"`
	// Omitted counts, by list ("added", "unchanged" …), the names a Capped
	// result left out.
	Omitted map[string]int `json:"omitted,omitempty"`
}

// Empty reports whether nothing changed.
func (r ApplyResult) Empty() bool {
	return len(r.Added)+len(r.Removed)+len(r.Restarted)+len(r.Settings)+len(r.KeptPrevious) == 0
}

// listedNames is how many names of each list String and Capped keep: a
// reload of thousands of servers is summarised, not listed.
const listedNames = 10

// String summarises r for a log line or a message: each list's first
// names, and how many there are in all when it is longer.
func (r ApplyResult) String() string {
	if r.Empty() {
		return "no change"
	}
	var parts []string
	for _, p := range []struct {
		verb  string
		names []string
	}{{"added", r.Added}, {"removed", r.Removed}, {"restarted", r.Restarted}, {"changed", r.Settings},
		{"kept the previous settings (invalid entry) of", r.KeptPrevious}} {
		if len(p.names) > 0 {
			parts = append(parts, p.verb+" "+listText(p.names))
		}
	}
	return strings.Join(parts, "; ")
}

// listText joins names, the first listedNames of them and the count of
// the rest.
func listText(names []string) string {
	if len(names) <= listedNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s … (%d in all)", strings.Join(names[:listedNames], ", "), len(names))
}

// Capped returns r with each list cut to its first names; Omitted counts
// what each list lost. ApplyStatus keeps the capped result: every status
// answer carries it, and a reload of thousands of servers would make each
// of them as long as the config.
func (r ApplyResult) Capped() ApplyResult {
	out := r
	out.Omitted = nil
	for key, list := range map[string]*[]string{"added": &out.Added, "removed": &out.Removed, "restarted": &out.Restarted,
		"unchanged": &out.Unchanged, "settings": &out.Settings, "kept_previous": &out.KeptPrevious} {
		if n := len(*list); n > listedNames {
			*list = (*list)[:listedNames:listedNames]
			if out.Omitted == nil {
				out.Omitted = map[string]int{}
			}
			out.Omitted[key] = n - listedNames
		}
	}
	return out
}

// ApplyStatus is the outcome of the last Apply, for status displays: a
// rejected config leaves the previous one running, and says why here.
type ApplyStatus struct {
	// At is when Apply last ran (zero: never since the host was made).
	At time.Time `json:"at,omitzero"`
	// OK is false when the last config was rejected.
	OK bool `json:"ok"`
	// Error says why it was rejected.
	Error string `json:"error,omitempty"`
	// Problems are the problems that rejected it, with their JSON paths.
	Problems []*config.ValidationError `json:"problems,omitempty"`
	// Result is what the last accepted config changed, each list cut to
	// its first names (ApplyResult.Capped).
	Result ApplyResult `json:"result"`
}

// InvalidConfigError rejects a config with global problems (discovery on
// without a search engine, a bad timeout…): nothing of it was applied.
// errors.As finds each *config.ValidationError in it.
type InvalidConfigError struct {
	// Problems are the global problems, each with its JSON path.
	Problems []*config.ValidationError
}

// Error implements error.
func (e *InvalidConfigError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return "invalid config: " + strings.Join(msgs, "\n")
}

// Unwrap returns the problems.
func (e *InvalidConfigError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// ErrClosed is returned by Apply after Close.
var ErrClosed = errors.New("host: closed")

// Apply makes cfg the host's configuration while it runs. cfg is validated
// first: a global problem rejects it whole (an *InvalidConfigError; the
// previous config keeps running, and LastApply says why). Otherwise only
// servers whose connection settings changed are restarted, new or newly
// enabled servers are started and removed or disabled ones stopped; the
// others keep running untouched. Global settings — discovery, the inline
// budget, timeouts, restart pacing, artifact retention — apply from the
// next call or turn on, and sessions keep their unlocks of tools that still
// exist. Apply does not wait for servers to stop or connect (see Changed
// and Statuses); calls are serialized.
func (h *Host) Apply(cfg *config.Config) (ApplyResult, error) {
	if cfg == nil {
		return ApplyResult{}, errors.New("host: nil config")
	}
	return h.apply(cfg, validate(cfg))
}

// ApplyLoaded is Apply for a configuration from config.Load: it also
// checks what only the raw layers show (unknown keys, wrong JSON types).
func (h *Host) ApplyLoaded(l *config.Loaded) (ApplyResult, error) {
	if l == nil || l.Config == nil {
		return ApplyResult{}, errors.New("host: nil config")
	}
	return h.apply(l.Config, validateLoaded(l))
}

func (h *Host) apply(cfg *config.Config, problems config.Problems) (ApplyResult, error) {
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	if h.isClosed() {
		return ApplyResult{}, ErrClosed
	}
	err := problems.Err()
	config.AddSecrets(h.masker, cfg, h.opts.ConfigDir) // before anything of cfg is shown
	prev := h.st()
	var next *setup
	if err == nil {
		next, err = h.buildSetup(cfg, problems, prev)
	}
	if err != nil {
		return ApplyResult{}, h.rejected(err, problems)
	}
	h.state.Store(next)
	filtered := h.setToolFilters(prev.cfg, next.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), pinStoreTimeout)
	judged := h.quarantine.Rejudge(ctx, false) // trust settings may have changed
	cancel()
	if filtered || judged {
		h.reindex() // tools shown or hidden without a restart
	}
	res := diffStates(prev, next)
	h.switchServers(prev, next)
	h.forgetStopped(prev, next)
	h.announceRoots(prev, next)
	if h.started() && retentionChanged(prev, next) {
		h.restartRetention(next)
	}
	h.mu.Lock()
	h.applied = ApplyStatus{At: time.Now(), OK: true, Result: res.Capped()}
	h.mu.Unlock()
	h.logger.Debug("config applied", "result", res.String())
	if prev.cfg.MCP.Trust.PinsFile != next.cfg.MCP.Trust.PinsFile {
		h.logger.Warn("tools.mcp.trust.pins_file changed: the pins file is chosen at start-up; restart plughost to use the new one")
	}
	if prev.cfg.MCP.Gateway.Store != next.cfg.MCP.Gateway.Store {
		h.logger.Warn("tools.mcp.gateway.store changed: the session store is chosen at start-up; restart plughost to use the new one")
	}
	h.notify()
	if len(next.order) >= largeConfigServers {
		h.afterLargeCall() // loading and building it left hundreds of MB of garbage
	}
	return res, nil
}

// rejected records and logs why a config was not applied.
func (h *Host) rejected(err error, problems config.Problems) error {
	e := &InvalidConfigError{Problems: problems.Fatal}
	if len(e.Problems) == 0 {
		e.Problems = []*config.ValidationError{{Msg: err.Error()}}
		var ve *config.ValidationError
		if errors.As(err, &ve) {
			e.Problems = []*config.ValidationError{ve}
		}
	}
	h.mu.Lock()
	h.applied = ApplyStatus{At: time.Now(), Error: e.Error(), Problems: e.Problems, Result: h.applied.Result}
	h.mu.Unlock()
	h.logger.Error("config not applied; still running the previous one", "error", e.Error())
	h.notify()
	return e
}

// LastApply returns the outcome of the last Apply.
func (h *Host) LastApply() ApplyStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.applied
}

func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// switchServers stops the servers of prev that next does not keep and
// starts next's new ones, each after the server it replaces is gone. It
// updates the timeouts and restart pacing of the servers kept. Callers hold
// applyMu.
func (h *Host) switchServers(prev, next *setup) {
	for name, old := range prev.servers {
		if next.servers[name] == old {
			continue
		}
		if old.stop != nil {
			old.stop()
			if _, replaced := next.servers[name]; !replaced {
				h.forget(name, old.done)
			}
		}
	}
	for name, s := range next.servers {
		if prev.servers[name] == s {
			s.sup.SetTuning(tuningOf(next.cfg, next.cfg.MCP.Servers[name]))
		} else if h.started() {
			h.startServer(s)
		}
	}
}

// forgetStopped drops what the host keeps by server name for the servers
// next no longer has: the router's state of servers that stopped running
// (removed, disabled or invalid), the call statistics and OAuth
// credentials of servers gone from the config. A host lives as long as
// its process, through any number of reloads: nothing may pile up per
// name. (Their tools go once they are down: forget.) Callers hold applyMu,
// after next is published.
func (h *Host) forgetStopped(prev, next *setup) {
	for name := range prev.servers {
		if _, ok := next.servers[name]; !ok {
			h.router.ForgetServer(name)
		}
	}
	h.calls.Retain(next.order)
	h.auth.Retain(slices.Collect(maps.Keys(next.creds)))
}

// forget removes a stopped server's tools once it is gone, unless a new
// server of that name took its place (which clears them itself).
func (h *Host) forget(name string, done chan struct{}) {
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		<-done
		h.applyMu.Lock()
		defer h.applyMu.Unlock()
		if h.lastDone[name] == done { // no server of that name started since: nothing to wait for
			delete(h.lastDone, name)
		}
		if _, back := h.st().servers[name]; back || h.isClosed() {
			return
		}
		h.clearServer(name)
	}()
}

// clearServer removes a server's tools from the registry and the index.
func (h *Host) clearServer(name string) {
	h.publishTools(name, nil)
	h.reindex()
	h.notify()
}

// sameConnection reports whether two specs connect the same way: equal but
// for the limits, which change without a restart.
func sameConnection(a, b supervisor.Spec) bool {
	a.Timeouts, a.Backoff = supervisor.Timeouts{}, supervisor.Backoff{}
	b.Timeouts, b.Backoff = supervisor.Timeouts{}, supervisor.Backoff{}
	return reflect.DeepEqual(a, b)
}

// diffStates says what going from prev to next changes.
func diffStates(prev, next *setup) ApplyResult {
	var r ApplyResult
	for _, name := range slices.Sorted(maps.Keys(next.servers)) {
		old, ok := prev.servers[name]
		switch {
		case !ok:
			r.Added = append(r.Added, name)
		case old != next.servers[name]:
			r.Restarted = append(r.Restarted, name)
		default:
			r.Unchanged = append(r.Unchanged, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(prev.servers)) {
		if _, ok := next.servers[name]; !ok {
			r.Removed = append(r.Removed, name)
		}
	}
	r.Settings = changedSettings(prev.cfg.MCP, next.cfg.MCP)
	r.KeptPrevious = slices.Sorted(maps.Keys(next.kept))
	return r
}

// changedSettings lists the global sections that differ, as JSON paths.
func changedSettings(a, b config.MCP) []string {
	var out []string
	for _, s := range []struct {
		path string
		a, b any
	}{
		{"tools.mcp.enabled", a.Enabled, b.Enabled},
		{"tools.mcp.discovery", a.Discovery, b.Discovery},
		{"tools.mcp.max_inline_text_chars", a.MaxInlineTextChars, b.MaxInlineTextChars},
		{"tools.mcp.max_message_mb", a.MaxMessageMB, b.MaxMessageMB},
		{"tools.mcp.max_result_mb", a.MaxResultMB, b.MaxResultMB},
		{"tools.mcp.workspace", a.Workspace, b.Workspace},
		{"tools.mcp.artifacts", a.Artifacts, b.Artifacts},
		{"tools.mcp.audit", a.Audit, b.Audit},
		{"tools.mcp.trust", a.Trust, b.Trust},
		{"tools.mcp.timeouts", a.Timeouts, b.Timeouts},
		{"tools.mcp.restart", a.Restart, b.Restart},
		{"tools.mcp.plugins", a.Plugins, b.Plugins},
		{"tools.mcp.gateway", a.Gateway, b.Gateway},
	} {
		if !reflect.DeepEqual(s.a, s.b) {
			out = append(out, s.path)
		}
	}
	return out
}

func retentionChanged(prev, next *setup) bool {
	return prev.chain.store != next.chain.store || prev.cfg.MCP.Artifacts != next.cfg.MCP.Artifacts
}
