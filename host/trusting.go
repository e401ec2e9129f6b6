package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/audit"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/host/toolscan"
	"github.com/plughost/plughost/host/trust"
)

// pinStoreTimeout bounds one read or write of the pins made while a
// server's tools are published (a slow Redis must not stall a server).
const pinStoreTimeout = 5 * time.Second

// PinStoreProvider is a session store that keeps the pins of tool trust
// too (redisstore.Store: one approval holds for every replica).
type PinStoreProvider interface {
	// Pins returns the store of the pins.
	Pins() trust.Store
}

// pinStore chooses where the pins live: Options.PinStore, else the
// session store's (Redis), else tools.mcp.trust.pins_file (the validator
// refuses an empty one).
func pinStore(opts Options, sessions SessionStore, cfg *config.Config) (trust.Store, error) {
	if opts.PinStore != nil {
		return opts.PinStore, nil
	}
	if p, ok := sessions.(PinStoreProvider); ok {
		return p.Pins(), nil
	}
	s, err := trust.OpenFile(cfg.MCP.Trust.PinsFile)
	if err != nil {
		return nil, fmt.Errorf("tools.mcp.trust.pins_file: %w", err)
	}
	return s, nil
}

// newKeeper returns the keeper of h's quarantine.
func (h *Host) newKeeper(store trust.Store) *quarantine.Keeper {
	return quarantine.New(quarantine.Options{
		Store: store, Registry: h.registry, Logger: h.logger.Named("trust"),
		Modes: func(server string) (string, string) {
			m := h.st().cfg.MCP
			srv := m.Servers[server]
			return srv.TrustMode(m.Trust), srv.ScanMode(m.Trust)
		},
	})
}

// publishTools gives the registry a server's listed definitions through
// the quarantine (nil removes them).
func (h *Host) publishTools(name string, defs []json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), pinStoreTimeout)
	defer cancel()
	h.quarantine.Publish(ctx, name, defs)
}

// watchPins re-judges servers whose pins another process or replica
// changed, until ctx ends.
func (h *Host) watchPins(ctx context.Context) {
	h.quarantine.Watch(ctx, func() {
		h.reindex()
		h.notify()
	})
}

// QuarantinedTool is a tool held back until it is approved.
type QuarantinedTool struct {
	// Name is the agent-facing name it will have once approved.
	Name string `json:"name"`
	quarantine.Held
}

// Quarantined returns a server's quarantined tools, sorted by name, with
// what changed (the approved and the current definition) and why. What
// came from the server is masked.
func (h *Host) Quarantined(server string) []QuarantinedTool {
	held := h.quarantine.Held(server)
	names := map[string]string{}
	for _, t := range h.registry.Snapshot().QuarantinedOf(server) {
		names[t.ServerTool] = t.Name
	}
	out := make([]QuarantinedTool, 0, len(held))
	for _, t := range held {
		t.Current = h.maskJSON(t.Current)
		if t.Pinned != nil {
			p := *t.Pinned
			p.Definition = h.maskJSON(p.Definition)
			t.Pinned = &p
		}
		t.Findings = h.maskFindings(t.Findings)
		out = append(out, QuarantinedTool{Name: names[t.Tool], Held: t})
	}
	return out
}

// Findings returns what the definition scan found in a server's listed
// tools, by the server's tool name (masked); tools without findings are
// left out.
func (h *Host) Findings(server string) map[string][]toolscan.Finding {
	f := h.quarantine.Findings(server)
	for name, list := range f {
		f[name] = h.maskFindings(list)
	}
	return f
}

func (h *Host) maskFindings(list []toolscan.Finding) []toolscan.Finding {
	out := slices.Clone(list)
	for i := range out {
		out[i].Excerpt = h.masker.Mask(out[i].Excerpt)
	}
	return out
}

// maskJSON masks configured secrets in a server's JSON; a result that is
// no longer JSON (a secret spanning an escape) is given as a JSON string.
func (h *Host) maskJSON(b json.RawMessage) json.RawMessage {
	m := h.masker.Mask(string(b))
	if m == string(b) {
		return b
	}
	if json.Valid([]byte(m)) {
		return json.RawMessage(m)
	}
	q, _ := json.Marshal(m)
	return q
}

// Approve pins the current definitions of a server's quarantined tools
// named in tools (all of them when tools is empty) and lifts their
// quarantine, recording by (e.g. "cli", "api", "dashboard") as who
// approved in the pins and the audit log. It returns the tools approved.
// An unknown server is a *NoServerError; a tool that waits for nothing a
// *quarantine.NotWaitingError.
func (h *Host) Approve(ctx context.Context, server string, tools []string, by string) ([]string, error) {
	st := h.st()
	if _, ok := st.cfg.MCP.Servers[server]; !ok {
		return nil, &NoServerError{Name: server, Configured: slices.Clone(st.order)}
	}
	began := time.Now()
	approved, err := h.quarantine.Approve(ctx, server, tools, by)
	if err != nil {
		return nil, err
	}
	h.reindex()
	h.notify()
	h.logger.Info("tools approved", "server", server, "tools", strings.Join(approved, ","), "by", by)
	if h.audit != nil {
		for _, t := range approved {
			h.audit.Write(audit.Record{Time: began, Client: by, Server: server, Method: ApproveMethod, Name: t, Outcome: audit.OK,
				DurationMS: float64(time.Since(began).Microseconds()) / 1000})
		}
	}
	return approved, nil
}

// ApproveMethod is the audit log's method of an approval of a quarantined
// tool (its name is the tool, its client who approved).
const ApproveMethod = "plughost/approve"

// QuarantinedToolError is a call of a tool held back until it is
// approved.
type QuarantinedToolError struct {
	// Name is the name the client called; Server and Tool the server and
	// its own name of the tool.
	Name, Server, Tool string
	// Reasons are quarantine.Reason* codes.
	Reasons []string
}

// Error implements error: why, and how to approve.
func (e *QuarantinedToolError) Error() string {
	why := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		why[i] = quarantine.ReasonText(r)
	}
	return fmt.Sprintf("tool %q is quarantined pending approval: %s. A person must review it: "+
		"`plughost mcp trust %s --tool %s`, POST /api/servers/%s/approve, or the dashboard's Approve button",
		e.Name, strings.Join(why, "; "), shellWord(e.Server), shellWord(e.Tool), url.PathEscape(e.Server))
}

// shellWord is s as one word of a shell command: as it is when it holds
// only letters, digits and -_.:@/, else single-quoted with control and
// non-ASCII characters written out (a tool name comes from the server and
// may hold anything; it must not reach a terminal as it is).
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:@/", r)) {
			q := strconv.QuoteToASCII(s) // control and non-ASCII characters written out
			return "'" + strings.ReplaceAll(q[1:len(q)-1], "'", `'\''`) + "'"
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

// quarantinedCall returns the error for a call of name when it names a
// quarantined tool the client could otherwise use (by its server's own
// name in a session scoped to scope), else nil.
func (h *Host) quarantinedCall(scope, name string, allows func(server, name string) bool) error {
	snap := h.registry.Snapshot()
	var server, tool, agent string
	if scope != "" {
		for _, t := range snap.QuarantinedOf(scope) {
			if t.ServerTool == name {
				server, tool, agent = t.Server, t.ServerTool, t.Name
			}
		}
	} else if t, ok := snap.Quarantined(name); ok {
		server, tool, agent = t.Server, t.ServerTool, t.Name
	}
	if server == "" || !allows(server, agent) {
		return nil
	}
	var reasons []string
	for _, held := range h.quarantine.Held(server) {
		if held.Tool == tool {
			reasons = held.Reasons
		}
	}
	return &QuarantinedToolError{Name: name, Server: server, Tool: tool, Reasons: reasons}
}
