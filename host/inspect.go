package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/pluginapi"
)

// ServerNames returns every configured server name, sorted.
func (h *Host) ServerNames() []string { return append([]string(nil), h.st().order...) }

// ServerConfig returns a server's config entry. Its secrets are secret.String
// values, masked whenever printed or marshalled.
func (h *Host) ServerConfig(name string) (config.Server, bool) {
	s, ok := h.st().cfg.MCP.Servers[name]
	return s, ok
}

// Config returns the host's current configuration (secrets masked when
// printed). Apply replaces it; the value returned is never modified.
func (h *Host) Config() *config.Config { return h.st().cfg }

// Masker returns the masker of every secret the configuration holds. Front
// ends pass through it any text of their own that may quote a secret; what
// the host reports (statuses, diagnostics, errors, its logs) is masked
// already.
func (h *Host) Masker() *secret.Masker { return h.masker }

// Logger returns the host's logger: lines are masked (Masker) and repeats
// are collapsed (loglimit). Front ends log through it, e.g.
// h.Logger().Named("gateway"), so that no secret reaches a log.
func (h *Host) Logger() hclog.Logger { return h.logger }

// ServerTools returns the agent-facing tools of one server, sorted by name.
func (h *Host) ServerTools(name string) []registry.Tool { return h.registry.Snapshot().Server(name) }

// Diagnostics returns a server's diagnostics (stderr tail, pids).
func (h *Host) Diagnostics(ctx context.Context, name string) (pluginapi.Diagnostics, bool) {
	s, ok := h.st().servers[name]
	if !ok {
		return pluginapi.Diagnostics{}, false
	}
	return s.sup.Diagnostics(ctx), true
}

// NoServerError says that no server of that name is configured.
type NoServerError struct {
	// Name is the name asked for.
	Name string
	// Configured are the configured names, sorted.
	Configured []string
}

// Error implements error.
func (e *NoServerError) Error() string {
	configured := "none"
	if len(e.Configured) > 0 {
		configured = strings.Join(e.Configured, ", ")
	}
	return fmt.Sprintf("no server named %q in the config (configured: %s)", e.Name, configured)
}

// TestReport is the outcome of a one-off connectivity check.
type TestReport struct {
	Status supervisor.Status `json:"status"`
	OK     bool              `json:"ok"`
	Error  string            `json:"error,omitempty"`
	Tools  []string          `json:"tools,omitempty"`
	// DefinitionBytes is the size of the tool definitions as the server
	// listed them (JSON): what they would cost in a model's context.
	DefinitionBytes int                   `json:"definition_bytes"`
	Took            time.Duration         `json:"took_ns"`
	Diag            pluginapi.Diagnostics `json:"diagnostics"`
}

// Test connects to one server once (plugin start, initialize, tools/list),
// disconnects and reports. It works whether or not the host is started, and
// never restarts anything: the check runs on a connection of its own, so a
// running server keeps its connection, its tools and its status (front ends
// test live servers). A disabled server is tested too, with its config as
// it stands; an invalid one reports its problems.
func (h *Host) Test(ctx context.Context, name string) (TestReport, error) {
	cur := h.st()
	var spec supervisor.Spec
	if srv, ok := cur.servers[name]; ok {
		spec = srv.spec
	} else {
		st, known := cur.inactive[name]
		if !known {
			return TestReport{}, &NoServerError{Name: name, Configured: cur.order}
		}
		if st.State != supervisor.StateDisabled {
			return TestReport{Status: st, Error: fmt.Sprintf("server %q is %s: %s", name, st.State, st.LastError)}, nil
		}
		var err error
		if spec, err = h.spec(cur.cfg, name, cur.cfg.MCP.Servers[name], pluginDirs(cur.cfg, h.opts)); err != nil {
			return TestReport{Status: st, Error: h.masker.Mask(err.Error())}, nil
		}
		if c := cur.creds[name]; c != nil {
			spec.Auth = c
		}
	}
	spec.Router = nil // the probe's connection is nobody's: sessions hear nothing of it
	probe := supervisor.New(spec, h.logger.Named("test"), nil)
	began := time.Now()
	st, tools, err := probe.ConnectOnce(ctx)
	rep := TestReport{Status: st, OK: err == nil, Took: time.Since(began)}
	if err != nil {
		rep.Error = err.Error()
	}
	for _, t := range tools {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &head) == nil {
			rep.Tools = append(rep.Tools, head.Name)
		}
		rep.DefinitionBytes += len(t)
	}
	rep.Diag = probe.Diagnostics(ctx)
	return rep, nil
}
