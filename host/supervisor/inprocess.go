package supervisor

import (
	"context"

	"github.com/plughost/plughost/pluginapi"
)

// pluginProcess is what a connection needs of its transport plugin:
// *pluginapi.Client for a plugin process, inProcess for a transport that
// runs inside the host (Spec.InProcess), *sharedProcess for a process of a
// PluginPool. A process may serve many connections (PluginPool): Diagnostics are asked
// per connection, and Kill lets this server's hold on the process go.
type pluginProcess interface {
	Transport() pluginapi.Transport
	ConnectionDiagnostics(ctx context.Context, connectionID string) (pluginapi.Diagnostics, error)
	Exited() bool
	PID() int
	Kill()
}

// inProcess serves a pluginapi.Transport implemented in the host process:
// there is no process to start, watch or kill; closing the connection
// (which the connection does) ends everything.
type inProcess struct{ t pluginapi.Transport }

func (p inProcess) Transport() pluginapi.Transport { return p.t }

func (p inProcess) ConnectionDiagnostics(context.Context, string) (pluginapi.Diagnostics, error) {
	return pluginapi.Diagnostics{}, nil
}

func (inProcess) Exited() bool { return false }
func (inProcess) PID() int     { return 0 }
func (inProcess) Kill()        {}
