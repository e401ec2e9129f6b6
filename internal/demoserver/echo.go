package demoserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type echoArgs struct {
	Text string `json:"text"`
}

func echoTool() server.ServerTool {
	tool := newTool("echo",
		"Returns the given text unchanged. Useful to check that the connection to the server works "+
			"and how text round-trips through the client.",
		hints("Echo", true),
		mcp.WithString("text", mcp.Required(), mcp.Description("Text to send back verbatim.")),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(echo)}
}

func echo(_ context.Context, _ mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(args.Text), nil
}
