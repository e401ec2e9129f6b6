package host

import (
	"encoding/json"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/supervisor"
)

// routingServers is what the router sees of the host (routing.Servers).
type routingServers struct{ h *Host }

var _ routing.Servers = routingServers{}

// Names returns every configured server, in name order.
func (s routingServers) Names() []string { return s.h.st().order }

// Running reports whether server runs in the current state.
func (s routingServers) Running(server string) bool {
	_, ok := s.h.st().servers[server]
	return ok
}

// Server returns the supervisor of a running server.
func (s routingServers) Server(server string) (*supervisor.Server, bool) { return s.h.Server(server) }

// Capabilities returns what server offers (Host.serverCaps).
func (s routingServers) Capabilities(server string) (routing.Capabilities, bool) {
	return s.h.serverCaps(server)
}

// CallTimeout is the server's call timeout, which also bounds a routed
// server request (0: none known).
func (s routingServers) CallTimeout(server string) time.Duration {
	st := s.h.st()
	srv, ok := st.cfg.MCP.Servers[server]
	if !ok {
		return 0
	}
	return srv.Timeouts(st.cfg.MCP.Timeouts.Durations()).Call
}

// Roots is the roots/list result of server's shared connection: its
// configured roots (tools.mcp.servers.<name>.roots), none by default.
func (s routingServers) Roots(server string) json.RawMessage {
	roots := s.h.st().cfg.MCP.Servers[server].RootList()
	b, err := json.Marshal(map[string][]config.Root{"roots": roots})
	if err != nil { // strings always encode
		return json.RawMessage(`{"roots":[]}`)
	}
	return b
}
