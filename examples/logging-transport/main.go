// Command mcp-transport-logging is an example third-party transport plugin for
// plughost. It proves a transport can be added without recompiling the host:
// build it, put it in a plugin dir as mcp-transport-logging, and a server with
// "type": "logging" uses it.
//
// It wraps the stdio transport (it starts the server exactly as "stdio" does
// and accepts the same config) and logs every JSON-RPC message passing in each
// direction — its kind, method, id and size, never its body — as hclog JSON on
// stderr, which the host re-levels into its own log. Because it must see every
// message, it never offers the direct-pipes fast path: its servers always use
// the relay through this process.
//
// Like every plugin it leaves stdout to the go-plugin handshake, never reads
// stdin, and reads no host file, flag or setting: its server's config arrives
// as JSON in Open.
package main

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/stdio/stdiotransport"
)

// version is reported by Describe and in the startup log line; set it at build
// time with -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       "logging",
		JSONFormat: true,
		Output:     os.Stderr,
		Level:      hclog.Info,
	})
	logger.Info("logging transport started", "version", version, "pid", os.Getpid())
	// Servers inherit from the environment the host gave this plugin, minus
	// go-plugin's handshake variables, exactly as with the stdio plugin.
	environ := func() []string { return pluginapi.PluginEnviron(os.Environ()) }
	inner := stdiotransport.New(logger.Named("stdio"), stdiotransport.WithEnviron(environ))
	pluginapi.Serve(pluginapi.ServeConfig{Transport: newTransport(inner, logger), Logger: logger})
}
