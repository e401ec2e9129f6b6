package gateway

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one MCP session on in/out (newline-delimited JSON-RPC)
// until in ends or ctx does. Nothing but MCP messages is written to out;
// mcp-go's own error log goes to errLog.
func (g *Gateway) ServeStdio(ctx context.Context, in io.Reader, out, errLog io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go g.watch(ctx)
	s := server.NewStdioServer(g.mcp)
	s.SetErrorLogger(log.New(errLog, "plughost stdio: ", log.LstdFlags))
	if err := s.Listen(ctx, in, out); err != nil && ctx.Err() == nil {
		return fmt.Errorf("gateway: stdio: %w", err)
	}
	return nil
}
