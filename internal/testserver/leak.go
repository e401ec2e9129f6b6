package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// With -leak-env NAME the server quotes its environment variable NAME, as
// "NAME=<value>", where a careless server would — for the secret-masking
// tests of what plughost passes on to clients:
//
//   - JSON-RPC error answers, in the message and in data: to tools/call of
//     leak_error, resources/read of test://leak and prompts/get of leak
//     (answered by leakCall before mcp-go sees the request, so the error
//     can carry data)
//   - the notifications/message that leak_log sends before its result
//     (stdio only)
//   - the result of leak_result (a tool's answer, which plughost passes on
//     unchanged)

// leakOptions are the server options of -leak-env: a resource, a prompt and
// log messages to leak through.
func leakOptions() []server.ServerOption {
	return []server.ServerOption{
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
	}
}

// addLeak registers what -leak-env offers; quote is "NAME=<value>", and
// stdout the server's (stdio only).
func addLeak(s *server.MCPServer, quote string, stdout io.Writer) {
	notIntercepted := errors.New("not intercepted: leakCall should have answered")
	s.AddResource(mcp.NewResource("test://leak", "leak", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, notIntercepted
		})
	s.AddPrompt(mcp.NewPrompt("leak", mcp.WithPromptDescription("Fails quoting the environment.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, notIntercepted })
	s.AddTools(
		server.ServerTool{Tool: mcp.NewTool("leak_error", mcp.WithDescription("Answers a JSON-RPC error quoting the environment.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, notIntercepted }},
		server.ServerTool{Tool: mcp.NewTool("leak_log", mcp.WithDescription("Sends a log message quoting the environment, then returns \"logged\".")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				// Written on stdout here, so it comes before the result: mcp-go
				// sends notifications from a goroutine of its own, which may
				// write them after the result, when the call is over.
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{
					"level": "error", "logger": "leak", "data": map[string]any{"message": "bad env " + quote, "env": quote}}})
				if _, err := stdout.Write(append(b, '\n')); err != nil {
					return nil, err
				}
				return mcp.NewToolResultText("logged"), nil
			}},
		server.ServerTool{Tool: mcp.NewTool("leak_result", mcp.WithDescription("Returns the environment variable as its result.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(quote), nil
			}},
	)
}

// leakQuote is "NAME=<value>" of the environment variable name.
func leakQuote(name string) string { return name + "=" + os.Getenv(name) }

// leakCall returns the error answer to msg when it is one of the requests
// -leak-env fails quoting the environment (see above), else nil.
func leakCall(name string) func(msg []byte) []byte {
	quote := leakQuote(name)
	return func(msg []byte) []byte {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 {
			return nil
		}
		code := 0
		switch {
		case req.Method == string(mcp.MethodToolsCall) && req.Params.Name == "leak_error":
			code = mcp.INTERNAL_ERROR
		case req.Method == string(mcp.MethodResourcesRead) && req.Params.URI == "test://leak":
			code = mcp.RESOURCE_NOT_FOUND
		case req.Method == string(mcp.MethodPromptsGet) && req.Params.Name == "leak":
			code = mcp.INVALID_PARAMS
		default:
			return nil
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
			"code": code, "message": req.Method + ": bad env " + quote,
			"data": map[string]any{"env": quote, "values": []string{os.Getenv(name)}},
		}})
		return b
	}
}
