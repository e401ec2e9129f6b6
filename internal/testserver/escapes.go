package main

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Escapes is what -escapes writes wherever a server's text reaches a
// terminal: a colour code, an OSC window title, a bell, an 8-bit CSI as a
// raw byte (not UTF-8) and as the C1 character U+009B, and a carriage
// return that would hide what came before it on the line.
const Escapes = "colour \x1b[31mRED\x1b[0m title \x1b]0;pwned\x07 csi8 \x9b2J c1 \u009b2J cr \rend"

// With -escapes the server writes Escapes to its stderr at startup (before
// -fail-start exits, so it becomes the last error), in the description of
// the escapes tool and of its parameter, in that tool's result, and in the
// JSON-RPC error of escapes_error.

// escapesTools are the tools of -escapes.
func escapesTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("escapes", mcp.WithDescription("Returns terminal escapes: "+Escapes),
			mcp.WithString("text", mcp.Description("Ignored. "+Escapes))),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("result " + Escapes), nil
			}},
		{Tool: mcp.NewTool("escapes_error", mcp.WithDescription("Answers a JSON-RPC error with terminal escapes.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("error " + Escapes)
			}},
	}
}
