package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// flood sends notifications/tools/list_changed every interval (a server
// stuck announcing changes) and counts what it sent and how often its tools
// were listed, for the flood_stats tool.
type flood struct {
	interval      time.Duration
	lists         atomic.Int64 // tools/list requests received
	notifications atomic.Int64 // list_changed sent since the first tools/list
}

// floodStats is the flood_stats tool's result.
type floodStats struct {
	Notifications int64 `json:"notifications"`
	Lists         int64 `json:"lists"`
}

// hook counts tools/list requests.
func (f *flood) hook(hooks *server.Hooks) {
	hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { f.lists.Add(1) })
}

// run sends the notifications until ctx ends. Before the client has listed
// the tools once (it is then initialized) nothing is sent.
func (f *flood) run(ctx context.Context, s *server.MCPServer) {
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if f.lists.Load() == 0 {
			continue
		}
		s.SendNotificationToAllClients(string(mcp.MethodNotificationToolsListChanged), nil)
		f.notifications.Add(1)
	}
}

func (f *flood) tool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("flood_stats", mcp.WithDescription(
			`Returns {"notifications", "lists"}: list_changed notifications sent so far and tools/list requests received.`)),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultJSON(floodStats{Notifications: f.notifications.Load(), Lists: f.lists.Load()})
		},
	}
}
