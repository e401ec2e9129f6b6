package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/internal/testbin"
)

// stdioPipes runs serve (a gateway's ServeStdio) on pipes until the test
// ends and returns the client's transport over them.
func stdioPipes(t *testing.T, serve func(ctx context.Context, in io.Reader, out io.Writer) error) transport.Interface {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	errR, errW := io.Pipe() // the client's "stderr": nothing is written to it
	t.Cleanup(func() { errW.Close() })
	return transport.NewIO(outR, inW, errR)
}

// server-everything behind plughost's stdio gateway: progress before the
// result it belongs to, sampling routed to the client, a task run to its
// result, resources, templates, prompts and completions under plughost's
// names, and resource links a client can read.
func TestEverythingThroughTheGateway(t *testing.T) {
	integration(t)
	t.Parallel() // its own servers, host and front door
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	h := startHost(t, map[string]any{
		"everything": map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"}},
	}, nil)
	c := startFaithful(t, stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio), true)

	req := mcp.CallToolRequest{}
	req.Params.Name = "mcp_everything_trigger-long-running-operation"
	req.Params.Arguments = map[string]any{"duration": 0.3, "steps": 3}
	req.Params.Meta = &mcp.Meta{ProgressToken: 42}
	if _, err := c.CallTool(ctx20(t), req); err != nil {
		t.Fatal(err)
	}
	if got := c.notifications("notifications/progress"); len(got) != 3 || got[2].Params.AdditionalFields["progressToken"] != float64(42) {
		t.Errorf("when the call returned the client had progress %v; want 3 notifications with token 42", got)
	}

	res := c.call(t, "mcp_everything_trigger-sampling-request", map[string]any{"prompt": "hello", "maxTokens": 5})
	if !strings.Contains(text(res), "sampled by the test client") {
		t.Errorf("sampling: %q", text(res))
	}

	t.Run("resources", func(t *testing.T) {
		list, err := c.ListResources(ctx20(t), mcp.ListResourcesRequest{})
		if err != nil || len(list.Resources) == 0 {
			t.Fatalf("resources/list: %v, %v", list, err)
		}
		first := list.Resources[0].URI
		if strings.HasPrefix(first, "plughost://") {
			t.Errorf("one server's URIs need no per-server form: %s", first)
		}
		read, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: first}})
		if err != nil || len(read.Contents) == 0 {
			t.Errorf("read %s: %v, %v", first, read, err)
		}
		tmpls, err := c.ListResourceTemplates(ctx20(t), mcp.ListResourceTemplatesRequest{})
		if err != nil || len(tmpls.ResourceTemplates) == 0 {
			t.Fatalf("templates: %v, %v", tmpls, err)
		}
		links := c.call(t, "mcp_everything_get-resource-links", map[string]any{"count": 2})
		for _, ct := range links.Content {
			if l, ok := ct.(mcp.ResourceLink); ok {
				if _, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: l.URI}}); err != nil {
					t.Errorf("reading the link %s a tool returned: %v", l.URI, err)
				}
			}
		}
	})

	t.Run("prompts", func(t *testing.T) {
		p, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "mcp_everything_args-prompt", Arguments: map[string]string{"city": "Oslo"}}})
		if err != nil || !strings.Contains(promptText(p), "Oslo") {
			t.Errorf("prompts/get args-prompt: %+v, %v", p, err)
		}
		comp, err := c.Complete(ctx20(t), mcp.CompleteRequest{Params: mcp.CompleteParams{
			Ref: mcp.PromptReference{Type: "ref/prompt", Name: "mcp_everything_completable-prompt"}, Argument: mcp.CompleteArgument{Name: "department", Value: "E"}}})
		if err != nil || len(comp.Completion.Values) == 0 {
			t.Errorf("completion: %+v, %v", comp, err)
		}
	})

	t.Run("task", func(t *testing.T) {
		raw := json.RawMessage(`{"name":"mcp_everything_simulate-research-query","arguments":{"topic":"owls"},"task":{"ttl":60000}}`)
		created := rawRequest(t, c, "tools/call", raw)
		var cr struct {
			Task struct{ TaskID, Status string }
		}
		if err := json.Unmarshal(created, &cr); err != nil || cr.Task.TaskID == "" || !strings.HasPrefix(cr.Task.TaskID, "everything/") {
			t.Fatalf("a task-augmented call: %s", created)
		}
		id, _ := json.Marshal(cr.Task.TaskID)
		got := rawRequest(t, c, "tasks/get", json.RawMessage(`{"taskId":`+string(id)+`}`))
		if !strings.Contains(string(got), string(id)) {
			t.Errorf("tasks/get: %s", got)
		}
		result := rawRequest(t, c, "tasks/result", json.RawMessage(`{"taskId":`+string(id)+`}`))
		if !strings.Contains(string(result), "owls") {
			t.Errorf("tasks/result: %s", result)
		}
		c.waitNote(t, "notifications/tasks/status", `"taskId":`+string(id))
	})
}

// rawRequest sends a request through the client's transport and returns
// the raw result.
func rawRequest(t *testing.T, c *faithfulClient, method string, params json.RawMessage) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("raw-" + method), Method: method, Params: params})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if resp.Error != nil {
		t.Fatalf("%s: error %d %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result
}

func promptText(p *mcp.GetPromptResult) string {
	var b strings.Builder
	for _, m := range p.Messages {
		if tc, ok := m.Content.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
