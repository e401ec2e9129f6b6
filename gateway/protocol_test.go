package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
)

// fake is an in-process MCP server: echo, a slow tool that waits for
// release (or cancellation), and n more.
type fake struct {
	*mcpserver.MCPServer
	started   chan struct{} // a slow call began
	release   chan struct{} // lets slow calls finish
	cancelled chan struct{} // a slow call saw its context end
}

func newFake(n int) *fake {
	f := &fake{MCPServer: mcpserver.NewMCPServer("fake", "1", mcpserver.WithToolCapabilities(true)),
		started: make(chan struct{}, 8), release: make(chan struct{}), cancelled: make(chan struct{}, 8)}
	f.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns text unchanged."), mcp.WithString("text")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	f.AddTool(mcp.NewTool("slow", mcp.WithDescription("Waits until released.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.started <- struct{}{}
			select {
			case <-f.release:
				return mcp.NewToolResultText("released"), nil
			case <-ctx.Done():
				f.cancelled <- struct{}{}
				return nil, ctx.Err()
			}
		})
	for i := range n {
		f.AddTool(mcp.NewTool(fmt.Sprintf("tool_%d", i), mcp.WithDescription(fmt.Sprintf("Synthetic tool %d.", i))),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
	}
	return f
}

// fakeHost starts a host whose servers are in-process fakes (no
// subprocess); mutate adjusts tools.mcp.
func fakeHost(t *testing.T, fakes map[string]*fake, mutate func(map[string]any)) (*host.Host, *inprocess.Transport) {
	t.Helper()
	servers, entries := map[string]*mcpserver.MCPServer{}, map[string]any{}
	for name, f := range fakes {
		servers[name] = f.MCPServer
		entries[name] = map[string]any{"enabled": true, "command": "in-process"}
	}
	tr := inprocess.New(servers)
	mcpCfg := map[string]any{"enabled": true, "servers": entries,
		"restart": map[string]any{"initial_backoff_seconds": 60, "max_backoff_seconds": 60}}
	if mutate != nil {
		mutate(mcpCfg)
	}
	raw, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcpCfg}})
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: raw, AllowMissing: true,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir, Transports: map[string]pluginapi.Transport{"stdio": tr}})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	return h, tr
}

// rawClient speaks streamable HTTP by hand, to check the wire.
type rawClient struct {
	t       *testing.T
	url     string
	session string
	accept  string
	token   string // the bearer token; testToken when empty
}

type reply struct {
	status int
	header http.Header
	body   string
}

// json decodes the reply's JSON-RPC message (the last event of a stream).
func (r reply) msg(t *testing.T) map[string]any {
	t.Helper()
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		events := sseData(body)
		body = events[len(events)-1]
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("reply %d %q: %v", r.status, r.body, err)
	}
	return m
}

// sseData returns the data of each event of an event stream.
func sseData(stream string) []string {
	var out []string
	for _, ev := range strings.Split(stream, "\n\n") {
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		if len(data) > 0 {
			out = append(out, strings.Join(data, "\n"))
		}
	}
	return out
}

func (c *rawClient) do(method, body string, header map[string]string) reply {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	tok := c.token
	if tok == "" {
		tok = testToken.Reveal()
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", c.accept)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func (c *rawClient) post(body string) reply { return c.do("POST", body, nil) }

func (c *rawClient) request(id int, method, params string) reply {
	c.t.Helper()
	return c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// initialize starts a session and keeps its id.
func (c *rawClient) initialize() map[string]any {
	c.t.Helper()
	r := c.request(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	if r.status != 200 || r.header.Get("Mcp-Session-Id") == "" {
		c.t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
	if n := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); n.status != 202 || n.body != "" {
		c.t.Fatalf("notifications/initialized: %d %q, want 202 and no body", n.status, n.body)
	}
	return r.msg(c.t)
}

func newRaw(t *testing.T, url string) *rawClient {
	return &rawClient{t: t, url: url, accept: "application/json, text/event-stream"}
}

func errorOf(t *testing.T, m map[string]any) (float64, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in %v", m)
	}
	return e["code"].(float64), e["message"].(string)
}

func resultText(t *testing.T, m map[string]any) (string, bool) {
	t.Helper()
	b, _ := json.Marshal(m["result"])
	var res mcp.CallToolResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	return text(&res), res.IsError
}

// The streamable-HTTP transport by the book: initialize issues a session
// id, every later request must carry a live one (400 without, 404 after
// DELETE or for an unknown one), notifications are accepted with 202, an
// unsupported protocol header is 400, and unknown methods are -32601.
func TestStreamableHTTPSessions(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(0)}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	init := c.initialize()
	res, _ := init["result"].(map[string]any)
	caps, _ := res["capabilities"].(map[string]any)
	info, _ := res["serverInfo"].(map[string]any)
	if res["protocolVersion"] != "2025-11-25" || info["name"] != "plughost" || !cmp.Equal(caps["tools"], map[string]any{"listChanged": true}) {
		t.Errorf("initialize result: %v", res)
	}
	if r := c.request(1, "ping", `{}`); r.status != 200 || r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, `"result":{}`) {
		t.Errorf("ping: %d %s", r.status, r.body)
	}
	for _, method := range []string{"no/such-method", "resources/templates/list", "prompts/list", "tasks/list"} { // no server offers these
		if r := c.request(2, method, `{}`); r.status != 200 {
			t.Errorf("%s: %d", method, r.status)
		} else if code, _ := errorOf(t, r.msg(t)); code != -32601 {
			t.Errorf("%s: code %v, want -32601", method, code)
		}
	}
	if r := c.do("POST", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "1900-01-01"}); r.status != 400 || !strings.Contains(r.body, "unsupported Mcp-Protocol-Version") {
		t.Errorf("bad protocol header: %d %s", r.status, r.body)
	}
	if r := c.do("POST", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}); r.status != 200 {
		t.Errorf("an older supported protocol header: %d %s", r.status, r.body)
	}
	session := c.session
	c.session = ""
	if r := c.request(5, "tools/list", `{}`); r.status != 400 || !strings.Contains(r.body, "missing Mcp-Session-Id") {
		t.Errorf("no session id: %d %s", r.status, r.body)
	}
	c.session = "no-such-session"
	if r := c.request(6, "tools/list", `{}`); r.status != 404 {
		t.Errorf("unknown session: %d %s", r.status, r.body)
	}
	c.session = session
	if r := c.do("DELETE", "", nil); r.status != 204 {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
	if r := c.request(7, "tools/list", `{}`); r.status != 404 || !strings.Contains(r.body, "send initialize") {
		t.Errorf("after DELETE: %d %s", r.status, r.body)
	}
	if r := c.do("PUT", "{}", nil); r.status != 405 || r.header.Get("Allow") == "" {
		t.Errorf("PUT: %d %v", r.status, r.header)
	}
}

// A batch gets a clear refusal, over HTTP and stdio; so do bad JSON and a
// message that is not JSON-RPC 2.0.
func TestBatchesAndBadMessages(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(0)}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	for _, tc := range []struct{ body, want string }{
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, "batches are not supported"},
		{`{"jsonrpc":"2.0","id":1,"method":`, "parse error"},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `\"jsonrpc\" must be \"2.0\"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `\"id\" must be a string or a number`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, `duplicate key \"method\" at /`},
	} {
		r := c.post(tc.body)
		if r.status != 400 || !strings.Contains(r.body, tc.want) || !strings.Contains(r.body, `"id":null`) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.body, r.status, r.body, tc.want)
		}
	}
	out := stdioExchange(t, h, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", 2)
	if !strings.Contains(out[0], "batches are not supported") || !strings.Contains(out[1], `"id":2,"result":{}`) {
		t.Errorf("stdio: %q", out)
	}
}

// stdioExchange writes input to a stdio session and returns the first n
// lines it answers.
func stdioExchange(t *testing.T, h *host.Host, input string, n int) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- gateway.New(h, gateway.Options{MaxMessageBytes: 1 << 10}).ServeStdio(context.Background(), inR, outW)
	}()
	go func() { _, _ = io.WriteString(inW, input) }()
	sc := bufio.NewScanner(outR)
	var out []string
	for len(out) < n && sc.Scan() {
		out = append(out, sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	return out
}

// A body over tools.mcp.gateway.max_request_mb is refused with 413 and a
// JSON-RPC error, whether its length is declared or not; an over-long stdio
// line is refused and the session goes on.
func TestBodyLimit(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(0)}, func(m map[string]any) {
		m["gateway"] = map[string]any{"max_request_mb": 0.001} // 1048 bytes
	})
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":%q}}}`, strings.Repeat("x", 4000))
	if r := c.post(big); r.status != 413 || !strings.Contains(r.body, "max_request_mb") || !strings.Contains(r.body, `"jsonrpc":"2.0"`) {
		t.Errorf("declared length: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest("POST", url, io.MultiReader(strings.NewReader(big))) // no length: chunked
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	req.Header.Set("Mcp-Session-Id", c.session)
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(body), "max_request_mb") {
		t.Errorf("chunked: %d %s", resp.StatusCode, body)
	}
	out := stdioExchange(t, h, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("y", 2000)+`"}}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", 2)
	if len(out) != 2 || !strings.Contains(out[0], "exceeds 1024 bytes") || !strings.Contains(out[1], `"id":2,"result":{}`) {
		t.Errorf("stdio: %q", out)
	}
}

// An unknown tool is -32602 naming its own server's closest tools only; a
// tool of a server that is down is an isError result naming the server,
// its state and last error, and stays in tools/list.
func TestToolErrors(t *testing.T) {
	h, tr := fakeHost(t, map[string]*fake{"prod": newFake(1), "staging": newFake(1)}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	code, msg := errorOf(t, c.request(1, "tools/call", `{"name":"mcp_prod_ecoh","arguments":{}}`).msg(t))
	if code != -32602 || !strings.Contains(msg, "mcp_prod_echo") || strings.Contains(msg, "staging") {
		t.Errorf("unknown tool: %v %q, want -32602 suggesting prod's tools only", code, msg)
	}
	tr.FailOpen("prod", errors.New("refused by the test"))
	tr.Drop("prod")
	if !testwait.Until(10*time.Second, func() bool { st, _ := h.Status("prod"); return st.State == "error" }) {
		st, _ := h.Status("prod")
		t.Fatalf("prod never went down: %+v", st)
	}
	got, isErr := resultText(t, c.request(2, "tools/call", `{"name":"mcp_prod_echo","arguments":{"text":"x"}}`).msg(t))
	for _, want := range []string{`tool "mcp_prod_echo" is unavailable`, `server "prod"`, "state error", "last error: connection lost"} {
		if !isErr || !strings.Contains(got, want) {
			t.Errorf("call while prod is down: isError=%v %q, want %q", isErr, got, want)
		}
	}
	list := c.request(3, "tools/list", `{}`).body
	if !strings.Contains(list, `"mcp_prod_echo"`) {
		t.Errorf("prod's tools left tools/list while it is down: %s", list)
	}
}

// A call that changes the session's list is answered as an event stream:
// list_changed first, then the result; a call that changes nothing is
// plain JSON. Changes outside any request reach the GET stream.
func TestListChangedDelivery(t *testing.T) {
	fs := newFake(0)
	h, tr := fakeHost(t, map[string]*fake{"gh": newFake(3), "fs": fs}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "ttl": 1, "use_regex": true}
		m["servers"].(map[string]any)["fs"].(map[string]any)["deferred"] = false
		m["trust"] = map[string]any{"mode": "off"} // a tool fs adds is listed at once (trust_test.go covers pinning)
	})
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	c.request(1, "tools/list", `{}`)
	r := c.request(2, "tools/call", `{"name":"tool_search_tool_regex","arguments":{"pattern":"^mcp_gh_tool_0$"}}`)
	events := sseData(r.body)
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || len(events) != 2 ||
		!strings.Contains(events[0], "notifications/tools/list_changed") || !strings.Contains(events[1], `"id":2`) {
		t.Fatalf("search that unlocked: %v %q", r.header, r.body)
	}
	if r := c.request(3, "tools/list", `{}`); !strings.Contains(r.body, `"mcp_gh_tool_0"`) {
		t.Errorf("unlocked tool not listed: %s", r.body)
	}
	if r := c.request(4, "tools/call", `{"name":"tool_search_tool_regex","arguments":{"pattern":"^mcp_gh_tool_0$"}}`); r.header.Get("Content-Type") != "application/json" {
		t.Errorf("a search that changed nothing: %v %q", r.header, r.body)
	}

	// The GET stream gets what happens between requests.
	lines := openStream(t, url, c.session)
	// A call of a pinned tool ends the turn: the ttl-1 unlock expires. The
	// client does not take event streams on this POST, so the change goes
	// to the GET stream.
	c.accept = "application/json"
	if r := c.request(5, "tools/call", `{"name":"mcp_fs_echo","arguments":{"text":"x"}}`); r.header.Get("Content-Type") != "application/json" {
		t.Errorf("POST that accepts only JSON: %v", r.header)
	}
	waitLine(t, lines, "notifications/tools/list_changed", "the expiry on the GET stream")
	// An upstream change of a pinned server reaches the stream too.
	fs.AddTool(mcp.NewTool("extra"), nil)
	tr.ListChanged("fs")
	waitLine(t, lines, "notifications/tools/list_changed", "the upstream change on the GET stream")
}

func waitLine(t *testing.T, lines <-chan string, want, what string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q: %s", want, what)
		}
	}
}

// notifications/cancelled stops the call it names.
func TestCancellation(t *testing.T) {
	f := newFake(0)
	h, _ := fakeHost(t, map[string]*fake{"s": f}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	var wg sync.WaitGroup
	var r reply
	wg.Go(func() { r = c.request(7, "tools/call", `{"name":"mcp_s_slow","arguments":{}}`) })
	<-f.started
	if n := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`); n.status != 202 {
		t.Errorf("cancel: %d", n.status)
	}
	select {
	case <-f.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the cancellation")
	}
	wg.Wait()
	if got, isErr := resultText(t, r.msg(t)); !isErr || !strings.Contains(got, "cancel") {
		t.Errorf("cancelled call answered %v %q", isErr, got)
	}
}

// Shutting the front door down lets a call in flight finish and answer
// before Serve returns (and so before serve closes the servers).
func TestGracefulShutdown(t *testing.T) {
	f := newFake(0)
	h, _ := fakeHost(t, map[string]*fake{"s": f}, nil)
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(h, gateway.Options{})
	limits := frontdoor.LimitsFromConfig(h.Config().MCP.Gateway)
	door, err := frontdoor.New(h, frontdoor.Options{Listener: ln, Token: testToken, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	door.Mount(gateway.MCPPath, gw.HTTPHandler())
	door.OnShutdown(gw.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- door.Serve(ctx) }()
	c := newRaw(t, gateway.URL(ln.Addr()))
	c.initialize()
	var wg sync.WaitGroup
	var r reply
	wg.Go(func() { r = c.request(1, "tools/call", `{"name":"mcp_s_slow","arguments":{}}`) })
	<-f.started
	cancel() // SIGTERM
	select {
	case err := <-served:
		t.Fatalf("Serve returned with a call in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(f.release)
	wg.Wait()
	if got, isErr := resultText(t, r.msg(t)); isErr || got != "released" {
		t.Errorf("call in flight at shutdown: %v %q", isErr, got)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	// The stdio session too: the end of input waits for the call.
	f2 := newFake(0)
	h2, _ := fakeHost(t, map[string]*fake{"s": f2}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- gateway.New(h2, gateway.Options{}).ServeStdio(context.Background(), inR, outW) }()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp_s_slow"}}`+"\n")
	}()
	<-f2.started
	inW.Close()
	sc := bufio.NewScanner(outR)
	go func() { close(f2.release) }()
	if !sc.Scan() || !strings.Contains(sc.Text(), "released") {
		t.Errorf("stdio answer after the end of input: %q", sc.Text())
	}
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}
