package main

import (
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mark3labs/mcp-go/server"
)

// serveHTTP serves s over legacy SSE (endpoint /sse: mcp-go's SSE server,
// or with sse-bridge mcp-go's stdio server behind a bridge, which asks the
// client things) or streamable HTTP (endpoint /mcp) on o.addr, after
// printing "listening <url>" on out so a test knows where to connect. It
// runs until the process is killed.
func serveHTTP(o options, s *server.MCPServer, out io.Writer) error {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	var handler http.Handler
	url := base + "/mcp"
	switch o.serve {
	case "sse":
		handler = server.NewSSEServer(s, server.WithBaseURL(base))
		url = base + "/sse"
	case "sse-bridge":
		handler = &sseBridge{s: s}
		url = base + "/sse"
	default:
		// Stateful: a restarted server forgets sessions and answers 404, as
		// real servers do; the default session manager never does.
		handler = server.NewStreamableHTTPServer(s, server.WithStateful(true))
	}
	if o.vendorResult {
		handler = vendorHTTP(handler)
	}
	fmt.Fprintf(out, "listening %s\n", url)
	return http.Serve(ln, handler)
}
