package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// With -faithful the server offers the rest of the protocol, for the
// gateway's pass-through tests:
//
//   - resources: test://static (text, subscribable), test://<name>/own,
//     and the template test://items/{id}; `touch` sends
//     notifications/resources/updated for a URI, `add_resource` adds one
//     (and notifications/resources/list_changed)
//   - prompts: greet (argument "who", completed from alice, bob, carol)
//     and linked (embeds test://static)
//   - completions for greet's "who" and for the template's "id"
//   - logging: `log` sends notifications/message at a level
//   - progress: `progress` sends steps notifications/progress to the
//     call's progressToken
//   - sampling, elicitation, roots: `sample`, `elicit`, `roots` ask the
//     client and return its answer as JSON text
//   - links: `links` returns a resource link and an embedded resource
//   - tasks: `slow` (execution.taskSupport optional) sleeps ms, then
//     returns "slept <ms>ms"
//   - a gate: `hold` stays in progress until `release` is called (hold.go)

// faithfulOptions are the server options of -faithful.
func faithfulOptions() []server.ServerOption {
	return []server.ServerOption{
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{}),
		server.WithResourceCompletionProvider(completer{}),
		server.WithTaskCapabilities(true, true, true),
	}
}

// addFaithful registers the resources, prompts and tools of -faithful.
func addFaithful(s *server.MCPServer, name string) {
	text := func(uri, body string) server.ResourceHandlerFunc {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: body}}, nil
		}
	}
	s.AddResource(mcp.NewResource("test://static", "static", mcp.WithMIMEType("text/plain")),
		text("test://static", "static text of "+name))
	own := "test://" + name + "/own"
	s.AddResource(mcp.NewResource(own, "own", mcp.WithMIMEType("text/plain")), text(own, "own text of "+name))
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://items/{id}", "item"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain",
				Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/") + " of " + name}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greets someone."),
		mcp.WithArgument("who", mcp.RequiredArgument(), mcp.ArgumentDescription("Who to greet."))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Hello, "+req.Params.Arguments["who"]+", from "+name)),
			}), nil
		})
	s.AddPrompt(mcp.NewPrompt("linked", mcp.WithPromptDescription("Embeds test://static.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("linked", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://static", MIMEType: "text/plain", Text: "static text of " + name})),
			}), nil
		})
	s.AddTools(faithfulTools(s)...)
	s.AddTools(holdTools(s)...)
}

func faithfulTools(s *server.MCPServer) []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("touch", mcp.WithDescription("Sends notifications/resources/updated for uri."),
			mcp.WithString("uri", mcp.Required())), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uri := req.GetString("uri", "")
			if err := s.SendNotificationToClient(ctx, "notifications/resources/updated", map[string]any{"uri": uri}); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("touched " + uri), nil
		}},
		{Tool: mcp.NewTool("add_resource", mcp.WithDescription("Adds a text resource at uri, which sends notifications/resources/list_changed."),
			mcp.WithString("uri", mcp.Required())), Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uri := req.GetString("uri", "")
			s.AddResource(mcp.NewResource(uri, "added", mcp.WithMIMEType("text/plain")),
				func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "added"}}, nil
				})
			return mcp.NewToolResultText("added " + uri), nil
		}},
		{Tool: mcp.NewTool("log", mcp.WithDescription("Sends notifications/message with level and message."),
			mcp.WithString("level", mcp.Required()), mcp.WithString("message", mcp.Required())),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n := mcp.NewLoggingMessageNotification(mcp.LoggingLevel(req.GetString("level", "info")), "", req.GetString("message", ""))
				if err := s.SendLogMessageToClient(ctx, n); err != nil {
					return nil, err
				}
				return mcp.NewToolResultText("logged"), nil
			}},
		{Tool: mcp.NewTool("progress", mcp.WithDescription("Sends steps progress notifications to the call's progressToken."),
			mcp.WithNumber("steps", mcp.Required())), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			steps := req.GetInt("steps", 3)
			if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
				return mcp.NewToolResultText("no progressToken"), nil
			}
			token := req.Params.Meta.ProgressToken
			for i := 1; i <= steps; i++ {
				err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": steps})
				if err != nil {
					return nil, err
				}
			}
			return mcp.NewToolResultText(fmt.Sprintf("sent %d", steps)), nil
		}},
		{Tool: mcp.NewTool("sample", mcp.WithDescription("Asks the client for a sampling and returns its answer."),
			mcp.WithString("prompt", mcp.Required())), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where sampling is current; the host relays it
			res, err := s.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.GetString("prompt", ""))}},
				MaxTokens: 10,
			}})
			return jsonResult(res, err)
		}},
		{Tool: mcp.NewTool("elicit", mcp.WithDescription("Asks the client for a name and returns its answer."),
			mcp.WithString("message", mcp.Required())), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message:         req.GetString("message", ""),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "default": "ann"}}},
			}})
			return jsonResult(res, err)
		}},
		{Tool: mcp.NewTool("roots", mcp.WithDescription("Asks the client for its roots and returns them.")),
			Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
				return jsonResult(res, err)
			}},
		{Tool: mcp.NewTool("links", mcp.WithDescription("Returns a link to test://static and the resource embedded.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					mcp.NewResourceLink("test://static", "static", "", "text/plain"),
					mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://static", MIMEType: "text/plain", Text: "static"}),
				}}, nil
			}},
		{Tool: mcp.NewTool("slow", mcp.WithDescription("Sleeps ms milliseconds; can run as a task."),
			mcp.WithNumber("ms", mcp.Required()), mcp.WithTaskSupport(mcp.TaskSupportOptional)),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				// The context is not honoured: mcp-go's stdio server ends it
				// once the call is answered, which for a task is at once.
				ms := req.GetInt("ms", 0)
				time.Sleep(time.Duration(ms) * time.Millisecond)
				return mcp.NewToolResultText(fmt.Sprintf("slept %dms", ms)), nil
			}},
	}
}

// jsonResult returns v as JSON text, or err as a tool error.
func jsonResult(v any, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// completer completes greet's "who" and the item template's "id".
type completer struct{}

func (completer) CompletePromptArgument(_ context.Context, _ string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: withPrefix([]string{"alice", "bob", "carol"}, arg.Value)}, nil
}

func (completer) CompleteResourceArgument(_ context.Context, _ string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: withPrefix([]string{"1", "2", "3"}, arg.Value)}, nil
}

func withPrefix(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}
