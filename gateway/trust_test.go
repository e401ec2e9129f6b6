package gateway_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// quarantineHint is what a refused call of the rug pull's weather must
// say: why, and how to approve.
var quarantineHint = []string{"quarantined pending approval", "plughost mcp trust w --tool weather", "/api/servers/w/approve"}

// checkRefusal checks that a call's answer refuses the quarantined weather
// with the approval hint, as an isError result the model can read.
func checkRefusal(t *testing.T, door, answer string, isError bool) {
	t.Helper()
	if !isError {
		t.Errorf("%s: a call of quarantined weather was not refused: %s", door, answer)
	}
	for _, want := range quarantineHint {
		if !strings.Contains(answer, want) {
			t.Errorf("%s: the refusal %q does not say %q", door, answer, want)
		}
	}
}

// A server changes weather's description after its first list (a rug
// pull, announced with list_changed). Through every door — the aggregate
// endpoint with discovery on, the per-server endpoint, stdio — the tool is
// not listed, not found by a search, and a call is refused with the
// approval hint, while echo keeps working; once approved it is back
// everywhere.
func TestQuarantineThroughEveryDoor(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"w": testserver(map[string]any{"deferred": true}, "-rug-pull", "300ms")},
		func(m map[string]any) { m["discovery"] = map[string]any{"enabled": true, "use_regex": true} })
	if !testwait.Until(30*time.Second, func() bool { return len(h.Quarantined("w")) == 1 }) {
		t.Fatalf("weather was never quarantined: %+v", h.Quarantined("w"))
	}
	url, _ := serveHTTP(t, h)
	agg := connect(t, url)
	per := connect(t, strings.TrimSuffix(url, "/mcp")+"/servers/w/mcp")
	stdio := startStdio(t, h)
	stdio.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if l := stdio.line(); !strings.Contains(l, `"id":0,"result"`) {
		t.Fatalf("stdio initialize: %s", l)
	}

	// The aggregate endpoint: hidden by discovery, and no search finds it.
	for _, query := range []string{`{"query":"weather forecast for a city"}`, `{"pattern":"weather"}`} {
		tool := "tool_search_tool_bm25"
		if strings.Contains(query, "pattern") {
			tool = "tool_search_tool_regex"
		}
		res := agg.call(t, tool, mapOf(t, query))
		if strings.Contains(text(res), "mcp_w_weather") {
			t.Errorf("%s %s found quarantined weather: %s", tool, query, text(res))
		}
	}
	if res := agg.call(t, "tool_search_tool_regex", map[string]any{"pattern": "echo"}); !strings.Contains(text(res), "mcp_w_echo") {
		t.Errorf("a search does not find echo beside the quarantined tool: %s", text(res))
	}
	if has(agg.toolNames(t), "mcp_w_weather") {
		t.Error("/mcp lists quarantined weather")
	}
	res, err := agg.tryCall("mcp_w_weather", map[string]any{"city": "Oslo"})
	if err != nil {
		t.Fatalf("/mcp call: %v", err)
	}
	checkRefusal(t, "/mcp", text(res), res.IsError)
	if got := text(agg.call(t, "mcp_w_echo", map[string]any{"text": "a"})); got != "a" {
		t.Errorf("/mcp echo: %q", got)
	}

	// The per-server endpoint: the server's own names, every tool listed
	// but the quarantined one.
	if names := per.toolNames(t); has(names, "weather") || !has(names, "echo") {
		t.Errorf("/servers/w/mcp lists %v; want echo and not weather", names)
	}
	res, err = per.tryCall("weather", map[string]any{"city": "Oslo"})
	if err != nil {
		t.Fatalf("/servers/w/mcp call: %v", err)
	}
	checkRefusal(t, "/servers/w/mcp", text(res), res.IsError)
	if got := text(per.call(t, "echo", map[string]any{"text": "b"})); got != "b" {
		t.Errorf("/servers/w/mcp echo: %q", got)
	}

	// stdio.
	stdio.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp_w_weather","arguments":{"city":"Oslo"}}}`)
	l := stdio.answer(1)
	checkRefusal(t, "stdio", l, strings.Contains(l, `"isError":true`))
	stdio.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_w_echo","arguments":{"text":"c"}}}`)
	if l := stdio.answer(2); !strings.Contains(l, `"text":"c"`) {
		t.Errorf("stdio echo: %s", l)
	}

	if _, err := h.Approve(t.Context(), "w", []string{"weather"}, "test"); err != nil {
		t.Fatal(err)
	}
	if got := text(agg.call(t, "mcp_w_weather", map[string]any{"city": "Oslo"})); got != "sunny in Oslo" {
		t.Errorf("/mcp weather once approved: %q", got)
	}
	per.waitTools(t, "weather once approved", func(names []string) bool { return has(names, "weather") })
	if res := agg.call(t, "tool_search_tool_bm25", map[string]any{"query": "weather forecast for a city"}); !strings.Contains(text(res), "mcp_w_weather") {
		t.Errorf("approved weather is not found by a search: %s", text(res))
	}
	stdio.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mcp_w_weather","arguments":{"city":"Rome"}}}`)
	if l := stdio.answer(3); !strings.Contains(l, "sunny in Rome") {
		t.Errorf("stdio weather once approved: %s", l)
	}
}

// answer is the session's answer to request id, notifications before it
// skipped.
func (s *stdioSession) answer(id int) string {
	s.t.Helper()
	want := fmt.Sprintf(`"id":%d,`, id)
	for {
		if l := s.line(); strings.Contains(l, want) {
			return l
		}
	}
}

// mapOf decodes a JSON object of arguments.
func mapOf(t *testing.T, obj string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// trustReplica starts a replica on Redis at url running the rug pull
// server w, and waits until its weather is quarantined.
func trustReplica(t *testing.T, url string, wantHeld int) *host.Host {
	t.Helper()
	mutate := func(m map[string]any) {
		m["gateway"] = map[string]any{"store": map[string]any{"type": "redis", "url": url, "prefix": "trust-test:"}}
	}
	g := config.Gateway{Store: config.Store{Type: config.StoreRedis, URL: secret.URL(url), Prefix: "trust-test:"}}
	store, err := redisstore.Open(redisstore.FromConfig(g, nil))
	if err != nil {
		t.Fatal(err)
	}
	h := startHostWith(t, host.Options{SessionStore: store}, map[string]any{"w": testserver(nil, "-rug-pull", "300ms")}, mutate)
	if !testwait.Until(30*time.Second, func() bool { return len(h.Quarantined("w")) == wantHeld }) {
		t.Fatalf("replica: %d tools of w held, want %d: %+v", len(h.Quarantined("w")), wantHeld, h.Quarantined("w"))
	}
	return h
}

// Pins live in Redis with the sessions: two replicas both hold the rug
// pull's changed tool; one approval, made on A, releases it on B too (the
// pins' change is published); a replica started after finds it approved.
func TestReplicasShareOneApproval(t *testing.T) {
	integration(t)
	srv := testredis.New(t)
	a := trustReplica(t, srv.URL(0), 1)
	b := trustReplica(t, srv.URL(0), 1)
	if _, err := a.Approve(t.Context(), "w", []string{"weather"}, "test"); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(20*time.Second, func() bool { return len(b.Quarantined("w")) == 0 }) {
		t.Fatalf("B still holds %+v after A approved", b.Quarantined("w"))
	}
	if got, err := b.NewSession().Call(t.Context(), "mcp_w_weather", []byte(`{"city":"Bern"}`)); err != nil || !strings.Contains(fmt.Sprint(got.Content), "sunny in Bern") {
		t.Errorf("weather on B after A's approval: %+v %v", got, err)
	}
	c := trustReplica(t, srv.URL(0), 0)
	if got := c.Quarantined("w"); len(got) != 0 {
		t.Errorf("a replica started after the approval holds %+v", got)
	}
}
