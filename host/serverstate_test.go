//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/pluginapi"
)

// What the host keeps by server name — the relay's log level, catalog,
// subscriptions, tasks and elicitations, the turn of setting a log level,
// the server a successor waits for — goes when a reload removes the
// server, and a server added again under that name starts clean; the
// other servers keep theirs.
func TestRemovedServerLeavesNoState(t *testing.T) {
	s := &scripted{more: true, work: func(c *scriptedConn, id, params json.RawMessage) {
		switch {
		case strings.Contains(string(params), `"task"`):
			c.reply(id, `{"task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","ttl":60000}}`)
		default:
			c.ask("elicitation/create", `{"mode":"url","elicitationId":"e1","url":"https://example.test/consent","message":"consent"}`)
			c.reply(id, `{"content":[]}`)
		}
	}}
	mcpCfg := func(names ...string) map[string]any {
		servers := map[string]any{}
		for _, n := range names {
			servers[n] = map[string]any{"enabled": true, "command": "scripted"}
		}
		return map[string]any{"enabled": true, "servers": servers}
	}
	opts := host.Options{Transports: map[string]pluginapi.Transport{"stdio": s}}
	h := startHostOpts(t, opts, mcpCfg("x", "y")["servers"].(map[string]any))
	ctx := context.Background()
	sess := h.NewSession()
	sess.SetHandlers(host.ClientHandlers{Elicitation: func(context.Context, host.ServerRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept"}`), nil
	}})
	if err := sess.SetLogLevel(ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"x", "y"} {
		uri, _ := json.Marshal(map[string]string{"uri": resourceuri.Encode(server, "file:///a")})
		if _, err := sess.Request(ctx, "resources/subscribe", uri, host.CallOptions{}); err != nil {
			t.Fatalf("subscribing to %s: %v", server, err)
		}
	}
	if _, err := sess.CallWith(ctx, "mcp_x_work", nil, host.CallOptions{Task: json.RawMessage(`{"ttl":60000}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Call(ctx, "mcp_x_work", nil); err != nil { // asks for a URL elicitation that never completes
		t.Fatal(err)
	}
	all := []string{"applied", "elicitation", "last done", "subscription", "task"}
	if got := settledState(t, h, "x"); !slices.Equal(got, all) {
		t.Fatalf("before the reload x has %v; want %v (else the test shows nothing)", got, all)
	}
	// What y keeps depends on timing (its catalog is a cache, kept only
	// once y's connection is seen in a published state); the removal of x
	// must leave it as it was.
	yBefore := settledState(t, h, "y")
	if !slices.Contains(yBefore, "subscription") {
		t.Fatalf("before the reload y has %v; want a subscription (else the test shows nothing)", yBefore)
	}

	apply(t, h, mcpCfg("y"))
	if got := host.ServerState(h, "x"); slices.ContainsFunc(got, func(what string) bool { return what != "last done" }) {
		t.Errorf("once removed, the host keeps %v of server x", got)
	}
	waitGone(t, h, "x")
	if got := host.ServerState(h, "x"); len(got) > 0 {
		t.Errorf("once x is down, the host keeps %v of it; want nothing", got)
	}
	if got, want := settledState(t, h, "y"), yBefore; !slices.Equal(got, want) {
		t.Errorf("removing x left y with %v; want %v", got, want)
	}

	apply(t, h, mcpCfg("x", "y"))
	settle(t, h)
	if got := host.ServerState(h, "x"); slices.ContainsFunc(got, func(what string) bool {
		return what == "subscription" || what == "task" || what == "elicitation"
	}) {
		t.Errorf("x added again inherits %v of the removed x", got)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a task kept would be asked of x, which does not answer
	defer cancel()
	_, err := sess.Request(tctx, "tasks/get", json.RawMessage(`{"taskId":"x/t1"}`), host.CallOptions{})
	var rpc *host.RPCError
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "unknown task") {
		t.Errorf("tasks/get of the removed x's task: %v; want unknown task", err)
	}
}

// steadyState is what the host keeps of server without what depends on
// timing: what lasts only while a request or a change of log level is
// under way ("flight", "level turn"), and the catalog, a cache kept once
// the server's connection is seen in a published state. (The checks that
// a removed server keeps nothing read host.ServerState whole.)
func steadyState(h *host.Host, server string) []string {
	return slices.DeleteFunc(host.ServerState(h, server), func(what string) bool {
		return what == "flight" || what == "level turn" || what == "catalog"
	})
}

// settledState waits until no request or change of log level is under
// way at server, then returns steadyState: what a log level being set
// keeps ("applied") is known only once the server answered.
func settledState(t *testing.T, h *host.Host, server string) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := host.ServerState(h, server)
		if !slices.Contains(got, "flight") && !slices.Contains(got, "level turn") {
			return steadyState(h, server)
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s still has %v after 30 s", server, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// apply applies mcpCfg through the reload path.
func apply(t *testing.T, h *host.Host, mcpCfg map[string]any) {
	t.Helper()
	if _, err := h.ApplyLoaded(loaded(t, t.TempDir(), mcpCfg)); err != nil {
		t.Fatal(err)
	}
}

// settle waits until no server is connecting.
func settle(t *testing.T, h *host.Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatalf("servers did not settle: %v (%+v)", err, h.Statuses())
	}
}

// waitGone waits until a removed server is down: its tools leave the
// registry once it is.
func waitGone(t *testing.T, h *host.Host, server string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		ch := h.Changed()
		if !slices.ContainsFunc(h.Registry().Tools(), func(tool registry.Tool) bool { return tool.Server == server }) {
			return
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("server %s still has tools a minute after it was removed", server)
		}
	}
}
