package gateway_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/lib/secret"
)

// clientsHost starts servers a (pinned visible, its own crash tool hidden
// by exclude_tools) and b (deferred, found only by search), and a client
// "ci" limited to a without mcp_a_sleep. It returns the host, the MCP URL
// and ci's token.
func clientsHost(t *testing.T) (*host.Host, string, string) {
	t.Helper()
	token, digest := host.NewClientToken()
	h := startHost(t, map[string]any{
		"a": testserver(map[string]any{"deferred": false, "exclude_tools": []string{"crash"}}, "-faithful", "-name", "a"),
		"b": testserver(map[string]any{"deferred": true}, "-faithful", "-name", "b"),
	}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "use_bm25": true, "use_regex": true}
		m["gateway"] = map[string]any{"clients": map[string]any{
			"ci": map[string]any{"token_sha256": digest, "servers": []string{"a"}, "exclude_tools": []string{"mcp_a_sleep"}},
		}}
	})
	url, _ := serveHTTP(t, h)
	return h, url, token
}

func TestClientScope(t *testing.T) {
	integration(t)
	h, url, token := clientsHost(t)
	admin := newRaw(t, url)
	admin.initialize()
	ci := newRaw(t, url)
	ci.token = token
	ci.initialize()

	t.Run("tools/list", func(t *testing.T) {
		names := listNames(t, ci)
		for _, hidden := range []string{"mcp_a_sleep", "mcp_a_crash"} {
			if names[hidden] {
				t.Errorf("client sees %s", hidden)
			}
		}
		if !names["mcp_a_echo"] {
			t.Errorf("client does not see mcp_a_echo: %v", names)
		}
		for n := range names {
			if strings.HasPrefix(n, "mcp_b_") {
				t.Errorf("client sees %s of a server outside its scope", n)
			}
		}
		if all := listNames(t, admin); !all["mcp_a_sleep"] || all["mcp_a_crash"] {
			t.Errorf("admin list: want mcp_a_sleep and no mcp_a_crash (server exclude_tools): %v", all)
		}
	})

	t.Run("search", func(t *testing.T) {
		for _, c := range []struct{ tool, args string }{
			{"tool_search_tool_regex", `{"pattern":"echo|sleep|crash"}`},
			{"tool_search_tool_bm25", `{"query":"echo text unchanged"}`},
		} {
			text := callText(t, ci, c.tool, c.args)
			if strings.Contains(text, "mcp_b_") || strings.Contains(text, `"b"`) || strings.Contains(text, "mcp_a_sleep") {
				t.Errorf("%s for the client names an out-of-scope tool or server: %s", c.tool, text)
			}
			if adminText := callText(t, admin, c.tool, c.args); !strings.Contains(adminText, "mcp_b_echo") {
				t.Errorf("%s for the admin does not find mcp_b_echo: %s", c.tool, adminText)
			}
		}
	})

	t.Run("tools/call", func(t *testing.T) {
		madeUp := callError(t, ci, "mcp_b_no_such_tool")
		for _, name := range []string{"mcp_b_echo", "mcp_a_sleep", "mcp_a_crash"} {
			got := callError(t, ci, name)
			want := strings.ReplaceAll(madeUp, "mcp_b_no_such_tool", name)
			if name == "mcp_b_echo" && got != want {
				t.Errorf("call of %s: %q\nwant the error of a made-up name: %q", name, got, want)
			}
			if strings.Contains(strings.TrimPrefix(got, `unknown tool "`+name+`"`), name) || !strings.HasPrefix(got, "unknown tool") {
				t.Errorf("call of %s: %q, want unknown tool without naming it again", name, got)
			}
		}
		if text := callText(t, ci, "mcp_a_echo", `{"text":"hi"}`); text != "hi" {
			t.Errorf("client's own tool: %q", text)
		}
		if text := callText(t, admin, "mcp_b_echo", `{"text":"hi"}`); text != "hi" {
			t.Errorf("admin's call of mcp_b_echo: %q", text)
		}
		if got := callError(t, admin, "mcp_a_crash"); !strings.HasPrefix(got, "unknown tool") {
			t.Errorf("a tool the server's exclude_tools hides is callable by the admin: %q", got)
		}
	})

	t.Run("resources, prompts, completions", func(t *testing.T) {
		res := ci.request(10, "resources/list", `{}`)
		if !strings.Contains(res.body, "test://a/own") || strings.Contains(res.body, "test://b/own") {
			t.Errorf("client's resources/list: %s", res.body)
		}
		for _, c := range []struct{ method, params string }{
			{"resources/read", `{"uri":"test://b/own"}`},
			{"resources/subscribe", `{"uri":"test://b/own"}`},
			{"prompts/get", `{"name":"mcp_b_greet","arguments":{"who":"x"}}`},
			{"completion/complete", `{"ref":{"type":"ref/prompt","name":"mcp_b_greet"},"argument":{"name":"who","value":"x"}}`},
		} {
			// Routed to the client's servers only: b never answers (a may).
			if r := ci.request(11, c.method, c.params); strings.Contains(r.body, "of b") || strings.Contains(r.body, "from b") {
				t.Errorf("%s reached server b: %s", c.method, r.body)
			}
		}
		if r := ci.request(12, "resources/read", `{"uri":"test://a/own"}`); !strings.Contains(r.body, "own text of a") {
			t.Errorf("client's own resource: %s", r.body)
		}
		p := ci.request(13, "prompts/list", `{}`)
		if !strings.Contains(p.body, "mcp_a_greet") || strings.Contains(p.body, "mcp_b_") {
			t.Errorf("client's prompts/list: %s", p.body)
		}
		_, madeUp := errorOf(t, ci.request(14, "prompts/get", `{"name":"mcp_b_zzz"}`).msg(t))
		_, hidden := errorOf(t, ci.request(15, "prompts/get", `{"name":"mcp_b_greet"}`).msg(t))
		if strings.ReplaceAll(madeUp, "mcp_b_zzz", "mcp_b_greet") != hidden {
			t.Errorf("prompts/get of an out-of-scope prompt: %q, want the made-up name's error %q", hidden, madeUp)
		}
	})

	t.Run("per-server endpoints", func(t *testing.T) {
		b := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/servers/b/mcp")
		b.token = token
		r := b.request(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, `may not use server \"b\"`) {
			t.Errorf("client on /servers/b/mcp: %d %s, want 403", r.status, r.body)
		}
		none := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/servers/nosuch/mcp")
		none.token = token
		if r := none.request(0, "initialize", `{}`); r.status != http.StatusForbidden {
			t.Errorf("client on a server that does not exist: %d, want 403 like any server outside its scope", r.status)
		}
		a := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/servers/a/mcp")
		a.token = token
		a.initialize()
		names := listNames(t, a)
		if !names["echo"] || names["sleep"] || names["crash"] {
			t.Errorf("client's tools on /servers/a/mcp: %v", names)
		}
		if got := callError(t, a, "sleep"); !strings.HasPrefix(got, "unknown tool") {
			t.Errorf("call of an excluded tool on /servers/a/mcp: %q", got)
		}
	})

	t.Run("admin-only routes", func(t *testing.T) {
		metrics := strings.TrimSuffix(url, "/mcp") + "/metrics"
		if code := get(t, metrics, token); code != http.StatusForbidden {
			t.Errorf("client token on /metrics: %d, want 403", code)
		}
		if code := get(t, metrics, testToken.Reveal()); code != http.StatusOK {
			t.Errorf("admin token on /metrics: %d, want 200", code)
		}
	})

	t.Run("a session is its client's", func(t *testing.T) {
		stolen := newRaw(t, url)
		stolen.session = ci.session // the admin's token with the client's session id
		if r := stolen.request(20, "tools/list", `{}`); r.status != http.StatusNotFound {
			t.Errorf("another token on the client's session: %d %s, want 404", r.status, r.body)
		}
	})

	t.Run("rotation and removal on reload", func(t *testing.T) {
		newToken, digest := host.NewClientToken()
		apply(t, h, func(c map[string]config.Client) {
			ci := c["ci"]
			ci.TokenSHA256 = secret.String(digest)
			c["ci"] = ci
		})
		if r := ci.request(30, "tools/list", `{}`); r.status != http.StatusUnauthorized {
			t.Errorf("old token after rotation: %d, want 401", r.status)
		}
		ci.token = newToken
		if r := ci.request(31, "tools/list", `{}`); r.status != http.StatusOK || !strings.Contains(r.body, "mcp_a_echo") {
			t.Errorf("new token on the session: %d %s", r.status, r.body)
		}
		apply(t, h, func(c map[string]config.Client) { delete(c, "ci") })
		if r := ci.request(32, "tools/list", `{}`); r.status != http.StatusUnauthorized {
			t.Errorf("removed client's token: %d, want 401", r.status)
		}
	})
}

// TestRemovedClientSession checks that a session of a client removed from
// the config stops working even on a door without auth (where its token
// is not needed to reach /mcp).
func TestRemovedClientSession(t *testing.T) {
	integration(t)
	h, url, token := clientsHost(t)
	ci := newRaw(t, url)
	ci.token = token
	ci.initialize()
	sess, _, err := h.OpenSession(t.Context(), ci.session)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Tools(t.Context()); err != nil {
		t.Fatalf("client's session before removal: %v", err)
	}
	apply(t, h, func(c map[string]config.Client) { delete(c, "ci") })
	if _, err := sess.Tools(t.Context()); err == nil || !strings.Contains(err.Error(), "no longer configured") {
		t.Errorf("a removed client's session still lists tools (err %v)", err)
	}
	if _, err := sess.Call(t.Context(), "mcp_a_echo", json.RawMessage(`{"text":"x"}`)); err == nil {
		t.Error("a removed client's session still calls tools")
	}
}

func listNames(t *testing.T, c *rawClient) map[string]bool {
	t.Helper()
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	r := c.request(1, "tools/list", `{}`)
	if err := json.Unmarshal([]byte(r.body), &res); err != nil {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	out := map[string]bool{}
	for _, tool := range res.Result.Tools {
		out[tool.Name] = true
	}
	return out
}

func callText(t *testing.T, c *rawClient, name, args string) string {
	t.Helper()
	m := c.request(2, "tools/call", `{"name":"`+name+`","arguments":`+args+`}`).msg(t)
	text, _ := resultText(t, m)
	return text
}

func callError(t *testing.T, c *rawClient, name string) string {
	t.Helper()
	_, msg := errorOf(t, c.request(3, "tools/call", `{"name":"`+name+`","arguments":{}}`).msg(t))
	return msg
}

func get(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// apply reloads h with its config's clients changed by edit.
func apply(t *testing.T, h *host.Host, edit func(map[string]config.Client)) {
	t.Helper()
	cfg := *h.Config()
	cfg.MCP.Gateway.Clients = maps.Clone(cfg.MCP.Gateway.Clients)
	edit(cfg.MCP.Gateway.Clients)
	if _, err := h.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
}

// A client limited to the test server never meets server-everything: not
// its tools, resources, templates or prompts, and neither a prompt nor a
// completion of it goes through; the administrator sees them all.
func TestClientScopeEverything(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	token, digest := host.NewClientToken()
	h := startHost(t, map[string]any{
		"everything": map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"}},
		"t":          testserver(nil, "-faithful", "-name", "t"),
	}, func(m map[string]any) {
		m["gateway"] = map[string]any{"clients": map[string]any{"ci": map[string]any{"token_sha256": digest, "servers": []string{"t"}}}}
	})
	url, _ := serveHTTP(t, h)
	admin := newRaw(t, url)
	admin.initialize()
	ci := newRaw(t, url)
	ci.token = token
	ci.initialize()

	if names := listNames(t, admin); !names["mcp_everything_echo"] {
		t.Fatalf("the admin does not see server-everything's tools: %v", names)
	}
	for n := range listNames(t, ci) {
		if strings.HasPrefix(n, "mcp_everything_") {
			t.Errorf("the client sees %s", n)
		}
	}
	for _, m := range []struct{ method, mark string }{
		{"resources/list", "demo://"}, {"resources/templates/list", "demo://"}, {"prompts/list", "mcp_everything_"},
	} {
		admins, clients := admin.request(5, m.method, `{}`).body, ci.request(5, m.method, `{}`).body
		if !strings.Contains(admins, m.mark) {
			t.Errorf("%s: the admin's answer has nothing of server-everything: %s", m.method, admins)
		}
		if strings.Contains(clients, m.mark) || strings.Contains(clients, "everything") {
			t.Errorf("%s: the client's answer shows server-everything: %s", m.method, clients)
		}
	}
	madeUp := callError(t, ci, "mcp_everything_no_such_tool")
	if got := callError(t, ci, "mcp_everything_echo"); got != strings.ReplaceAll(madeUp, "mcp_everything_no_such_tool", "mcp_everything_echo") {
		t.Errorf("call of server-everything's echo: %q, want the made-up name's error %q", got, madeUp)
	}
	for _, c := range []struct{ method, params string }{
		{"prompts/get", `{"name":"mcp_everything_args-prompt","arguments":{"city":"Oslo"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"mcp_everything_completable-prompt"},"argument":{"name":"department","value":"E"}}`},
	} {
		m := ci.request(6, c.method, c.params).msg(t)
		if _, msg := errorOf(t, m); !strings.Contains(msg, "unknown prompt") {
			t.Errorf("%s of server-everything's prompt: %q, want unknown prompt", c.method, msg)
		}
		if a := admin.request(6, c.method, c.params); strings.Contains(a.body, `"error"`) {
			t.Errorf("%s for the admin: %s", c.method, a.body)
		}
	}
}

// A resources/list_changed of a server outside a client's scope reaches
// the administrator's session, never the client's.
func TestClientScopeNotifications(t *testing.T) {
	integration(t)
	_, url, token := clientsHost(t)
	stream := func(tok string) *faithfulClient {
		tr, err := transport.NewStreamableHTTP(url,
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}),
			//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where the GET stream carries a session's notifications
			transport.WithContinuousListening())
		if err != nil {
			t.Fatal(err)
		}
		return startFaithful(t, tr, false)
	}
	admin, ci := stream(testToken.Reveal()), stream(token)
	const method = "notifications/resources/list_changed"
	// Both GET streams are open once a list_changed of a (the client's
	// server) reaches both; they open after initialize, so try a few times.
	waitCount := func(c *faithfulClient, n int) bool {
		deadline := time.Now().Add(2 * time.Second)
		for len(c.notifications(method)) < n && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		return len(c.notifications(method)) >= n
	}
	for i := 0; len(ci.notifications(method)) == 0 || len(admin.notifications(method)) == 0; i++ {
		if i == 10 {
			t.Fatalf("no list_changed of a reached both sessions (admin %d, client %d)", len(admin.notifications(method)), len(ci.notifications(method)))
		}
		admin.call(t, "mcp_a_add_resource", map[string]any{"uri": fmt.Sprintf("test://a/new%d", i)})
		waitCount(ci, 1)
	}
	before, adminBefore := len(ci.notifications(method)), len(admin.notifications(method))
	admin.call(t, "mcp_b_add_resource", map[string]any{"uri": "test://b/new"})
	if !waitCount(admin, adminBefore+1) {
		t.Fatal("the admin's session did not get b's list_changed")
	}
	time.Sleep(300 * time.Millisecond) // what would reach the client has by now
	if n := len(ci.notifications(method)); n != before {
		t.Errorf("the client got %d list_changed from a server outside its scope", n-before)
	}
}
