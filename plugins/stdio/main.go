// Command mcp-transport-stdio is the stdio transport plugin of plughost: it
// starts one MCP server process and relays newline-delimited JSON-RPC between
// the host and the server's stdin and stdout.
//
// The host launches it through go-plugin. Its own stdout carries the plugin
// handshake and its stdin belongs to the host: it never touches either, and
// logs JSON to stderr.
package main

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/stdio/stdiotransport"
)

func main() {
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       "stdio",
		JSONFormat: true,
		Output:     os.Stderr,
		Level:      hclog.Info,
	})
	// Servers inherit from the environment the host gave this plugin, minus
	// go-plugin's handshake variables, which belong to the plugin mechanism.
	environ := func() []string { return pluginapi.PluginEnviron(os.Environ()) }
	transport := stdiotransport.New(logger, stdiotransport.WithEnviron(environ))
	pluginapi.Serve(pluginapi.ServeConfig{Transport: transport, Logger: logger})
}
