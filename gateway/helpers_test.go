package gateway_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/lib/secret"
)

// bins are built once in TestMain: the transport plugins and the test server.
var bins testbin.Set

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testbin.Main(m, &bins, func() (testbin.Set, error) {
		return testbin.Build(map[string]string{
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"plugins/mcp-transport-http":  "./plugins/http",
			"plugins/mcp-transport-sse":   "./plugins/sse",
			"testserver":                  "./internal/testserver",
		})
	}))
}

func integration(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
}

// testserver is a stdio server entry running the test server.
func testserver(extra map[string]any, args ...string) map[string]any {
	e := map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": args}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// startHost starts a host on servers (mutate adjusts tools.mcp) and waits
// until every server settled.
func startHost(t testing.TB, servers map[string]any, mutate func(mcpCfg map[string]any)) *host.Host {
	t.Helper()
	return startHostWith(t, host.Options{}, servers, mutate)
}

// startHostWith is startHost with opts (ConfigDir, Environ, PluginDirs and
// Version are set here).
func startHostWith(t testing.TB, opts host.Options, servers map[string]any, mutate func(mcpCfg map[string]any)) *host.Host {
	t.Helper()
	h := startedHost(t, opts, servers, mutate)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatalf("servers did not settle: %v (%+v)", err, h.Statuses())
	}
	return h
}

// startedHost is startHostWith without waiting for the servers: what a
// client connecting right after start-up meets.
func startedHost(t testing.TB, opts host.Options, servers map[string]any, mutate func(mcpCfg map[string]any)) *host.Host {
	t.Helper()
	mcpCfg := map[string]any{
		"enabled": true, "servers": servers,
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
	}
	if mutate != nil {
		mutate(mcpCfg)
	}
	raw, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcpCfg}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{
		UserFile: filepath.Join(dir, "config.json"), UserData: raw, AllowMissing: true,
		SystemDir: filepath.Join(dir, "none"), Home: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts.ConfigDir, opts.Environ, opts.PluginDirs, opts.Version = dir, []string{"PATH=" + os.Getenv("PATH")}, []string{bins.PluginDir()}, "test"
	h, err := host.NewFromLoaded(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	return h
}

const testToken = secret.String("test-token-0123456789-abcdefghij")

// serveHTTP serves h's gateway behind a front door on a free loopback port
// with testToken until the test ends; it returns the MCP URL.
func serveHTTP(t *testing.T, h *host.Host) (string, *gateway.Gateway) {
	t.Helper()
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(h, gateway.Options{})
	door, err := frontdoor.New(h, frontdoor.Options{Listener: ln, Token: testToken,
		Limits: frontdoor.LimitsFromConfig(h.Config().MCP.Gateway), Collectors: gw.Collectors()})
	if err != nil {
		t.Fatal(err)
	}
	door.MountClients(gateway.MCPPath, gw.HTTPHandlerFor)
	door.MountClients(gateway.ServerPattern, gw.ServerHTTPHandlerFor)
	door.OnShutdown(gw.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var run sync.WaitGroup
	run.Go(func() { gw.Run(ctx) })
	go func() { done <- door.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		run.Wait()
	})
	return gateway.URL(ln.Addr()), gw
}

// mcpClient is an mcp-go client of the gateway that records
// notifications/tools/list_changed.
type mcpClient struct {
	*client.Client
	changed chan struct{}
}

// connect opens an initialized client session to url with the test token.
func connect(t *testing.T, url string) *mcpClient {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken.Reveal()}),
		//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where the GET stream carries a session's notifications
		transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	return start(t, tr)
}

func start(t *testing.T, tr transport.Interface) *mcpClient {
	t.Helper()
	c := &mcpClient{Client: client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125)), changed: make(chan struct{}, 64)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			c.changed <- struct{}{}
		}
	})
	initialize(t, c.Client, "gateway-test")
	return c
}

// initialize starts c, closed when the test ends, and runs initialize.
func initialize(t *testing.T, c *client.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// toolNames lists the session's tools.
func (c *mcpClient) toolNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// call calls a tool; a protocol error fails the test.
func (c *mcpClient) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.tryCall(name, args)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func (c *mcpClient) tryCall(name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	return c.CallTool(ctx, req)
}

// waitChanged waits for a list_changed notification.
func (c *mcpClient) waitChanged(t *testing.T, what string) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no notifications/tools/list_changed %s", what)
	}
}

// drain forgets notifications received so far.
func (c *mcpClient) drain() {
	for {
		select {
		case <-c.changed:
		default:
			return
		}
	}
}

// waitTools polls tools/list until cond holds.
func (c *mcpClient) waitTools(t *testing.T, what string, cond func([]string) bool) []string {
	t.Helper()
	var names []string
	if !testwait.Until(30*time.Second, func() bool { names = c.toolNames(t); return cond(names) }) {
		t.Fatalf("tools/list never showed %s; last: %v", what, names)
	}
	return names
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func has(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
