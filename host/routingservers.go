package host

import (
	"time"

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
