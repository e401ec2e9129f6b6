package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A gate lets a test keep a call in progress for as long as it needs,
// without timing: `hold` sends notifications/progress to the call's
// progressToken (if any) once it waits, so the client knows the call is in
// progress at the server, and returns "released" when `release` is called;
// `release` waits until at least one hold is waiting, then releases every
// hold waiting. Both honour cancellation.
type gate struct {
	holders chan chan struct{} // each waiting hold's wake-up
}

// holdTools are the tools of the gate (part of -faithful).
func holdTools(s *server.MCPServer) []server.ServerTool {
	g := &gate{holders: make(chan chan struct{}, 64)}
	return []server.ServerTool{
		{Tool: mcp.NewTool("hold", mcp.WithDescription("Waits until release is called; tells the progressToken once it waits.")),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return g.hold(ctx, s, req)
			}},
		{Tool: mcp.NewTool("release", mcp.WithDescription("Waits for a hold to be waiting, then releases every waiting hold.")),
			Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return g.release(ctx)
			}},
	}
}

func (g *gate) hold(ctx context.Context, s *server.MCPServer, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	wake := make(chan struct{})
	select {
	case g.holders <- wake:
	case <-ctx.Done():
		return mcp.NewToolResultError("cancelled before holding: " + ctx.Err().Error()), nil
	}
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		err := s.SendNotificationToClient(ctx, "notifications/progress",
			map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": 0, "message": "holding"})
		if err != nil {
			return nil, fmt.Errorf("telling the client the hold began: %w", err)
		}
	}
	select {
	case <-wake:
		return mcp.NewToolResultText("released"), nil
	case <-ctx.Done():
		return mcp.NewToolResultError("cancelled while holding: " + ctx.Err().Error()), nil
	}
}

func (g *gate) release(ctx context.Context) (*mcp.CallToolResult, error) {
	n := 0
	select {
	case wake := <-g.holders:
		close(wake)
		n++
	case <-ctx.Done():
		return mcp.NewToolResultError("cancelled before any hold waited: " + ctx.Err().Error()), nil
	}
	for {
		select {
		case wake := <-g.holders:
			close(wake)
			n++
		default:
			return mcp.NewToolResultText(fmt.Sprintf("released %d", n)), nil
		}
	}
}
