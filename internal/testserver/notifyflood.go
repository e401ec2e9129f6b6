package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// notifyFlood writes notifications on the server's stdout in a tight loop
// (-notify-flood): tools/list_changed, progress for a token nobody asked
// for, a log message and resources/updated, round after round, as fast as
// the pipe takes them. It writes raw lines, not through mcp-go, whose
// notification queue would drop most of them inside the server: the point
// is what the reader of the pipe pays. Nothing is sent before the client
// has listed the tools once (it is initialized then).
type notifyFlood struct {
	out    io.Writer
	lists  atomic.Int64  // tools/list requests answered
	sent   atomic.Int64  // notifications written
	listed chan struct{} // closed once the tools were listed
	once   sync.Once
}

func newNotifyFlood(out io.Writer) *notifyFlood {
	return &notifyFlood{out: out, listed: make(chan struct{})}
}

// notifyFloodKinds are the lines of one round, %d the round number.
var notifyFloodKinds = []string{
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"flood-%d","progress":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"flood","data":"round %d"}}`,
	`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"flood://%d"}}`,
}

// hook counts tools/list answers and opens the flood after the first.
func (f *notifyFlood) hook(hooks *server.Hooks) {
	hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
		f.lists.Add(1)
		f.once.Do(func() { close(f.listed) })
	})
}

// run writes the notifications, once the tools were listed, until ctx ends
// or stdout fails.
func (f *notifyFlood) run(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-f.listed:
	}
	for round := 0; ctx.Err() == nil; round++ {
		for _, k := range notifyFloodKinds {
			line := k + "\n"
			if k != notifyFloodKinds[0] {
				line = fmt.Sprintf(k, round) + "\n"
			}
			if _, err := io.WriteString(f.out, line); err != nil {
				return
			}
			f.sent.Add(1)
		}
	}
}

func (f *notifyFlood) tool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("flood_stats", mcp.WithDescription(
			`Returns {"notifications", "lists"}: notifications written so far and tools/list requests received.`)),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultJSON(floodStats{Notifications: f.sent.Load(), Lists: f.lists.Load()})
		},
	}
}
