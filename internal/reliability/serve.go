//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/plughost/plughost/internal/proctree"
)

// serve is one `plughost serve` process with a config of its own, in a
// directory of its own (config, HOME, token, stdout, log).
type serve struct {
	s      *suite
	name   string
	dir    string
	cfg    string
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	token  string
	log    string // path of its stderr
	exited chan struct{}
	err    error          // how it exited, once exited is closed
	mcp    map[string]any // tools.mcp of the config it started with

	stopOnce sync.Once
}

// serveOptions shape the config of a serve.
type serveOptions struct {
	servers map[string]any // tools.mcp.servers
	gateway map[string]any // extra tools.mcp.gateway settings
	mcp     map[string]any // extra tools.mcp settings
}

// stdio returns a server entry running the test server with args.
func (s *suite) stdio(args ...string) map[string]any {
	if args == nil {
		args = []string{}
	}
	return map[string]any{"enabled": true, "command": s.testserver, "args": args}
}

// startServe writes the config and starts serve, and waits until it
// announced its URL and token.
func (s *suite) startServe(name string, o serveOptions) (*serve, error) {
	dir := filepath.Join(s.work, name)
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	gw := map[string]any{"token_file": filepath.Join(dir, "token"), "shutdown_seconds": 5, "debug": true}
	maps.Copy(gw, o.gateway)
	mcp := map[string]any{
		"enabled":   true,
		"servers":   o.servers,
		"gateway":   gw,
		"workspace": filepath.Join(dir, "workspace"),
		"restart":   map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
	}
	maps.Copy(mcp, o.mcp)
	raw, err := json.MarshalIndent(map[string]any{"tools": map[string]any{"mcp": mcp}}, "", "  ")
	if err != nil {
		return nil, err
	}
	sv := &serve{s: s, name: name, dir: dir, cfg: filepath.Join(dir, "config.json"), log: filepath.Join(dir, "serve.log"), exited: make(chan struct{}), mcp: mcp}
	if err := os.WriteFile(sv.cfg, raw, 0o600); err != nil {
		return nil, err
	}
	stdout, err := os.Create(filepath.Join(dir, "serve.stdout"))
	if err != nil {
		return nil, err
	}
	defer stdout.Close()
	stderr, err := os.Create(sv.log)
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	sv.cmd = exec.Command(filepath.Join(s.bin, "plughost"), "--config", sv.cfg, "serve", "--listen", "127.0.0.1:0", "--no-watch")
	sv.cmd.Env = s.environ(dir)
	sv.cmd.Dir = dir
	sv.cmd.Stdout, sv.cmd.Stderr = stdout, stderr
	if err := sv.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { sv.err = sv.cmd.Wait(); close(sv.exited) }()
	s.mu.Lock()
	s.serves = append(s.serves, sv)
	s.mu.Unlock()
	if err := sv.awaitSnippet(filepath.Join(dir, "serve.stdout")); err != nil {
		sv.stop()
		return nil, err
	}
	return sv, nil
}

// environ is the whole environment of a plughost run in dir: nothing leaks
// in from the suite's own.
//
// RELIABILITY_SUITE is outside the default allowlist: it makes the plugin
// environment of inherit_env servers differ from the others', so they run
// in a stdio plugin process of their own (the fault run relies on it).
func (s *suite) environ(dir string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"), "RELIABILITY_SUITE=1"}
}

var (
	gatewayURL = regexp.MustCompile(`MCP gateway at (http://[^\s]+)/mcp`)
	tokenFile  = regexp.MustCompile(`it is in (\S+);`)
)

// awaitSnippet waits for the client snippet on stdout (whole once its
// stdio form, the last part, is there). Its stdout is a file, not a
// terminal, so serve names the token file instead of printing the token:
// the suite reads it from there, as a service's user would. With auth off
// there is no token.
func (sv *serve) awaitSnippet(path string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if u := gatewayURL.FindSubmatch(b); u != nil && bytes.Contains(b, []byte(`"stdio"`)) {
			sv.base = string(u[1])
			if t := tokenFile.FindSubmatch(b); t != nil {
				tok, err := os.ReadFile(string(t[1]))
				if err != nil {
					return fmt.Errorf("serve %s: the token file its snippet names: %w", sv.name, err)
				}
				sv.token = strings.TrimSpace(string(tok))
			}
			return nil
		}
		select {
		case <-sv.exited:
			log, _ := os.ReadFile(sv.log)
			return fmt.Errorf("serve %s exited (%v) before announcing its URL: %s", sv.name, sv.err, oneLine(string(log), 600))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("serve %s announced no URL within 60s", sv.name)
}

// pid is the serve process id.
func (sv *serve) pid() int { return sv.cmd.Process.Pid }

// stop ends serve (SIGTERM, SIGKILL after 15 s) and kills whatever it left.
func (sv *serve) stop() {
	sv.stopOnce.Do(func() {
		procs := proctree.Descendants(sv.pid())
		_ = sv.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-sv.exited:
		case <-time.After(15 * time.Second):
			_ = sv.cmd.Process.Kill()
			<-sv.exited
		}
		time.Sleep(200 * time.Millisecond)
		proctree.Kill(procs)
	})
}

// serverListing is what GET /api/servers says of one server.
type serverListing struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Tools       int    `json:"tools"`
	LastError   string `json:"last_error"`
	Restarts    int    `json:"restarts"`
	PluginPID   int    `json:"plugin_pid"`
	ServerPID   int    `json:"server_pid"`
	Description string `json:"description"`
	ConfigError string `json:"config_error"`
	Throttle    string `json:"throttle"`
}

// servers returns the servers' views by name.
func (sv *serve) servers(ctx context.Context) (map[string]serverListing, error) {
	body, status, err := sv.get(ctx, "/api/servers", true)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET /api/servers: %d %s", status, oneLine(string(body), 200))
	}
	var list struct {
		Servers []serverListing `json:"servers"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET /api/servers: %w", err)
	}
	out := map[string]serverListing{}
	for _, v := range list.Servers {
		out[v.Name] = v
	}
	return out, nil
}

// waitServers polls the servers until cond holds for them (at most d).
func (sv *serve) waitServers(d time.Duration, what string, cond func(map[string]serverListing) bool) (map[string]serverListing, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var last map[string]serverListing
	for {
		v, err := sv.servers(ctx)
		if err == nil {
			last = v
			if cond(v) {
				return v, nil
			}
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("%s: not within %s (servers: %+v)", what, d, last)
		case <-sv.exited:
			return last, fmt.Errorf("%s: serve exited (%v)", what, sv.err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// connected reports whether every named server is connected.
func connected(names ...string) func(map[string]serverListing) bool {
	return func(v map[string]serverListing) bool {
		for _, n := range names {
			if v[n].State != "connected" {
				return false
			}
		}
		return true
	}
}

// get does an authenticated (or not) GET of path.
func (sv *serve) get(ctx context.Context, path string, auth bool) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sv.base+path, nil)
	if err != nil {
		return nil, 0, err
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+sv.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return b, resp.StatusCode, err
}

// metric reads one unlabelled gauge from /metrics.
func (sv *serve) metric(ctx context.Context, name string) (float64, error) {
	b, status, err := sv.get(ctx, "/metrics", true)
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %d %v", status, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("no %s in /metrics", name)
}

// heapInUse returns serve's Go heap in use right after a collection (the
// heap profile with gc=1 on /debug/pprof, served with gateway.debug).
func (sv *serve) heapInUse(ctx context.Context) (int64, error) {
	b, status, err := sv.get(ctx, "/debug/pprof/heap?gc=1&debug=1", true)
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("GET /debug/pprof/heap: %d %v", status, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "# HeapInuse = "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no HeapInuse in the heap profile")
}

// peakRSS samples the RSS of serve every 50 ms until stop is called and
// returns the peak.
func (sv *serve) peakRSS() (stop func() int64) {
	return peakOf(func() int64 { return proctree.RSS(sv.pid()) })
}

// peakOf samples sample every 50 ms until stop is called and returns the
// peak.
func peakOf(sample func() int64) (stop func() int64) {
	var peak int64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if r := sample(); r > peak {
				peak = r
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 { close(done); <-finished; return peak }
}

// logText returns serve's log so far.
func (sv *serve) logText() string {
	b, _ := os.ReadFile(sv.log)
	return string(b)
}

// rpc is a JSON-RPC response.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// client is one MCP session with the gateway over streamable HTTP (JSON
// answers, unless made by newClientAt).
type client struct {
	sv      *serve
	hc      *http.Client
	path    string // of the endpoint
	accept  string
	session string
	next    int
}

// newClient returns a client of /mcp with an HTTP client of its own.
func (sv *serve) newClient() *client {
	return sv.newClientAt("/mcp", "application/json")
}

// newClientAt returns a client of the endpoint at path that sends accept.
func (sv *serve) newClientAt(path, accept string) *client {
	return &client{sv: sv, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, path: path, accept: accept}
}

// post sends one JSON-RPC message and returns the HTTP status and body.
func (c *client) post(ctx context.Context, body []byte) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.sv.base+c.path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.sv.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", c.accept)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// request sends a request and decodes its response.
func (c *client) request(ctx context.Context, method string, params any) (*rpc, error) {
	c.next++
	id := c.next
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	status, b, hdr, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", status, oneLine(string(b), 300))
	}
	var r rpc
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("answer is not JSON-RPC: %w (%s)", err, oneLine(string(b), 200))
	}
	if string(r.ID) != strconv.Itoa(id) {
		return &r, errMismatch{want: strconv.Itoa(id), got: string(r.ID)}
	}
	if method == "initialize" {
		c.session = hdr.Get("Mcp-Session-Id")
	}
	return &r, nil
}

// errMismatch is an answer to another request than the one sent.
type errMismatch struct{ want, got string }

func (e errMismatch) Error() string { return fmt.Sprintf("answer to id %s, sent id %s", e.got, e.want) }

// initialize starts the session.
func (c *client) initialize(ctx context.Context) error {
	r, err := c.request(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "reliability", "version": "1"}})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil || c.session == "" {
		return fmt.Errorf("initialize: %+v, session %q", r.Error, c.session)
	}
	status, b, _, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil || status != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: %d %v %s", status, err, b)
	}
	return nil
}

// close ends the session (DELETE) and the client's connections.
func (c *client) close(ctx context.Context) {
	if c.session != "" {
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, c.sv.base+c.path, nil)
		req.Header.Set("Authorization", "Bearer "+c.sv.token)
		req.Header.Set("Mcp-Session-Id", c.session)
		if resp, err := c.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	c.hc.CloseIdleConnections()
}

// outcome is what one tools/call came back with.
type outcome struct {
	text     string // the text items, joined
	isError  bool   // an isError result
	rpcError string // a JSON-RPC error's message
	err      error  // no answer (transport failure, HTTP error, mismatch)
}

// failure is the outcome's error text ("" when the call succeeded).
func (o outcome) failure() string {
	switch {
	case o.err != nil:
		return o.err.Error()
	case o.rpcError != "":
		return o.rpcError
	case o.isError:
		return o.text
	}
	return ""
}

// call calls a tool.
func (c *client) call(ctx context.Context, tool string, args any) outcome {
	r, err := c.request(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return outcome{err: err}
	}
	if r.Error != nil {
		return outcome{rpcError: r.Error.Message}
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return outcome{err: fmt.Errorf("result: %w", err)}
	}
	var parts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return outcome{text: strings.Join(parts, "\n"), isError: res.IsError}
}

// isMismatch reports whether err is an answer to another request.
func isMismatch(err error) bool {
	var m errMismatch
	return errors.As(err, &m)
}
