package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// serveGarbage answers every request line with a line that is not JSON
// (-garbage): a server that prints logs on stdout instead of speaking MCP.
func serveGarbage(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if _, err := fmt.Fprintf(out, "garbage line %d: this server prints logs on stdout\n", n); err != nil {
			return err
		}
	}
	return sc.Err()
}

// serveHugeLine reads the first request, then writes mb MiB of 'x' on
// stdout without a newline (-huge-line) and keeps reading stdin until it
// closes: a message no limit-less reader could hold.
func serveHugeLine(in io.Reader, out io.Writer, mb int) error {
	r := bufio.NewReader(in)
	if _, err := r.ReadString('\n'); err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	for range mb {
		if _, err := out.Write(chunk); err != nil {
			return err // the host gave up reading: expected
		}
	}
	_, err := io.Copy(io.Discard, r)
	return err
}

// junkTool writes its text as one raw line on stdout, between the server's
// messages, then answers normally: a server that logs on stdout mid-session.
func (f *fixture) junkTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("junk", mcp.WithDescription("Writes text as a raw line on stdout (not JSON-RPC), then returns \"ok\"."),
			mcp.WithString("text", mcp.Required(), mcp.Description("The line to write."))),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if _, err := io.WriteString(f.stdout, text+"\n"); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("ok"), nil
		},
	}
}

// syncWriter serialises writes to the server's stdout, shared by mcp-go's
// stdio server and the junk tool, so a junk line never splits a message.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
