package gateway

import (
	"context"
	"net/http"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/host"
)

// Options configure a Gateway.
type Options struct {
	// Logger receives the gateway's logs; nil discards them.
	Logger hclog.Logger
	// Version is reported to clients in initialize.
	Version string
}

// Gateway serves one host.Host as an MCP server. Create it with New, then
// call ServeStdio or ServeHTTP once. It is safe for concurrent use.
type Gateway struct {
	h       *host.Host
	logger  hclog.Logger
	mcp     *server.MCPServer
	metrics *metrics

	mu       sync.Mutex
	sessions map[string]*session     // by MCP session id
	mounts   map[string]http.Handler // other front ends behind the token (Mount)
}

// New prepares a gateway over h (which the caller starts and closes).
func New(h *host.Host, opts Options) *Gateway {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	g := &Gateway{h: h, logger: opts.Logger, sessions: map[string]*session{}}
	g.metrics = newMetrics(h, g.sessionCount)
	hooks := &server.Hooks{}
	hooks.AddOnRequestInitialization(g.beforeRequest)
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { g.dropSession(cs.SessionID()) })
	g.mcp = server.NewMCPServer("plughost", versionOr(opts.Version),
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithInstructions(instructions),
	)
	return g
}

const instructions = "plughost serves the tools of several MCP servers under names mcp_<server>_<tool>. " +
	"If a search tool (tool_search_tool_bm25 or tool_search_tool_regex) is listed, most tools are hidden: " +
	"search for a capability before concluding it is missing; found tools become callable for a few turns."

func versionOr(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// watch re-publishes every session's tool list whenever the host's servers
// or tools change, until ctx ends.
func (g *Gateway) watch(ctx context.Context) {
	for {
		changed := g.h.Changed()
		for _, s := range g.allSessions() {
			s.sync()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

func (g *Gateway) allSessions() []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		out = append(out, s)
	}
	return out
}

func (g *Gateway) sessionCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// sessionFor returns the gateway session of the MCP session in ctx,
// creating it (with its own host.Session) on first sight; nil when ctx
// carries no MCP session.
func (g *Gateway) sessionFor(ctx context.Context) *session {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return nil
	}
	id := cs.SessionID()
	g.mu.Lock()
	s, ok := g.sessions[id]
	if !ok {
		s = newSession(g, id, g.publisher(cs))
		g.sessions[id] = s
	}
	g.mu.Unlock()
	if !ok {
		s.sync()
	}
	return s
}

// dropSession ends the gateway session of an MCP session that ended.
func (g *Gateway) dropSession(id string) {
	g.mu.Lock()
	s, ok := g.sessions[id]
	delete(g.sessions, id)
	g.mu.Unlock()
	if ok {
		s.hs.Close()
	}
}

// publisher returns how a session's tool list reaches mcp-go: the
// session's own tools where the transport supports them (streamable HTTP),
// else the server's global tools — the stdio transport has exactly one
// session, so they are that session's.
func (g *Gateway) publisher(cs server.ClientSession) publishFunc {
	if st, ok := cs.(server.SessionWithTools); ok {
		id := cs.SessionID()
		return func(tools []server.ServerTool, notify bool) {
			m := make(map[string]server.ServerTool, len(tools))
			for _, t := range tools {
				m[t.Tool.Name] = t
			}
			st.SetSessionTools(m)
			if notify && cs.Initialized() {
				// The session may be gone already; it then needs no notice.
				_ = g.mcp.SendNotificationToSpecificClient(id, "notifications/tools/list_changed", nil)
			}
		}
	}
	return func(tools []server.ServerTool, _ bool) { g.mcp.SetTools(tools...) } // notifies by itself
}
