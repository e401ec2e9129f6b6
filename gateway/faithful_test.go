package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
)

// faithfulClient is an mcp-go client of the gateway that answers sampling,
// elicitation and roots and records every notification.
type faithfulClient struct {
	*mcpClient
	name  string // in its sampling answers
	root  string // the name of its one root, file:///<root> ("": work)
	hold  func() // if set, runs before a sampling answer
	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
	asked []string // server requests answered, by method
	got   chan struct{}
}

func (c *faithfulClient) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	c.record("sampling/createMessage")
	if c.hold != nil {
		c.hold()
	}
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled by the test client" + c.name)}, Model: "test-model", StopReason: "endTurn"}, nil
}

func (c *faithfulClient) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	c.record("elicitation/create")
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "zed"}}}, nil
}

func (c *faithfulClient) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	c.record("roots/list")
	root := c.root
	if root == "" {
		root = "work"
	}
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///" + root, Name: root}}}, nil
}

func (c *faithfulClient) record(method string) {
	c.mu.Lock()
	c.asked = append(c.asked, method)
	c.mu.Unlock()
}

// notifications returns the notifications of method received so far.
func (c *faithfulClient) notifications(method string) []mcp.JSONRPCNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []mcp.JSONRPCNotification
	for _, n := range c.notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// waitNote waits for a notification of method whose params contain want.
func (c *faithfulClient) waitNote(t *testing.T, method, want string) mcp.JSONRPCNotification {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		for _, n := range c.notifications(method) {
			if b, _ := json.Marshal(n.Params); strings.Contains(string(b), want) {
				return n
			}
		}
		select {
		case <-c.got:
		case <-deadline:
			t.Fatalf("no %s with %s; got %v", method, want, c.notifications(method))
		}
	}
}

// connectFaithful opens a session to url; capabilities false declares none
// of sampling, elicitation and roots.
func connectFaithful(t *testing.T, url string, capabilities bool) *faithfulClient {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken.Reveal()}),
		//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where the GET stream carries a session's notifications
		transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	return startFaithful(t, tr, capabilities)
}

// startFaithful starts a faithfulClient on tr; capabilities false declares
// none of sampling, elicitation and roots.
func startFaithful(t *testing.T, tr transport.Interface, capabilities bool) *faithfulClient {
	t.Helper()
	c := &faithfulClient{got: make(chan struct{}, 1)}
	if capabilities {
		return startFaithfulClient(t, c, tr)
	}
	return startClient(t, c, tr, false)
}

// startFaithfulClient starts c, declaring sampling, elicitation and roots.
func startFaithfulClient(t *testing.T, c *faithfulClient, tr transport.Interface) *faithfulClient {
	t.Helper()
	return startClient(t, c, tr, true)
}

func startClient(t *testing.T, c *faithfulClient, tr transport.Interface, capabilities bool) *faithfulClient {
	t.Helper()
	opts := []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}
	if capabilities {
		opts = append(opts, client.WithSamplingHandler(c), client.WithElicitationHandler(c), client.WithRootsHandler(c))
	}
	c.mcpClient = &mcpClient{Client: client.NewClient(tr, opts...), changed: make(chan struct{}, 64)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		c.mu.Lock()
		c.notes = append(c.notes, n)
		c.mu.Unlock()
		select {
		case c.got <- struct{}{}:
		default:
		}
	})
	initialize(t, c.Client, "faithful-test")
	return c
}

func ctx20(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func resourceText(t *testing.T, res *mcp.ReadResourceResult) (uri, text string) {
	t.Helper()
	if len(res.Contents) != 1 {
		t.Fatalf("contents %+v", res.Contents)
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("contents %+v", res.Contents)
	}
	return tc.URI, tc.Text
}

// Two servers with the same resources, prompts and tools behind /mcp: a
// client sees every server's resources (URIs that collide in the
// per-server form, unique ones as written), prompts under mcp_<server>_
// names, completions, logging, progress, sampling, elicitation, roots,
// resource links and tasks, each routed to the right server and back.
func TestAggregateEndpointIsFaithful(t *testing.T) {
	integration(t)
	t.Parallel() // its own servers, host and front door
	h := startHost(t, map[string]any{
		"a": testserver(map[string]any{"roots": []string{"/srv/configured"}}, "-name", "a", "-faithful"),
		"b": testserver(nil, "-name", "b", "-faithful"),
	}, nil)
	url, _ := serveHTTP(t, h)
	c := connectFaithful(t, url, true)
	caps := c.GetServerCapabilities()
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil || caps.Logging == nil || caps.Completions == nil || caps.Tasks == nil {
		t.Errorf("capabilities %+v; want resources (subscribe), prompts, logging, completions, tasks", caps)
	}

	t.Run("resources", func(t *testing.T) {
		list, err := c.ListResources(ctx20(t), mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range list.Resources {
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		want := []string{"plughost://a/test://static", "plughost://b/test://static", "test://a/own", "test://b/own"}
		if diff := cmp.Diff(want, uris); diff != "" {
			t.Errorf("resources/list URIs (-want +got):\n%s", diff)
		}
		tmpls, err := c.ListResourceTemplates(ctx20(t), mcp.ListResourceTemplatesRequest{})
		if err != nil || len(tmpls.ResourceTemplates) != 2 || tmpls.ResourceTemplates[1].URITemplate.Raw() != "plughost://b/test://items/{id}" {
			t.Errorf("resources/templates/list: %+v, %v", tmpls, err)
		}
		for uri, want := range map[string]string{
			"test://a/own":                "own text of a",
			"plughost://b/test://static":  "static text of b",
			"plughost://a/test://items/7": "item 7 of a",
		} {
			res, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
			if err != nil {
				t.Errorf("read %s: %v", uri, err)
				continue
			}
			if gotURI, text := resourceText(t, res); gotURI != uri || text != want {
				t.Errorf("read %s = %s %q; want the same URI and %q", uri, gotURI, text, want)
			}
		}
		_, err = c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "test://static"}})
		if err == nil || !strings.Contains(err.Error(), "plughost://a/test://static") {
			t.Errorf("reading a URI two servers offer: %v; want an error naming the per-server form", err)
		}
	})

	t.Run("prompts and completions", func(t *testing.T) {
		list, err := c.ListPrompts(ctx20(t), mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Prompts {
			names = append(names, p.Name)
		}
		if diff := cmp.Diff([]string{"mcp_a_greet", "mcp_a_linked", "mcp_b_greet", "mcp_b_linked"}, names); diff != "" {
			t.Errorf("prompts (-want +got):\n%s", diff)
		}
		got, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "mcp_b_greet", Arguments: map[string]string{"who": "x"}}})
		if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(mcp.TextContent).Text != "Hello, x, from b" {
			t.Errorf("prompts/get mcp_b_greet: %+v, %v", got, err)
		}
		linked, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "mcp_a_linked"}})
		if err != nil {
			t.Fatal(err)
		}
		if er, ok := linked.Messages[0].Content.(mcp.EmbeddedResource); !ok || er.Resource.(mcp.TextResourceContents).URI != "plughost://a/test://static" {
			t.Errorf("an embedded resource of a prompt: %+v; want its URI in the per-server form", linked.Messages[0].Content)
		}
		if _, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "greet"}}); err == nil || !strings.Contains(err.Error(), "unknown prompt") {
			t.Errorf("a server's own prompt name on /mcp: %v; want unknown prompt", err)
		}
		comp, err := c.Complete(ctx20(t), mcp.CompleteRequest{Params: mcp.CompleteParams{
			Ref: mcp.PromptReference{Type: "ref/prompt", Name: "mcp_a_greet"}, Argument: mcp.CompleteArgument{Name: "who", Value: "b"}}})
		if err != nil || !cmp.Equal(comp.Completion.Values, []string{"bob"}) {
			t.Errorf("complete a prompt argument: %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx20(t), mcp.CompleteRequest{Params: mcp.CompleteParams{
			Ref: mcp.ResourceReference{Type: "ref/resource", URI: "plughost://b/test://items/{id}"}, Argument: mcp.CompleteArgument{Name: "id", Value: "2"}}})
		if err != nil || !cmp.Equal(comp.Completion.Values, []string{"2"}) {
			t.Errorf("complete a template argument: %+v, %v", comp, err)
		}
	})

	t.Run("server requests and progress", func(t *testing.T) {
		res := c.call(t, "mcp_a_sample", map[string]any{"prompt": "hi"})
		if !strings.Contains(text(res), "sampled by the test client") {
			t.Errorf("sampling: %q", text(res))
		}
		res = c.call(t, "mcp_b_elicit", map[string]any{"message": "name?"})
		if !strings.Contains(text(res), `"zed"`) || !strings.Contains(text(res), "accept") {
			t.Errorf("elicitation: %q", text(res))
		}
		// A shared connection gets the server's configured roots, never a
		// client's (see isolation_test.go for a session's own connection).
		res = c.call(t, "mcp_a_roots", nil)
		if !strings.Contains(text(res), "file:///srv/configured") || strings.Contains(text(res), "file:///work") {
			t.Errorf("roots: %q; want the configured file:///srv/configured, not the client's file:///work", text(res))
		}
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "mcp_b_progress", map[string]any{"steps": 3}
		req.Params.Meta = &mcp.Meta{ProgressToken: "tok-7"}
		if _, err := c.CallTool(ctx20(t), req); err != nil {
			t.Fatal(err)
		}
		// mcp-go's stdio server writes notifications from a goroutine of
		// their own, so they may follow its answer: wait for them.
		c.waitNote(t, "notifications/progress", `"progress":3`)
		got := c.notifications("notifications/progress")
		if len(got) != 3 {
			t.Fatalf("the client got %d progress notifications, want 3", len(got))
		}
		var steps []float64 // the order is the server's business (see above)
		for _, n := range got {
			if n.Params.AdditionalFields["progressToken"] != "tok-7" {
				t.Errorf("progress %v; want the client's token", n.Params.AdditionalFields)
			}
			steps = append(steps, n.Params.AdditionalFields["progress"].(float64))
		}
		if slices.Sort(steps); !cmp.Equal(steps, []float64{1, 2, 3}) {
			t.Errorf("progress steps %v, want 1, 2, 3", steps)
		}
	})

	t.Run("logging", func(t *testing.T) {
		//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where logging/setLevel is current; the gateway forwards it
		if err := c.SetLevel(ctx20(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}}); err != nil {
			t.Fatal(err)
		}
		c.call(t, "mcp_a_log", map[string]any{"level": "info", "message": "quiet"})
		c.call(t, "mcp_a_log", map[string]any{"level": "error", "message": "loud"})
		n := c.waitNote(t, "notifications/message", "loud")
		if n.Params.AdditionalFields["logger"] != "a" {
			t.Errorf("log message %v; want logger naming server a", n.Params.AdditionalFields)
		}
		for _, n := range c.notifications("notifications/message") {
			if b, _ := json.Marshal(n.Params); strings.Contains(string(b), "quiet") {
				t.Errorf("an info message reached a session at level warning: %s", b)
			}
		}
	})

	t.Run("links and subscriptions", func(t *testing.T) {
		res := c.call(t, "mcp_b_links", nil)
		link, ok1 := res.Content[0].(mcp.ResourceLink)
		emb, ok2 := res.Content[len(res.Content)-1].(mcp.EmbeddedResource)
		if !ok1 || !ok2 || link.URI != "plughost://b/test://static" || emb.Resource.(mcp.TextResourceContents).URI != "plughost://b/test://static" ||
			!strings.Contains(text(res), "<plughost://b/test://static>") {
			t.Errorf("resource links in a result: %+v; want URIs in the per-server form", res.Content)
		}
		//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where resources/subscribe is current; the gateway forwards it
		if err := c.Subscribe(ctx20(t), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: "test://a/own"}}); err != nil {
			t.Fatal(err)
		}
		c.call(t, "mcp_a_touch", map[string]any{"uri": "test://a/own"})
		c.waitNote(t, "notifications/resources/updated", `"test://a/own"`)
		c.call(t, "mcp_b_add_resource", map[string]any{"uri": "test://b/added"})
		c.waitNote(t, "notifications/resources/list_changed", "")
		list, err := c.ListResources(ctx20(t), mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range list.Resources {
			found = found || r.URI == "test://b/added"
		}
		if !found {
			t.Errorf("after list_changed, resources/list %v lacks test://b/added", list.Resources)
		}
	})

	t.Run("tasks", func(t *testing.T) {
		raw := newRaw(t, url)
		raw.initialize()
		r := raw.request(1, "tools/call", `{"name":"mcp_a_slow","arguments":{"ms":20},"task":{"ttl":60000}}`)
		var created struct {
			Result struct {
				Task struct{ TaskID, Status string }
			}
		}
		if err := json.Unmarshal([]byte(lastEvent(r)), &created); err != nil || !strings.HasPrefix(created.Result.Task.TaskID, "a/") {
			t.Fatalf("a task-augmented call: %s; want a task with an id a/<id>", r.body)
		}
		id := created.Result.Task.TaskID
		res := raw.request(2, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
		if txt, isErr := resultText(t, res.msg(t)); txt != "slept 20ms" || isErr {
			t.Errorf("tasks/result: %s", res.body)
		}
		if !strings.Contains(res.body, id) {
			t.Errorf("tasks/result %s; want the related task's id as the client knows it", res.body)
		}
		list := raw.request(3, "tasks/list", `{}`)
		if !strings.Contains(list.body, id) {
			t.Errorf("tasks/list: %s; want %s", list.body, id)
		}
		r = raw.request(6, "tools/call", `{"name":"mcp_b_slow","arguments":{"ms":3000},"task":{}}`)
		if err := json.Unmarshal([]byte(lastEvent(r)), &created); err != nil || !strings.HasPrefix(created.Result.Task.TaskID, "b/") {
			t.Fatalf("a second task: %s", r.body)
		}
		cancelled := raw.request(7, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, created.Result.Task.TaskID))
		if !strings.Contains(cancelled.body, `"status":"cancelled"`) || !strings.Contains(cancelled.body, created.Result.Task.TaskID) {
			t.Errorf("tasks/cancel: %s; want the task cancelled, under the client's id", cancelled.body)
		}
		other := newRaw(t, url)
		other.initialize()
		if code, _ := errorOf(t, other.request(4, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id)).msg(t)); code != -32602 {
			t.Errorf("another session's tasks/get: code %v; want -32602", code)
		}
		if l := other.request(5, "tasks/list", `{}`); strings.Contains(l.body, id) {
			t.Errorf("another session lists the task: %s", l.body)
		}
	})

	t.Run("a client without the capability", func(t *testing.T) {
		plain := connectFaithful(t, url, false)
		res := plain.call(t, "mcp_a_sample", map[string]any{"prompt": "hi"})
		if !res.IsError || !strings.Contains(text(res), "sampling") {
			t.Errorf("sampling for a client that declared none: %q; want the server's error about it", text(res))
		}
	})
}

func lastEvent(r reply) string {
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		ev := sseData(r.body)
		return ev[len(ev)-1]
	}
	return r.body
}

// /servers/<name>/mcp serves one server as if the client were connected
// to it: its own tool, prompt and resource names, its capabilities and
// serverInfo; a session id of one endpoint is refused by another.
func TestServerEndpointIsTheServer(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{
		"a": testserver(nil, "-name", "a", "-faithful"),
		"b": testserver(nil, "-name", "b", "-faithful"),
	}, nil)
	url, _ := serveHTTP(t, h)
	a := strings.TrimSuffix(url, "/mcp") + "/servers/a/mcp"
	c := connectFaithful(t, a, true)
	init := c.GetServerCapabilities()
	if init.Resources == nil || init.Tasks == nil {
		t.Errorf("capabilities %+v; want the server's own", init)
	}
	names := c.toolNames(t)
	for _, want := range []string{"echo", "sample", "slow", "read_file", "search_files"} {
		if !has(names, want) {
			t.Errorf("tools %v; want %s (the server's own names, and the paging tools)", names, want)
		}
	}
	if has(names, "mcp_a_echo") || has(names, "echo_b") {
		t.Errorf("tools %v: names of the aggregate endpoint", names)
	}
	res, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "test://static"}})
	if err != nil {
		t.Fatal(err)
	}
	if uri, txt := resourceText(t, res); uri != "test://static" || txt != "static text of a" {
		t.Errorf("read test://static = %s %q", uri, txt)
	}
	p, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "y"}}})
	if err != nil || p.Messages[0].Content.(mcp.TextContent).Text != "Hello, y, from a" {
		t.Errorf("prompts/get greet: %+v %v", p, err)
	}
	if out := text(c.call(t, "sample", map[string]any{"prompt": "x"})); !strings.Contains(out, "sampled by the test client") {
		t.Errorf("sampling through the server endpoint: %q", out)
	}
	links := c.call(t, "links", nil)
	if l := links.Content[0].(mcp.ResourceLink); l.URI != "test://static" {
		t.Errorf("a link on the server's endpoint: %s; want it as the server wrote it", l.URI)
	}

	raw := newRaw(t, a)
	raw.initialize()
	r := raw.request(1, "tools/call", `{"name":"slow","arguments":{"ms":1},"task":{}}`)
	if strings.Contains(r.body, `"taskId":"a/`) || !strings.Contains(r.body, `"taskId":"`) {
		t.Errorf("a task on the server endpoint: %s; want the server's own id", r.body)
	}
	wrong := &rawClient{t: t, url: strings.Replace(a, "/servers/a/", "/servers/b/", 1), session: raw.session, accept: raw.accept}
	if got := wrong.request(2, "tools/list", `{}`); got.status != 404 {
		t.Errorf("a session of /servers/a on /servers/b: %d %s", got.status, got.body)
	}
	none := &rawClient{t: t, url: strings.Replace(a, "/servers/a/", "/servers/nope/", 1), accept: raw.accept}
	if got := none.request(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`); got.status != 404 || !strings.Contains(got.body, "nope") {
		t.Errorf("an unknown server's endpoint: %d %s", got.status, got.body)
	}
}

// Two sessions calling the same streamable-HTTP server at once each get
// the sampling requests of their own call: server-everything sends each on
// its call's response stream, and the http transport tells plughost which
// call that is. The clients hold their answers until both were asked, so
// both calls are in flight when the server's requests arrive.
func TestConcurrentSessionsGetTheirOwnServerRequests(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	srv := exec.Command("node", everything, "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+port)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	testwait.Eventually(t, 20*time.Second, "server-everything to listen", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	h := startHost(t, map[string]any{"e": map[string]any{"enabled": true, "type": "http", "url": "http://127.0.0.1:" + port + "/mcp"}}, nil)
	gw, _ := serveHTTP(t, h)
	var asked sync.WaitGroup
	asked.Add(2)
	clients := []*faithfulClient{connectFaithful(t, gw, true), connectFaithful(t, gw, true)}
	results := make([]string, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		c.name = fmt.Sprintf(" #%d", i)
		c.hold = func() {
			asked.Done()
			waitTimeout(&asked, 5*time.Second)
		}
		wg.Go(func() {
			results[i] = text(c.call(t, "mcp_e_trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}))
		})
	}
	wg.Wait()
	for i, r := range results {
		if !strings.Contains(r, fmt.Sprintf("sampled by the test client #%d", i)) {
			t.Errorf("client %d's call got %q; want its own client's sampling", i, r)
		}
	}
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
