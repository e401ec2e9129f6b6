// Command mcp-transport-http is plughost's streamable-HTTP transport plugin. The host starts
// one per server of type "http" (alias "streamable-http"); it never writes to its stdout, which
// carries the plugin handshake.
package main

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/internal/remote"
)

func main() {
	logger := hclog.New(&hclog.LoggerOptions{Name: "http", JSONFormat: true, Output: os.Stderr, Level: hclog.Info})
	pluginapi.Serve(pluginapi.ServeConfig{Transport: remote.New(remote.KindHTTP, logger, nil), Logger: logger})
}
