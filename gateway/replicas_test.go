package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/redisstore"
)

// replica starts one replica's host: its own in-process fakes of servers
// gh (deferred, 3 tools) and fs (pinned), discovery on with ttl 2, and its
// sessions in Redis at url.
func replica(t *testing.T, url string) (*host.Host, *fake, *inprocess.Transport) {
	t.Helper()
	gh := newFake(3)
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"gh": gh.MCPServer, "fs": newFake(0).MCPServer})
	raw, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true,
		"servers": map[string]any{
			"gh": map[string]any{"enabled": true, "command": "in-process"},
			"fs": map[string]any{"enabled": true, "command": "in-process", "deferred": false},
		},
		"discovery": map[string]any{"enabled": true, "ttl": 2, "use_regex": true},
		"gateway":   map[string]any{"store": map[string]any{"type": "redis", "url": url, "prefix": "replicas-test:"}},
		"trust":     map[string]any{"mode": "off"}, // a tool added upstream is listed at once (trust_test.go covers pinning)
	}}})
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: raw, AllowMissing: true,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	store, err := redisstore.Open(redisstore.FromConfig(l.Config.MCP.Gateway, nil))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir, SessionStore: store,
		Transports: map[string]pluginapi.Transport{"stdio": tr}})
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
	return h, gh, tr
}

// openStream opens the session's GET event stream and returns its lines.
func openStream(t *testing.T, url, session string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// noLine fails if a line containing want arrives within a short while.
func noLine(t *testing.T, lines <-chan string, want, what string) {
	t.Helper()
	timeout := time.After(300 * time.Millisecond)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				t.Fatalf("unexpected %q: %s", want, what)
			}
		case <-timeout:
			return
		}
	}
}

// Two replicas sharing Redis serve one session: a search on A unlocks the
// tool on B, turns count on both, a change made on A reaches the client's
// stream on B as list_changed, and so does an upstream change of A's
// catalog that B's lacks.
func TestReplicasShareSessions(t *testing.T) {
	srv := testredis.New(t)
	hA, ghA, trA := replica(t, srv.URL(0))
	hB, _, _ := replica(t, srv.URL(0))
	urlA, _ := serveHTTP(t, hA)
	urlB, _ := serveHTTP(t, hB)

	a := newRaw(t, urlA)
	a.initialize()
	a.accept = "application/json" // A's answers cannot carry notifications: B's stream must
	b := newRaw(t, urlB)
	b.session = a.session
	if r := b.request(1, "tools/list", `{}`); r.status != 200 || strings.Contains(r.body, "mcp_gh_tool_0") {
		t.Fatalf("tools/list on B before any search: %d %s", r.status, r.body)
	}
	stream := openStream(t, urlB, a.session)

	if r := a.request(2, "tools/call", `{"name":"tool_search_tool_regex","arguments":{"pattern":"^mcp_gh_tool_0$"}}`); !strings.Contains(r.body, "mcp_gh_tool_0") {
		t.Fatalf("search on A: %s", r.body)
	}
	waitLine(t, stream, "notifications/tools/list_changed", "A's unlock announced on B's stream")
	if r := b.request(3, "tools/list", `{}`); !strings.Contains(r.body, `"mcp_gh_tool_0"`) {
		t.Errorf("tools/list on B after the search on A lacks the unlocked tool: %s", r.body)
	}

	// ttl 2: the unlock survives one call (on B) and goes with the second (on A).
	if r := b.request(4, "tools/call", `{"name":"mcp_fs_echo","arguments":{"text":"x"}}`); !strings.Contains(r.body, `"x"`) {
		t.Fatalf("call on B: %s", r.body)
	}
	if r := a.request(5, "tools/list", `{}`); !strings.Contains(r.body, `"mcp_gh_tool_0"`) {
		t.Errorf("after one turn (on B) the unlock is gone on A: %s", r.body)
	}
	noLine(t, stream, "list_changed", "a turn that expired nothing")
	a.request(6, "tools/call", `{"name":"mcp_fs_echo","arguments":{"text":"y"}}`)
	waitLine(t, stream, "notifications/tools/list_changed", "the expiry (second turn, on A) announced on B's stream")
	if r := b.request(7, "tools/list", `{}`); strings.Contains(r.body, `"mcp_gh_tool_0"`) {
		t.Errorf("after two turns (B, then A) the ttl-2 unlock is still listed on B: %s", r.body)
	}

	// A's upstream server changes its tools (B's does not): B's client is
	// told, and lists again.
	ghA.AddTool(mcp.NewTool("extra", mcp.WithDescription("A new tool.")), nil)
	trA.ListChanged("gh")
	waitLine(t, stream, "notifications/tools/list_changed", "A's catalog change announced on B's stream")
}

// With Redis down a replica answers 503 naming the store, and /readyz says
// so; when Redis is back the same session works again.
func TestReplicaRedisDown(t *testing.T) {
	srv := testredis.New(t)
	h, _, _ := replica(t, srv.URL(0))
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	srv.Stop()
	// /readyz first: until the replica notices Redis is gone (a failed
	// command, or its event subscription breaking), a request that changes
	// nothing may be answered from the session copy it knew current.
	ready := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/readyz").do("GET", "", nil)
	if ready.status != 503 || !strings.Contains(ready.body, `"store":{"name":"redis at redis://127.0.0.1:`) || !strings.Contains(ready.body, `"up":false`) {
		t.Errorf("/readyz with Redis down: %d %s", ready.status, ready.body)
	}
	r := c.request(1, "tools/list", `{}`)
	if r.status != 503 || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "session store unavailable: redis at redis://127.0.0.1:") {
		t.Errorf("tools/list with Redis down: %d %v %s, want 503 naming the store", r.status, r.header, r.body)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	works := func() bool {
		r = c.request(2, "tools/list", `{}`)
		return r.status == 200 && strings.Contains(r.body, "tool_search_tool_regex")
	}
	if !testwait.Until(10*time.Second, works) {
		t.Fatalf("the session did not work again within 10s of Redis coming back: %d %s", r.status, r.body)
	}
	if ready := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/readyz").do("GET", "", nil); ready.status != 200 {
		t.Errorf("/readyz with Redis back: %d %s", ready.status, ready.body)
	}
}
