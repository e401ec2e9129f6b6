// Command mcp-transport-sse is plughost's legacy HTTP+SSE transport plugin. The host starts
// one per server of type "sse"; it never writes to its stdout, which
// carries the plugin handshake.
package main

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/internal/remote"
)

func main() {
	logger := hclog.New(&hclog.LoggerOptions{Name: "sse", JSONFormat: true, Output: os.Stderr, Level: hclog.Info})
	pluginapi.Serve(pluginapi.ServeConfig{Transport: remote.New(remote.KindSSE, logger, nil), Logger: logger})
}
