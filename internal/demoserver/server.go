package demoserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Name is the server name the demo server reports during initialize.
const Name = "plughost-demo"

// stdioWorkers is how many tool calls ServeStdio runs at once; mcp-go's default
// of 5 would let a few slow sleep calls hold up every other tool.
const stdioWorkers = 16

// Option adjusts the demo server.
type Option func(*server.MCPServer)

// WithExtraTools adds n no-op tools, extra_0 … extra_{n-1}, for scale
// benchmarks (a catalog of many tools).
func WithExtraTools(n int) Option {
	return func(s *server.MCPServer) {
		for i := range n {
			s.AddTool(mcp.NewTool(fmt.Sprintf("extra_%d", i),
				mcp.WithDescription(fmt.Sprintf("Synthetic no-op tool number %d for scale benchmarks; returns \"ok\".", i))),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("ok"), nil
				})
		}
	}
}

// New returns the demo MCP server with all its tools registered. Arguments are
// validated against each tool's input schema (unknown properties rejected), and
// a panicking handler becomes an error result instead of ending the process.
func New(version string, opts ...Option) *server.MCPServer {
	s := server.NewMCPServer(Name, version,
		server.WithToolCapabilities(false),
		server.WithStrictInputSchemaDefault(),
		server.WithRecovery(),
		server.WithInstructions("plughost-demo offers small self-contained utilities: "+
			"echo, calculate (arithmetic), current_time, text_stats, generate_text "+
			"(deterministic filler text of an exact length), sleep and hash."),
	)
	s.AddTools(
		echoTool(),
		calculateTool(),
		currentTimeTool(),
		textStatsTool(),
		generateTextTool(),
		sleepTool(),
		hashTool(),
	)
	s.Use(newInputValidator(s).middleware)
	for _, o := range opts {
		o(s)
	}
	return s
}

// ServeStdio serves the demo server over newline-delimited JSON-RPC on in and
// out until in reaches end of file (it then returns nil) or ctx ends (it then
// returns ctx's error). mcp-go keeps one process-wide stdio session, so run at
// most one ServeStdio at a time per process.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, version string, opts ...Option) error {
	stdio := server.NewStdioServer(New(version, opts...))
	server.WithWorkerPoolSize(stdioWorkers)(stdio)
	return stdio.Listen(ctx, in, out)
}

// hints marks a tool as touching nothing outside the server, which lets
// clients call it without asking the user.
func hints(title string, idempotent bool) []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithTitleAnnotation(title),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(idempotent),
		mcp.WithOpenWorldHintAnnotation(false),
	}
}

// newTool builds a tool from its name, description, annotations and parameters.
func newTool(name, description string, ann []mcp.ToolOption, params ...mcp.ToolOption) mcp.Tool {
	opts := append([]mcp.ToolOption{mcp.WithDescription(description)}, ann...)
	return mcp.NewTool(name, append(opts, params...)...)
}

// ServeHTTP serves the demo server over streamable HTTP (endpoint /mcp) on
// ln until ctx ends. announce is called with the endpoint URL once the
// server accepts connections.
func ServeHTTP(ctx context.Context, ln net.Listener, version string, announce func(url string)) error {
	srv := &http.Server{Handler: server.NewStreamableHTTPServer(New(version), server.WithStateful(true))}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	announce("http://" + ln.Addr().String() + "/mcp")
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
