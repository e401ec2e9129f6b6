package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/manage"
)

var bins testbin.Set

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, &bins, func() (testbin.Set, error) {
		return testbin.Build(map[string]string{
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"plugins/mcp-transport-http":  "./plugins/http",
			"testserver":                  "./internal/testserver",
		})
	}))
}

// secretValue is an env value that must never appear in an API response.
const secretValue = "canary-s3cret-123"

// fixture is a running host with one server, its config file and the API
// served over HTTP (without the front door's token guard, which is tested
// with the gateway).
type fixture struct {
	h    *host.Host
	m    *manage.Manager
	file string
	srv  *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
	f := startHost(t, map[string]any{"a": (&fixture{}).server()}, host.Options{})
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test"}))
	t.Cleanup(f.srv.Close)
	return f
}

// startHost writes a config of servers in a temporary home and runs a host
// on it (opts plus the built plugins and PATH) until every server settled.
func startHost(t *testing.T, servers map[string]any, opts host.Options) *fixture {
	t.Helper()
	home := t.TempDir()
	f := &fixture{file: filepath.Join(home, ".plughost", "config.json")}
	f.write(t, servers)
	f.m = manage.New(manage.Options{Home: home, Environ: []string{"HOME=" + home}})
	l, err := f.m.Load()
	if err != nil {
		t.Fatal(err)
	}
	opts.PluginDirs, opts.Environ = []string{bins.PluginDir()}, []string{"PATH=" + os.Getenv("PATH")}
	if f.h, err = host.NewFromLoaded(l.Loaded, opts); err != nil {
		t.Fatal(err)
	}
	f.h.Start(t.Context())
	t.Cleanup(func() { f.h.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := f.h.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) server(args ...string) map[string]any {
	return map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": append([]string{}, args...),
		"env": map[string]string{"TOKEN": secretValue}}
}

func (f *fixture) write(t *testing.T, servers map[string]any, extra ...func(map[string]any)) {
	t.Helper()
	mcp := map[string]any{"enabled": true, "servers": servers}
	for _, e := range extra {
		e(mcp)
	}
	b, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcp}})
	if err := os.MkdirAll(filepath.Dir(f.file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// do sends a request and returns the status and body; it fails the test if
// the body shows the secret.
func (f *fixture) do(t *testing.T, method, path, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(b), secretValue) {
		t.Errorf("%s %s shows the secret:\n%s", method, path, b)
	}
	return resp.StatusCode, string(b)
}

func TestReadEndpoints(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, "GET", "/api/servers", "")
	var list api.ServerList
	if code != 200 || json.Unmarshal([]byte(body), &list) != nil || len(list.Servers) != 1 {
		t.Fatalf("GET /api/servers: %d %s", code, body)
	}
	if v := list.Servers[0]; v.Name != "a" || v.State != "connected" || v.ServerPID == 0 || !strings.HasPrefix(v.Description, "connected, 11 tools") {
		t.Errorf("server view %+v", v)
	}

	code, body = f.do(t, "GET", "/api/servers/a", "")
	var d host.ServerDetail
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil {
		t.Fatalf("GET /api/servers/a: %d %s", code, body)
	}
	if len(d.Tools) != 11 || d.Status.Tools != 11 || d.Config.Command != bins.Path("testserver") || d.Config.Env["TOKEN"] != "****" {
		t.Errorf("detail: %d tools, config %+v", len(d.Tools), d.Config)
	}

	code, body = f.do(t, "GET", "/api/servers/nope", "")
	if code != 404 || !strings.Contains(body, `"code": "not_found"`) || !strings.Contains(body, `no server named \"nope\"`) {
		t.Errorf("GET unknown server: %d %s", code, body)
	}

	code, body = f.do(t, "GET", "/api/tools", "")
	var tools api.ToolList
	if code != 200 || json.Unmarshal([]byte(body), &tools) != nil || len(tools.Tools) != 11+2 {
		t.Errorf("GET /api/tools: %d %s", code, body)
	}

	code, body = f.do(t, "GET", "/api/context-cost", "")
	var costs api.ContextCostList
	if code != 200 || json.Unmarshal([]byte(body), &costs) != nil || len(costs.Costs) != 3 ||
		costs.Costs[0].Tools != 11+2 || costs.Costs[1].Tools != 1+2 {
		t.Errorf("GET /api/context-cost: %d %s; want 13 tools with discovery off, 3 with it on", code, body)
	}

	code, body = f.do(t, "GET", "/api/status", "")
	var st api.Status
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil || st.PID != os.Getpid() || st.ConfigFile != f.file || !st.Ready || !st.Apply.OK {
		t.Errorf("GET /api/status: %d %s", code, body)
	}

	if code, body = f.do(t, "GET", "/api/nothing", ""); code != 404 || !strings.Contains(body, "no API endpoint") {
		t.Errorf("unknown endpoint: %d %s", code, body)
	}
}

func TestCall(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, "POST", "/api/tools/mcp_a_echo/call", `{"text":"hi"}`)
	if code != 200 || !strings.Contains(body, `"text": "hi"`) {
		t.Errorf("call echo: %d %s", code, body)
	}
	code, body = f.do(t, "POST", "/api/tools/mcp_a_ecko/call", `{}`)
	if code != 404 || !strings.Contains(body, "mcp_a_echo") {
		t.Errorf("call of an unknown tool: %d %s; want 404 suggesting mcp_a_echo", code, body)
	}
	if code, body = f.do(t, "POST", "/api/tools/mcp_a_echo/call", `[1]`); code != 400 || !strings.Contains(body, "JSON object") {
		t.Errorf("array arguments: %d %s", code, body)
	}
	if code, body = f.do(t, "POST", "/api/tools/mcp_a_crash/call", `{}`); code != 502 || !strings.Contains(body, "call_failed") {
		t.Errorf("a call that fails: %d %s", code, body)
	}
}

// Another origin, or a body that is not JSON, is refused before anything
// runs: a web page cannot drive the API through a browser.
func TestCrossSiteRefused(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, "POST", "/api/reload", "", "Origin", "https://evil.example")
	if code != 403 || !strings.Contains(body, "evil.example") {
		t.Errorf("foreign origin: %d %s", code, body)
	}
	req, _ := http.NewRequest("POST", f.srv.URL+"/api/tools/mcp_a_echo/call", strings.NewReader("text=hi"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("form body: %d; want 415", resp.StatusCode)
	}
	if code, _ := f.do(t, "GET", "/api/servers", "", "Origin", f.srv.URL); code != 200 {
		t.Errorf("same origin: %d", code)
	}
}

func TestReload(t *testing.T) {
	f := newFixture(t)
	f.write(t, map[string]any{"a": f.server(), "b": f.server()})
	code, body := f.do(t, "POST", "/api/reload", "")
	var res manage.ReloadResult
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || strings.Join(res.Added, ",") != "b" || strings.Join(res.Unchanged, ",") != "a" {
		t.Fatalf("reload: %d %s", code, body)
	}
	f.write(t, map[string]any{"a": f.server()}, func(m map[string]any) { m["max_inline_text_chars"] = 3 })
	code, body = f.do(t, "POST", "/api/reload", "")
	var eb struct {
		Error api.Error `json:"error"`
	}
	if code != 422 || json.Unmarshal([]byte(body), &eb) != nil || eb.Error.Code != api.CodeInvalidConfig ||
		len(eb.Error.Problems) != 1 || eb.Error.Problems[0].Path != "tools.mcp.max_inline_text_chars" {
		t.Fatalf("reload of an invalid file: %d %s", code, body)
	}
	if _, ok := f.h.Status("b"); !ok {
		t.Error("the refused reload removed b")
	}
}

// The client finds a published serve, checks it is the one the runtime
// file names, and returns what the host itself would.
func TestClient(t *testing.T) {
	f := newFixture(t)
	home := t.TempDir()
	tokFile := filepath.Join(home, "token")
	if err := os.WriteFile(tokFile, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var sawToken string
	authed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawToken = r.Header.Get("Authorization")
		f.srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer authed.Close()
	rt := api.Runtime{PID: os.Getpid(), URL: authed.URL, ConfigFile: f.file, TokenFile: tokFile, Version: "test"}
	remove, err := api.Publish(home, rt)
	if err != nil {
		t.Fatal(err)
	}
	ownertest.Private(t, api.RuntimeFile(home, f.file))
	found, ok := api.Find(home, f.file)
	if !ok || found != rt {
		t.Fatalf("Find = %+v, %v", found, ok)
	}
	if _, ok := api.Find(home, f.file+".other"); ok {
		t.Error("Find found a serve of another config file")
	}
	c, _, err := api.Dial(t.Context(), found)
	if err != nil {
		t.Fatal(err)
	}
	if sawToken != "Bearer tok" {
		t.Errorf("the client sent Authorization %q", sawToken)
	}
	list, err := c.Servers(t.Context())
	if err != nil || len(list.Servers) != 1 || list.Servers[0].ServerPID != f.h.ServerListings()[0].ServerPID {
		t.Errorf("Servers: %+v, %v", list, err)
	}
	d, err := c.Server(t.Context(), "a")
	local, _ := f.h.ServerDetail(t.Context(), "a")
	if err != nil || d.Name != "a" || len(d.Tools) != len(local.Tools) || d.Config.Env["TOKEN"] != "****" {
		t.Errorf("Server: %+v, %v", d, err)
	}
	var ae *api.Error
	if _, err := c.Server(t.Context(), "nope"); !errors.As(err, &ae) || ae.Status != 404 || !strings.Contains(ae.Message, `no server named "nope"`) {
		t.Errorf("Server(nope): %v", err)
	}
	tools, err := c.Tools(t.Context())
	if err != nil || len(tools) != 13 {
		t.Errorf("Tools: %d, %v", len(tools), err)
	}
	res, err := c.Call(t.Context(), "mcp_a_echo", json.RawMessage(`{"text":"round trip"}`))
	if err != nil || len(res.Result.Content) != 1 {
		t.Fatalf("Call: %+v, %v", res, err)
	}
	if diff := cmp.Diff(`{"type":"text","text":"round trip"}`, mustJSON(t, res.Result.ToMCP().Content[0])); diff != "" {
		t.Errorf("Call content (-want +got):\n%s", diff)
	}
	remove()
	if _, ok := api.Find(home, f.file); ok {
		t.Error("Find after remove")
	}
}

// A runtime file whose process is gone is stale: ignored.
func TestStaleRuntimeIgnored(t *testing.T) {
	home := t.TempDir()
	if _, err := api.Publish(home, api.Runtime{PID: 1 << 22, URL: "http://127.0.0.1:1", ConfigFile: "/x/config.json"}); err != nil {
		t.Fatal(err)
	}
	if rt, ok := api.Find(home, "/x/config.json"); ok {
		t.Errorf("a stale runtime file was used: %+v", rt)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The API answers a call with every member the server sent (docs/gateway.md,
// "Tool results"), and its client keeps them.
func TestCallKeepsEveryMember(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
	f := startHost(t, map[string]any{"a": (&fixture{}).server("-vendor-result")}, host.Options{})
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test"}))
	t.Cleanup(f.srv.Close)
	code, body := f.do(t, "POST", "/api/tools/mcp_a_vendor_result/call", `{}`)
	if code != 200 {
		t.Fatalf("call: %d %s", code, body)
	}
	checkVendorMembers(t, "API answer", []byte(body))
	c, _, err := api.Dial(t.Context(), api.Runtime{PID: os.Getpid(), URL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Call(t.Context(), "mcp_a_vendor_result", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkVendorMembers(t, "API client", b)
}

// checkVendorMembers checks that b, the vendor_result of the test server,
// kept members mcp-go does not model at each level.
func checkVendorMembers(t *testing.T, what string, b []byte) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var res struct {
		Meta    map[string]map[string]any `json:"_meta"`
		Trace   map[string]any            `json:"x-trace"`
		Next    []string                  `json:"nextSpecField"`
		Content []map[string]any          `json:"content"`
	}
	if err := d.Decode(&res); err != nil {
		t.Fatalf("%s: %v: %s", what, err, b)
	}
	text := res.Content[0]
	ann, _ := text["annotations"].(map[string]any)
	switch {
	case res.Meta["io.example/trace"]["big"] != json.Number("12345678901234567890"):
		t.Errorf("%s: _meta = %v; want the server's, its big number as written", what, res.Meta)
	case res.Trace == nil || len(res.Next) != 1:
		t.Errorf("%s: the result's own members are missing: %s", what, b)
	case text["x-lang"] != "en" || ann["x-reviewed"] != true:
		t.Errorf("%s: the text item lost members: %v", what, text)
	}
}
