package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// requestIDKey is the _meta field the before-call hook uses to hand the
// JSON-RPC request id to handlers (mcp-go does not put it in the context).
const requestIDKey = "testserver/requestId"

// maxBigChars bounds the big tool (100 MB).
const maxBigChars = 100_000_000

// fixture holds what the tool handlers share.
type fixture struct {
	stderr     io.Writer
	stdout     io.Writer // the server's stdout (stdio only), for the junk tool
	grandchild int       // pid of the -spawn-grandchild process, 0 if none
	server     *server.MCPServer
	flood      *flood // with -flood, else nil
	// notifyFlood is the -notify-flood writer, else nil.
	notifyFlood *notifyFlood
}

func newServer(ctx context.Context, o options, f *fixture) (*server.MCPServer, error) {
	hooks := &server.Hooks{}
	var rp *rugPull
	if o.rugPull > 0 {
		rp = &rugPull{delay: o.rugPull}
	}
	hooks.AddBeforeCallTool(stashRequestID)
	var fl *flood
	if o.flood > 0 {
		fl = &flood{interval: o.flood}
		fl.hook(hooks)
	}
	if o.notifyFlood {
		f.notifyFlood = newNotifyFlood(f.stdout)
		f.notifyFlood.hook(hooks)
	}
	sopts := []server.ServerOption{
		// listChanged: true makes AddTool/DeleteTools send
		// notifications/tools/list_changed to the initialized session.
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
	}
	if o.faithful {
		sopts = append(sopts, faithfulOptions()...)
	} else if o.vendorResult { // its task's tasks/result is answered by vendorCall
		sopts = append(sopts, server.WithTaskCapabilities(true, true, true))
	}
	if o.leakEnv != "" && !o.faithful {
		sopts = append(sopts, leakOptions()...)
	}
	s := server.NewMCPServer(o.name, "0.0.0-test", sopts...)
	f.server = s
	if rp != nil {
		rp.hook(ctx, hooks, s)
		s.AddTools(weatherTool(WeatherDescription))
	}
	if o.rugPullAfter != "" {
		weather, err := weatherAfterRestart(o.rugPullAfter)
		if err != nil {
			return nil, err
		}
		s.AddTools(weather)
	}
	s.AddTools(f.tools()...)
	if o.faithful {
		addFaithful(s, o.name)
	}
	s.AddTools(extraTools(o.extraTools)...)
	if o.junkTool {
		s.AddTools(f.junkTool())
	}
	if o.vendorResult {
		s.AddTools(vendorTool())
	}
	if o.leakEnv != "" {
		addLeak(s, leakQuote(o.leakEnv), f.stdout)
	}
	if o.escapes {
		s.AddTools(escapesTools()...)
	}
	if fl != nil {
		s.AddTools(fl.tool())
		f.flood = fl
	}
	if f.notifyFlood != nil {
		s.AddTools(f.notifyFlood.tool())
	}
	return s, nil
}

// stashRequestID copies the request id into the request's _meta, which the
// handler receives.
func stashRequestID(_ context.Context, id any, req *mcp.CallToolRequest) {
	if req.Params.Meta == nil {
		req.Params.Meta = &mcp.Meta{}
	}
	if req.Params.Meta.AdditionalFields == nil {
		req.Params.Meta.AdditionalFields = map[string]any{}
	}
	req.Params.Meta.AdditionalFields[requestIDKey] = id
}

// requestID renders the id stashed by stashRequestID as it appeared on the
// wire: 7 for a numeric id, abc for a string id.
func requestID(req mcp.CallToolRequest) string {
	if req.Params.Meta == nil {
		return "?"
	}
	switch id := req.Params.Meta.AdditionalFields[requestIDKey].(type) {
	case float64:
		return strconv.FormatFloat(id, 'f', -1, 64)
	case nil:
		return "?"
	default:
		return fmt.Sprint(id)
	}
}

func (f *fixture) tools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("noop", mcp.WithDescription("Returns \"ok\". For latency benchmarks.")), Handler: noop},
		{Tool: mcp.NewTool("echo", mcp.WithDescription("Returns text unchanged."),
			mcp.WithString("text", mcp.Required(), mcp.Description("Text to return."))), Handler: echo},
		{Tool: mcp.NewTool("env", mcp.WithDescription("Returns the process environment as a JSON object.")), Handler: env},
		{Tool: mcp.NewTool("pid", mcp.WithDescription(
			"Returns {\"pid\", \"ppid\"} of the server process, plus \"grandchild\" with -spawn-grandchild.")), Handler: f.pid},
		{Tool: mcp.NewTool("sleep", mcp.WithDescription(
			"Sleeps for seconds, honouring cancellation. Writes \"sleeping <id>\" to stderr when it starts "+
				"and \"cancelled <id>\" when the request is cancelled."),
			mcp.WithNumber("seconds", mcp.Required(), mcp.Min(0), mcp.Description("How long to sleep."))), Handler: f.sleep},
		{Tool: mcp.NewTool("add_tool", mcp.WithDescription(
			"Adds a no-op tool at runtime, which sends notifications/tools/list_changed."),
			mcp.WithString("name", mcp.Required(), mcp.Description("Name of the tool to add."))), Handler: f.addTool},
		{Tool: mcp.NewTool("remove_tool", mcp.WithDescription(
			"Removes a tool at runtime, which sends notifications/tools/list_changed."),
			mcp.WithString("name", mcp.Required(), mcp.Description("Name of the tool to remove."))), Handler: f.removeTool},
		{Tool: mcp.NewTool("stderr", mcp.WithDescription("Writes text to stderr (a newline is added if missing)."),
			mcp.WithString("text", mcp.Required(), mcp.Description("Text to write."))), Handler: f.writeStderr},
		{Tool: mcp.NewTool("headers", mcp.WithDescription(
			"Returns the HTTP request headers of this call as a JSON object (empty over stdio).")), Handler: headers},
		{Tool: mcp.NewTool("crash", mcp.WithDescription("Writes \"crashing\" to stderr and exits with status 3.")), Handler: f.crash},
		{Tool: mcp.NewTool("big", mcp.WithDescription("Returns a text of chars 'x' characters."),
			mcp.WithInteger("chars", mcp.Required(), mcp.Min(0), mcp.Max(maxBigChars), mcp.Description("Length of the text.")),
			mcp.WithBoolean("notify", mcp.Description("Send a notifications/message first, so a streamable-HTTP answer comes as an event stream."))),
			Handler: big},
	}
}

func extraTools(n int) []server.ServerTool {
	tools := make([]server.ServerTool, n)
	for i := range tools {
		tools[i] = server.ServerTool{
			Tool: mcp.NewTool(fmt.Sprintf("tool_%d", i),
				mcp.WithDescription(fmt.Sprintf("Synthetic no-op tool number %d for scale tests; returns \"ok\".", i))),
			Handler: noop,
		}
	}
	return tools
}

func noop(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

func env(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	vars := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return mcp.NewToolResultJSON(vars)
}

// pidInfo is the pid tool's result.
type pidInfo struct {
	PID        int `json:"pid"`
	PPID       int `json:"ppid"`
	Grandchild int `json:"grandchild,omitempty"`
}

func (f *fixture) pid(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultJSON(pidInfo{PID: os.Getpid(), PPID: os.Getppid(), Grandchild: f.grandchild})
}

func (f *fixture) sleep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	seconds, err := req.RequireFloat("seconds")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	id := requestID(req)
	fmt.Fprintf(f.stderr, "sleeping %s\n", id)
	timer := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	defer timer.Stop()
	select {
	case <-timer.C:
		return mcp.NewToolResultText(fmt.Sprintf("slept %gs", seconds)), nil
	case <-ctx.Done():
		fmt.Fprintf(f.stderr, "cancelled %s\n", id)
		return mcp.NewToolResultError("cancelled: " + ctx.Err().Error()), nil
	}
}

func (f *fixture) addTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil || name == "" {
		return mcp.NewToolResultError("name is required"), nil
	}
	f.server.AddTool(mcp.NewTool(name, mcp.WithDescription("No-op tool added at runtime by add_tool.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok from " + name), nil
		})
	return mcp.NewToolResultText("added " + name), nil
}

func (f *fixture) removeTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if f.server.GetTool(name) == nil {
		return mcp.NewToolResultError("no tool " + name), nil
	}
	f.server.DeleteTools(name)
	return mcp.NewToolResultText("removed " + name), nil
}

func (f *fixture) writeStderr(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(f.stderr, text)
	return mcp.NewToolResultText("ok"), nil
}

func (f *fixture) crash(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	io.WriteString(f.stderr, "crashing\n")
	os.Exit(3)
	return nil, nil
}

func big(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := req.RequireInt("chars")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if n < 0 || n > maxBigChars {
		return mcp.NewToolResultError(fmt.Sprintf("chars must be between 0 and %d", maxBigChars)), nil
	}
	if s := server.ServerFromContext(ctx); s != nil && req.GetBool("notify", false) {
		note := map[string]any{"level": "info", "logger": "big", "data": fmt.Sprintf("sending %d chars", n)}
		if err := s.SendNotificationToClient(ctx, "notifications/message", note); err != nil {
			return nil, err
		}
	}
	return mcp.NewToolResultText(strings.Repeat("x", n)), nil
}

// headers reports the HTTP headers the call arrived with.
func headers(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	out := map[string]string{}
	for k, v := range req.Header {
		out[k] = strings.Join(v, ", ")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}
