package shaping_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/shaping"
)

// A middleware sees every call and its result on the way back. This one
// upper-cases text results of one server; Chain puts it around the final
// handler, which in the host calls the server.
func ExampleChain() {
	shout := func(server string) shaping.Middleware {
		return func(next shaping.Handler) shaping.Handler {
			return func(ctx context.Context, call shaping.Call) (shaping.Result, error) {
				res, err := next(ctx, call)
				if err != nil || call.Server != server || res.MCP == nil {
					return res, err
				}
				for i, c := range res.MCP.Content {
					if t, ok := c.(mcp.TextContent); ok {
						t.Text = strings.ToUpper(t.Text)
						res.MCP.Content[i] = t
					}
				}
				return res, nil
			}
		}
	}
	final := func(_ context.Context, call shaping.Call) (shaping.Result, error) {
		return shaping.Result{MCP: mcp.NewToolResultText("hello from " + call.Tool)}, nil
	}
	h := shaping.Chain(final, shout("loud"))
	for _, server := range []string{"loud", "quiet"} {
		res, err := h(context.Background(), shaping.Call{Server: server, Tool: "greet", Name: "mcp_" + server + "_greet"})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.MCP.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// HELLO FROM GREET
	// hello from greet
}
