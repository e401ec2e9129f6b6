//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/storetest"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/pluginapi"
)

// fakeServer is an in-process MCP server with an echo tool and n more.
func fakeServer(n int) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("fake", "1", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns text unchanged."), mcp.WithString("text")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	for i := range n {
		s.AddTool(mcp.NewTool(fmt.Sprintf("tool_%d", i), mcp.WithDescription(fmt.Sprintf("Synthetic tool number %d.", i))),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
	}
	return s
}

// startInProcess starts a host whose stdio servers are the in-process
// servers of tr (no subprocess at all).
func startInProcess(t *testing.T, tr *inprocess.Transport, names []string, mutate ...func(map[string]any)) *host.Host {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"enabled": true, "command": "in-process"}
	}
	return startHostOpts(t, host.Options{Transports: map[string]pluginapi.Transport{"stdio": tr}}, servers, mutate...)
}

func discoveryOn(ttl int) func(map[string]any) {
	return func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "ttl": ttl, "max_search_results": 3, "use_regex": true}
	}
}

// A session without subprocesses: discovery hides a deferred server's tools,
// a search unlocks them for ttl turns, an exact-name call unlocks and runs
// one, and the session's state lives in the store as data that another
// handle on the same id sees.
func TestSessionInProcess(t *testing.T) {
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"fs": fakeServer(2), "gh": fakeServer(3)})
	h := startInProcess(t, tr, []string{"fs", "gh"}, func(m map[string]any) {
		discoveryOn(2)(m)
		m["servers"].(map[string]any)["fs"].(map[string]any)["deferred"] = false
	})
	ctx := context.Background()
	s, err := h.CreateSession(ctx, host.SessionRecord{})
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"mcp_fs_echo", "mcp_fs_tool_0", "mcp_fs_tool_1", "read_file", "search_files", "tool_search_tool_bm25", "tool_search_tool_regex"}
	if diff := cmp.Diff(base, toolNames(t, s)); diff != "" {
		t.Fatalf("initial tools (-want +got):\n%s", diff)
	}
	if changed, err := s.TakeListChange(ctx); err != nil || changed {
		t.Fatalf("TakeListChange right after Tools: %v %v, want no change", changed, err)
	}
	found := text(t, call(t, s, "tool_search_tool_regex", map[string]any{"pattern": "^mcp_gh_tool_[01]$"}))
	if !strings.Contains(found, "mcp_gh_tool_0") || !strings.Contains(found, "mcp_gh_tool_1") {
		t.Fatalf("search: %s", found)
	}
	if changed, _ := s.TakeListChange(ctx); !changed {
		t.Error("an unlock did not change the session's list")
	}

	// The state is data in the store: another handle on the id sees it.
	other, st, err := h.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"mcp_gh_tool_0": 2, "mcp_gh_tool_1": 2}, st.Discovery.Unlocked); diff != "" {
		t.Errorf("stored unlocks (-want +got):\n%s", diff)
	}
	if b, err := json.Marshal(st); err != nil || !strings.Contains(string(b), `"mcp_gh_tool_0":2`) {
		t.Errorf("state as JSON: %s %v", b, err)
	}
	if got := toolNames(t, other); !slices.Contains(got, "mcp_gh_tool_0") {
		t.Errorf("another handle does not see the unlock: %v", got)
	}
	// An exact-name call of a hidden tool runs it and unlocks it.
	if got := text(t, call(t, other, "mcp_gh_echo", map[string]any{"text": "hi"})); got != "hi" {
		t.Errorf("exact-name call: %q", got)
	}
	for range 2 {
		if err := s.EndTurn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := toolNames(t, s); !cmp.Equal(got, base) {
		t.Errorf("after ttl turns: %v, want %v", got, base)
	}
	// A fresh session sees none of it.
	if got := toolNames(t, h.NewSession()); !cmp.Equal(got, base) {
		t.Errorf("a new session: %v", got)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.OpenSession(ctx, s.ID()); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("closed session opened: %v", err)
	}
}

// While a server is down, its tools stay known: a call gets an error naming
// the server, its state and its last error; unknown names get suggestions
// of their own server only.
func TestServerDownKeepsItsTools(t *testing.T) {
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"prod": fakeServer(1), "staging": fakeServer(1)})
	h := startInProcess(t, tr, []string{"prod", "staging"}, func(m map[string]any) {
		m["restart"] = map[string]any{"initial_backoff_seconds": 60, "max_backoff_seconds": 60}
	})
	s := h.NewSession()
	before := toolNames(t, s)
	tr.FailOpen("prod", errors.New("connection refused by the test"))
	tr.Drop("prod")
	waitFor(t, h, "prod to be down", func() bool { return state(h, "prod").State == supervisor.StateError })

	if got := toolNames(t, s); !cmp.Equal(got, before) {
		t.Errorf("tools while prod is down: %v, want %v", got, before)
	}
	_, err := s.Call(context.Background(), "mcp_prod_echo", json.RawMessage(`{"text":"x"}`))
	var down *host.ServerUnavailableError
	if !errors.As(err, &down) || down.Server != "prod" || down.State != supervisor.StateError {
		t.Fatalf("call of a down server's tool: %T %v, want *ServerUnavailableError for prod in state error", err, err)
	}
	for _, want := range []string{`"mcp_prod_echo"`, `server "prod"`, "state error", "next restart attempt", "last error:", "connection lost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if got := text(t, call(t, s, "mcp_staging_echo", map[string]any{"text": "fine"})); got != "fine" {
		t.Errorf("the other server: %q", got)
	}

	for _, c := range []struct{ name, want, notWant string }{
		{"mcp_prod_ecoh", `closest names of server "prod": mcp_prod_echo`, "staging"},
		{"mcp_staging_ech", `closest names of server "staging": mcp_staging_echo`, "prod"},
		{"mcp_other_echo", `unknown tool "mcp_other_echo": no tool of that name exists`, "mcp_"},
	} {
		_, err := s.Call(context.Background(), c.name, nil)
		var unknown *host.UnknownToolError
		if !errors.As(err, &unknown) || !strings.Contains(err.Error(), c.want) || strings.Contains(strings.TrimPrefix(err.Error(), `unknown tool "`+c.name+`"`), c.notWant) {
			t.Errorf("unknown %s: %v; want %q and nothing of %q", c.name, err, c.want, c.notWant)
		}
	}
}

// A server that never connected has no tools to keep: a call of one of its
// names says that server is down, and suggests nothing.
func TestUnknownToolOfServerThatNeverConnected(t *testing.T) {
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"ok": fakeServer(0)})
	tr.FailOpen("broken", errors.New("nothing listens"))
	h := startInProcess(t, tr, []string{"ok", "broken"})
	_, err := h.NewSession().Call(context.Background(), "mcp_broken_echo", nil)
	var unknown *host.UnknownToolError
	if !errors.As(err, &unknown) || unknown.Server != "broken" || !strings.Contains(err.Error(), "nothing listens") || len(unknown.Closest) != 0 {
		t.Errorf("got %v; want an unknown-tool error saying server broken is down and why, with no suggestion", err)
	}
}

// Upstream tools that change keep unlocks of tools that still exist and
// drop the others at the end of the turn.
func TestUnlocksSurviveToolChanges(t *testing.T) {
	gh := fakeServer(2)
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"gh": gh})
	h := startInProcess(t, tr, []string{"gh"}, discoveryOn(5))
	ctx := context.Background()
	s := h.NewSession()
	call(t, s, "tool_search_tool_regex", map[string]any{"pattern": "^mcp_gh_tool_"})
	gh.DeleteTools("tool_1")
	tr.ListChanged("gh")
	waitFor(t, h, "tool_1 to be gone", func() bool { _, ok := h.Registry().Lookup("mcp_gh_tool_1"); return !ok })
	if err := s.EndTurn(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"mcp_gh_tool_0": 4}, st.Unlocks().Unlocked); diff != "" {
		t.Errorf("unlocks after the change (-want +got):\n%s", diff)
	}
}

// The in-memory store expires idle sessions, reports changes and ends to
// watchers, and updates atomically.
func TestMemorySessionStore(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	m := host.NewMemorySessionStore(host.MemorySessionStoreOptions{IdleTimeout: time.Minute, Now: clock})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := m.Watch(ctx)
	if err := m.Create(ctx, "a", host.SessionRecord{Protocol: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, "a", host.SessionRecord{}); !errors.Is(err, host.ErrSessionExists) {
		t.Errorf("second create: %v", err)
	}
	st, err := m.Update(ctx, "a", func(st *host.SessionRecord) error { st.Listed = 7; return nil })
	if err != nil || st.Rev != 2 || st.Listed != 7 || st.Protocol != "2025-11-25" || st.Format != host.SessionRecordFormat {
		t.Fatalf("update: %+v %v", st, err)
	}
	if c := <-changes; c != (host.SessionChange{ID: "a"}) {
		t.Errorf("change: %+v", c)
	}
	if st, err := m.Update(ctx, "a", func(*host.SessionRecord) error { return host.ErrSessionUnchanged }); err != nil || st.Rev != 2 {
		t.Errorf("unchanged update: rev %d %v", st.Rev, err)
	}
	boom := errors.New("boom")
	if _, err := m.Update(ctx, "a", func(st *host.SessionRecord) error { st.Listed = 9; return boom }); !errors.Is(err, boom) {
		t.Errorf("failing update: %v", err)
	}
	if st, _ := m.Load(ctx, "a"); st.Listed != 7 {
		t.Errorf("a failed update was stored: %+v", st)
	}
	now = now.Add(59 * time.Second)
	if _, err := m.Load(ctx, "a"); err != nil {
		t.Errorf("load before expiry: %v", err)
	}
	now = now.Add(61 * time.Second)
	if _, err := m.Load(ctx, "a"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("load after expiry: %v", err)
	}
	if c := <-changes; c != (host.SessionChange{ID: "a", Ended: true}) {
		t.Errorf("expiry change: %+v", c)
	}
	if err := m.Create(ctx, "b", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if n := m.Len(); n != 0 {
		t.Errorf("%d sessions after every one idled out", n)
	}
}

// The in-memory store passes the suite every store must pass.
func TestMemorySessionStoreSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, idle time.Duration) (host.SessionStore, host.SessionStore) {
		m := host.NewMemorySessionStore(host.MemorySessionStoreOptions{IdleTimeout: idle})
		return m, m
	})
}

// A call made while a crashed server's connection is being torn down —
// the connection gone, the status not updated yet — says the server is
// restarting, never that it is connected (the audit saw "is connected
// (state connected)" for calls made during a restart).
func TestCallDuringTeardownSaysRestarting(t *testing.T) {
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"a": fakeServer(0)})
	h := startInProcess(t, tr, []string{"a"})
	s := h.NewSession()
	started, release := tr.HoldClose("a")
	defer release()
	tr.Drop("a")
	<-started
	_, err := s.Call(context.Background(), "mcp_a_echo", json.RawMessage(`{"text":"x"}`))
	release()
	var down *host.ServerUnavailableError
	if !errors.As(err, &down) {
		t.Fatalf("call during the teardown: %T %v; want a *ServerUnavailableError", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, `server "a" is restarting: its connection was lost`) || strings.Contains(msg, "connected") {
		t.Errorf("call during the teardown: %q; want it restarting, not connected", msg)
	}
}

// Every call but a search ends a turn, in the session itself, so every
// front end counts turns alike; a caller that counts its own rounds
// (CallOptions.OwnTurns) keeps the turn. The result names what answered.
func TestNonSearchCallEndsATurn(t *testing.T) {
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"fs": fakeServer(0), "gh": fakeServer(1)})
	h := startInProcess(t, tr, []string{"fs", "gh"}, func(m map[string]any) {
		discoveryOn(1)(m)
		m["servers"].(map[string]any)["fs"].(map[string]any)["deferred"] = false
	})
	ctx := context.Background()
	s := h.NewSession()
	unlock := func() {
		t.Helper()
		r, err := s.CallWith(ctx, "tool_search_tool_regex", json.RawMessage(`{"pattern": "^mcp_gh_tool_0$"}`), host.CallOptions{})
		if err != nil || !r.Search || r.Server != "plughost" || r.Tool != "tool_search_tool_regex" {
			t.Fatalf("search: %+v, %v; want a search answered by plughost", r, err)
		}
		if got := toolNames(t, s); !slices.Contains(got, "mcp_gh_tool_0") {
			t.Fatalf("after the search: %v; want mcp_gh_tool_0 unlocked (a search does not end a turn)", got)
		}
	}
	echo := func(opts host.CallOptions) {
		t.Helper()
		r, err := s.CallWith(ctx, "mcp_fs_echo", json.RawMessage(`{"text":"x"}`), opts)
		if err != nil || r.Search || r.Server != "fs" || r.Tool != "echo" {
			t.Fatalf("echo: %+v, %v; want a call answered by fs's echo", r, err)
		}
	}
	unlock()
	echo(host.CallOptions{OwnTurns: true})
	if got := toolNames(t, s); !slices.Contains(got, "mcp_gh_tool_0") {
		t.Errorf("after a call with OwnTurns: %v; want the unlock kept (the caller ends turns)", got)
	}
	echo(host.CallOptions{})
	if got := toolNames(t, s); slices.Contains(got, "mcp_gh_tool_0") {
		t.Errorf("after a non-search call with ttl 1: %v; want the unlock expired (the call ended a turn)", got)
	}
}
