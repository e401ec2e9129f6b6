//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
)

// Integration tests of remote servers (sse, http, streamable-http) through the
// real host and the real mcp-transport-sse / mcp-transport-http plugins,
// against the test server run as a subprocess with -serve, httptest servers
// and the npm reference server.

// process is a server subprocess owned by one test; it is killed at cleanup.
type process struct {
	cmd    *exec.Cmd
	stdout syncbuf.Buffer
	stderr syncbuf.Buffer
	done   chan struct{}
}

func startProcess(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p
}

// kill SIGKILLs the process (and its group) and waits until it is gone.
func (p *process) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	<-p.done
}

// waitOutput waits until the process has written want to stdout or stderr.
func (p *process) waitOutput(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(p.stdout.String()+p.stderr.String(), want) {
		select {
		case <-p.done:
			t.Fatalf("%s exited before writing %q; stderr:\n%s", p.cmd.Path, want, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not write %q within %s; stdout:\n%s\nstderr:\n%s",
				p.cmd.Path, want, within, p.stdout.String(), p.stderr.String())
		}
	}
}

// testHTTPServer is the test server serving MCP over HTTP.
type testHTTPServer struct {
	*process
	url string
}

// serveTestServer runs the test server with -serve mode (sse or http) on addr
// ("127.0.0.1:0" for any port) and returns once it listens.
func serveTestServer(t *testing.T, mode, addr string) *testHTTPServer {
	t.Helper()
	p := startProcess(t, exec.Command(bins.Path("testserver"), "-serve", mode, "-addr", addr))
	p.waitOutput(t, "listening ", 10*time.Second)
	line := p.stdout.String()
	line = line[strings.Index(line, "listening ")+len("listening "):]
	u, _, _ := strings.Cut(line, "\n")
	return &testHTTPServer{process: p, url: strings.TrimSpace(u)}
}

// freeAddr returns a loopback address nothing listens on (it did a moment ago).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// waitListening waits until addr accepts TCP connections.
func waitListening(t *testing.T, p *process, addr string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before listening on %s; stderr:\n%s", p.cmd.Path, addr, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after %s: %v; stderr:\n%s", addr, within, err, p.stderr.String())
		}
	}
}

// remoteEntry is a server entry for url with the given type ("" omits it).
func remoteEntry(typ, url string) map[string]any {
	e := map[string]any{"enabled": true, "url": url}
	if typ != "" {
		e["type"] = typ
	}
	return e
}

// mustBeConnected fails the test with the server's diagnostics unless it is connected.
func mustBeConnected(t *testing.T, h *host.Host, name string) supervisor.Status {
	t.Helper()
	st := state(h, name)
	if st.State != supervisor.StateConnected {
		d, _ := h.Diagnostics(context.Background(), name)
		t.Fatalf("%s: %+v; want connected\nplugin diagnostics: %+v", name, st, d)
	}
	return st
}

func hasTool(h *host.Host, name string) bool {
	_, ok := h.Registry().Lookup(name)
	return ok
}

// eventuallyEcho calls echo on srv until it answers, within a bound, and
// returns how many attempts it took.
func eventuallyEcho(t *testing.T, s *host.Session, srv, want string, within time.Duration) int {
	t.Helper()
	var lastErr error
	attempts := 0
	echoed := func() bool {
		attempts++
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := s.Call(ctx, "mcp_"+srv+"_echo", json.RawMessage(fmt.Sprintf(`{"text": %q}`, want)))
		cancel()
		if err == nil && !res.IsError {
			if got := text(t, res); got != want {
				t.Fatalf("echo: got %q, want %q", got, want)
			}
			return true
		}
		if err == nil {
			err = fmt.Errorf("tool error: %s", text(t, res))
		}
		lastErr = err
		return false
	}
	if !testwait.Until(within, echoed) {
		t.Fatalf("echo did not succeed within %s (%d attempts); last error: %v", within, attempts, lastErr)
	}
	return attempts
}

// TestRemoteTransports: every remote type lists the server's tools under
// mcp_<server>_<tool>, calls them, and follows tools/list_changed.
func TestRemoteTransports(t *testing.T) {
	integration(t)
	t.Parallel()
	for _, c := range []struct{ typ, serve, want string }{
		{"sse", "sse", "sse"},
		{"http", "http", "http"},
		{"streamable-http", "http", "http"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			t.Parallel()
			srv := serveTestServer(t, c.serve, "127.0.0.1:0")
			entry := remoteEntry(c.typ, srv.url)
			entry["trust"] = "off" // its tool added at runtime is listed at once (trust: trust_integration_test.go)
			h := startHost(t, map[string]any{"remote": entry})
			st := mustBeConnected(t, h, "remote")
			if st.Transport != c.want || st.TransportNote != "" {
				t.Errorf("transport %q (note %q); want %q and no note for an explicit type", st.Transport, st.TransportNote, c.want)
			}
			if st.Path != "relay" {
				t.Errorf("message path %q; a remote server can only be reached through the plugin (relay)", st.Path)
			}
			// Plain http to a non-loopback host must carry a warning, which
			// needs a network to test here; httppolicy's unit tests of
			// Warnings cover it. Loopback plain http must carry none.
			if len(st.Warnings) != 0 {
				t.Errorf("warnings %q for a loopback server; want none", st.Warnings)
			}
			for _, tool := range []string{"mcp_remote_echo", "mcp_remote_sleep", "mcp_remote_headers"} {
				if !hasTool(h, tool) {
					t.Errorf("tool %s missing; tools: %v", tool, h.ServerTools("remote"))
				}
			}
			s := h.NewSession()
			if got := text(t, call(t, s, "mcp_remote_echo", map[string]any{"text": "héllo " + c.typ})); got != "héllo "+c.typ {
				t.Errorf("echo: %q", got)
			}
			call(t, s, "mcp_remote_add_tool", map[string]any{"name": "fresh"})
			waitFor(t, h, "mcp_remote_fresh after tools/list_changed", func() bool { return hasTool(h, "mcp_remote_fresh") })
			if got := text(t, call(t, s, "mcp_remote_fresh", map[string]any{})); got != "ok from fresh" {
				t.Errorf("tool added at runtime: %q", got)
			}
		})
	}
}

// recordingProxy forwards to target and records the headers of every request.
type recordingProxy struct {
	mu       sync.Mutex
	requests []http.Header
}

func newRecordingProxy(t *testing.T, target string) (*recordingProxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &recordingProxy{}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
		FlushInterval: -1,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.mu.Lock()
		h := r.Header.Clone()
		h.Set("X-Recorded-Method", r.Method)
		rp.requests = append(rp.requests, h)
		rp.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rp, srv.URL + u.Path
}

func (rp *recordingProxy) seen() []http.Header {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]http.Header(nil), rp.requests...)
}

// TestRemoteHeaderPrecedence: configured headers reach the server, the
// protocol's own headers win over configured ones of the same name, and the
// configured secret shows up in no status, error or log line.
func TestRemoteHeaderPrecedence(t *testing.T) {
	integration(t)
	t.Parallel()
	const secretValue = "secret-1-do-not-leak"
	for _, typ := range []string{"sse", "http"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			srv := serveTestServer(t, typ, "127.0.0.1:0")
			target, proxy := srv.url, (*recordingProxy)(nil)
			headers := map[string]any{"X-Api-Key": secretValue, "Content-Type": "text/plain"}
			if typ == "http" {
				// Streamable HTTP sets Accept and Mcp-Session-Id itself. A
				// proxy sees every request, including initialize, which the
				// headers tool cannot. (Not for sse: its endpoint event names
				// the test server's own origin, so the POSTs bypass a proxy.)
				headers["Accept"], headers["Mcp-Session-Id"] = "text/plain", "bogus"
				proxy, target = newRecordingProxy(t, srv.url)
			}
			good := remoteEntry(typ, target)
			good["headers"] = headers
			// The same secret on a server that fails: its error must not show it.
			down := remoteEntry(typ, "http://"+freeAddr(t)+"/mcp")
			down["headers"] = map[string]any{"X-Api-Key": secretValue}
			logs := &syncbuf.Buffer{}
			logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug, JSONFormat: true})
			h := startHostOpts(t, host.Options{Logger: logger}, map[string]any{"good": good, "down": down})
			mustBeConnected(t, h, "good")

			var got map[string]string
			if err := json.Unmarshal([]byte(text(t, call(t, h.NewSession(), "mcp_good_headers", map[string]any{}))), &got); err != nil {
				t.Fatalf("headers tool: %v", err)
			}
			if got["X-Api-Key"] != secretValue {
				t.Errorf("X-Api-Key %q; want the configured value", got["X-Api-Key"])
			}
			if ct := got["Content-Type"]; !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q; the protocol's application/json must win over the configured text/plain", ct)
			}
			if typ == "http" {
				if a := got["Accept"]; !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
					t.Errorf("Accept %q; the protocol's value must win over the configured text/plain", a)
				}
				if sid := got["Mcp-Session-Id"]; sid == "" || sid == "bogus" {
					t.Errorf("Mcp-Session-Id %q; want the session's own id, not the configured one", sid)
				}
				for i, req := range proxy.seen() {
					method := req.Get("X-Recorded-Method")
					if req.Get("X-Api-Key") != secretValue {
						t.Errorf("request %d (%s) lacks the configured X-Api-Key", i, method)
					}
					if req.Get("Mcp-Session-Id") == "bogus" || req.Get("Accept") == "text/plain" || req.Get("Content-Type") == "text/plain" {
						t.Errorf("request %d (%s) carries a configured protocol header: Accept %q, Content-Type %q, Mcp-Session-Id %q",
							i, method, req.Get("Accept"), req.Get("Content-Type"), req.Get("Mcp-Session-Id"))
					}
				}
			}

			waitFor(t, h, "down to fail", func() bool { return state(h, "down").LastError != "" })
			statuses, _ := json.Marshal(h.Statuses())
			if strings.Contains(string(statuses), secretValue) {
				t.Errorf("statuses show the header secret: %s", statuses)
			}
			for _, name := range []string{"good", "down"} {
				d, _ := h.Diagnostics(context.Background(), name)
				if b, _ := json.Marshal(d); strings.Contains(string(b), secretValue) {
					t.Errorf("%s diagnostics show the header secret: %s", name, b)
				}
			}
			if _, err := h.NewSession().Call(context.Background(), "mcp_down_echo", nil); err == nil || strings.Contains(err.Error(), secretValue) {
				t.Errorf("call to the failed server: %v; want an error without the secret", err)
			}
			if strings.Contains(logs.String(), secretValue) {
				t.Errorf("host or plugin logs show the header secret:\n%s", logs.String())
			}
		})
	}
}

// TestRemoteAutoDetect: a url without a type tries sse and falls back to
// http when the server speaks streamable HTTP; an explicit type is never
// second-guessed.
func TestRemoteAutoDetect(t *testing.T) {
	integration(t)
	t.Parallel()
	httpSrv := serveTestServer(t, "http", "127.0.0.1:0")
	sseSrv := serveTestServer(t, "sse", "127.0.0.1:0")
	explicitSSE := remoteEntry("sse", httpSrv.url)
	// The server opens an event stream and never announces an endpoint: the
	// sse transport can only tell after waiting; keep the wait short.
	explicitSSE["timeouts"] = map[string]any{"initialize_seconds": 3}
	h := startHost(t, map[string]any{
		"auto_http":     remoteEntry("", httpSrv.url),
		"auto_sse":      remoteEntry("", sseSrv.url),
		"explicit_sse":  explicitSSE,
		"explicit_http": remoteEntry("http", httpSrv.url),
	})
	s := h.NewSession()

	st := mustBeConnected(t, h, "auto_http")
	if st.Transport != "http" {
		t.Errorf("auto_http: transport %q; want the http fallback", st.Transport)
	}
	if n := st.TransportNote; !strings.Contains(n, "sse") || !strings.Contains(n, "http") || !strings.Contains(n, "type") {
		t.Errorf("auto_http: transport note %q; want it to say type was unset, sse was refused and http is used", n)
	}
	if got := text(t, call(t, s, "mcp_auto_http_echo", map[string]any{"text": "via fallback"})); got != "via fallback" {
		t.Errorf("auto_http echo: %q", got)
	}

	st = mustBeConnected(t, h, "auto_sse")
	if st.Transport != "sse" || st.TransportNote != "" {
		t.Errorf("auto_sse: transport %q, note %q; want sse with no note", st.Transport, st.TransportNote)
	}
	if got := text(t, call(t, s, "mcp_auto_sse_echo", map[string]any{"text": "via sse"})); got != "via sse" {
		t.Errorf("auto_sse echo: %q", got)
	}

	st = state(h, "explicit_sse")
	if st.State == supervisor.StateConnected || st.LastError == "" {
		t.Fatalf("explicit_sse against a streamable-HTTP server: %+v; want an error, never a silent switch", st)
	}
	if st.Transport != "sse" || st.TransportNote != "" {
		t.Errorf("explicit_sse: transport %q, note %q; an explicit type must stay as configured", st.Transport, st.TransportNote)
	}
	// The plugin recognises a streamable-HTTP server and says so; the host
	// must relay that rather than blame the timeout.
	if !strings.Contains(st.LastError, `"type": "http"`) || strings.Contains(st.LastError, "raise timeouts") {
		t.Errorf("explicit_sse error %q; want it to suggest \"type\": \"http\", not a longer timeout", st.LastError)
	}
	mustBeConnected(t, h, "explicit_http")
	// Restarts never switch it either.
	waitFor(t, h, "explicit_sse to be retried", func() bool { return state(h, "explicit_sse").Restarts >= 1 })
	if st := state(h, "explicit_sse"); st.Transport != "sse" || st.State == supervisor.StateConnected {
		t.Errorf("explicit_sse after a restart: %+v; want still sse, not connected", st)
	}
}

// TestRemoteSessionLossAndServerRestart: a streamable-HTTP server restarted
// on the same port forgets its sessions (404); the next calls succeed on a
// new session, while a call in flight when the server died fails and is
// never replayed.
func TestRemoteSessionLossAndServerRestart(t *testing.T) {
	integration(t)
	t.Parallel()
	addr := freeAddr(t)
	srv := serveTestServer(t, "http", addr)
	h := startHost(t, map[string]any{"remote": remoteEntry("http", srv.url)})
	mustBeConnected(t, h, "remote")
	s := h.NewSession()
	if got := text(t, call(t, s, "mcp_remote_echo", map[string]any{"text": "first"})); got != "first" {
		t.Fatalf("echo: %q", got)
	}

	// Idle restart: the host's session is unknown to the new server.
	srv.kill()
	srv = serveTestServer(t, "http", addr)
	attempts := eventuallyEcho(t, s, "remote", "after restart", 20*time.Second)
	t.Logf("idle restart: echo succeeded on attempt %d; status %+v", attempts, state(h, "remote"))

	// A call in flight when the server is killed fails; it is not replayed.
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(context.Background(), "mcp_remote_sleep", json.RawMessage(`{"seconds": 30}`))
		errc <- err
	}()
	srv.waitOutput(t, "sleeping", 10*time.Second)
	srv.kill()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the call in flight when the server was killed succeeded; want an error")
		}
		t.Logf("in-flight call: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("the call in flight when the server was killed did not fail within 15s")
	}
	srv = serveTestServer(t, "http", addr)
	attempts = eventuallyEcho(t, s, "remote", "after crash", 20*time.Second)
	t.Logf("restart after crash: echo succeeded on attempt %d; status %+v", attempts, state(h, "remote"))
	if strings.Contains(srv.stderr.String(), "sleeping") {
		t.Errorf("the interrupted sleep was replayed on the new server; stderr:\n%s", srv.stderr.String())
	}
}

// TestRemoteTimeoutsAndUnreachable: a call over the timeout fails naming
// timeouts.call_seconds on both transports; a url where nothing listens puts
// only that server in error with a clear message.
func TestRemoteTimeoutsAndUnreachable(t *testing.T) {
	integration(t)
	t.Parallel()
	sseSrv := serveTestServer(t, "sse", "127.0.0.1:0")
	httpSrv := serveTestServer(t, "http", "127.0.0.1:0")
	nowhere := freeAddr(t)
	servers := map[string]any{
		"slow_sse":     remoteEntry("sse", sseSrv.url),
		"slow_http":    remoteEntry("http", httpSrv.url),
		"nowhere_sse":  remoteEntry("sse", "http://"+nowhere+"/sse"),
		"nowhere_http": remoteEntry("http", "http://"+nowhere+"/mcp"),
	}
	for _, name := range []string{"slow_sse", "slow_http"} {
		servers[name].(map[string]any)["timeouts"] = map[string]any{"call_seconds": 0.5}
	}
	h := startHost(t, servers)
	s := h.NewSession()
	for _, name := range []string{"slow_sse", "slow_http"} {
		t.Run(name, func(t *testing.T) {
			mustBeConnected(t, h, name)
			began := time.Now()
			_, err := s.Call(context.Background(), "mcp_"+name+"_sleep", json.RawMessage(`{"seconds": 20}`))
			if err == nil || !strings.Contains(err.Error(), "timeouts.call_seconds") {
				t.Fatalf("slow call: %v; want a timeout naming timeouts.call_seconds", err)
			}
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("slow call took %s to time out after 0.5s", took)
			}
			if got := text(t, call(t, s, "mcp_"+name+"_echo", map[string]any{"text": "still up"})); got != "still up" {
				t.Errorf("echo after a timeout: %q", got)
			}
		})
	}
	for _, name := range []string{"nowhere_sse", "nowhere_http"} {
		t.Run(name, func(t *testing.T) {
			waitFor(t, h, name+" to fail", func() bool { return state(h, name).LastError != "" })
			st := state(h, name)
			if st.State == supervisor.StateConnected {
				t.Fatalf("%+v; want error", st)
			}
			if !strings.Contains(st.LastError, nowhere) || !strings.Contains(st.LastError, "connection refused") {
				t.Errorf("error %q; want it to name %s and say the connection was refused", st.LastError, nowhere)
			}
			_, err := s.Call(context.Background(), "mcp_"+name+"_echo", nil)
			if err == nil {
				t.Errorf("call to an unreachable server succeeded")
			}
		})
	}
}

// TestRemoteRedirectRefused: a redirect to another origin fails the
// connection, naming both URLs, and the other origin gets no request (so
// never the configured header).
func TestRemoteRedirectRefused(t *testing.T) {
	integration(t)
	t.Parallel()
	const secretValue = "redirect-secret"
	for _, typ := range []string{"sse", "http"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var atB []string // method, path and X-Api-Key of each request B got
			b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				atB = append(atB, fmt.Sprintf("%s %s X-Api-Key=%q", r.Method, r.URL.Path, r.Header.Get("X-Api-Key")))
				mu.Unlock()
				http.Error(w, "not here", http.StatusTeapot)
			}))
			t.Cleanup(b.Close)
			a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, b.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			t.Cleanup(a.Close)
			if !strings.HasPrefix(a.URL, "http://127.0.0.1:") || !strings.HasPrefix(b.URL, "http://127.0.0.1:") {
				t.Fatalf("want two loopback origins, got %s and %s", a.URL, b.URL)
			}
			entry := remoteEntry(typ, a.URL+"/mcp")
			entry["headers"] = map[string]any{"X-Api-Key": secretValue}
			h := startHost(t, map[string]any{"redirected": entry})
			waitFor(t, h, "the redirected server to fail", func() bool { return state(h, "redirected").LastError != "" })
			st := state(h, "redirected")
			if st.State == supervisor.StateConnected {
				t.Fatalf("%+v; want error", st)
			}
			for _, want := range []string{a.URL + "/mcp", b.URL + "/mcp", "redirect"} {
				if !strings.Contains(st.LastError, want) {
					t.Errorf("error %q lacks %q", st.LastError, want)
				}
			}
			if strings.Contains(st.LastError, secretValue) {
				t.Errorf("error %q shows the header secret", st.LastError)
			}
			// Let a restart or two happen: none may reach B either.
			waitFor(t, h, "a retry", func() bool { return state(h, "redirected").Restarts >= 1 })
			mu.Lock()
			defer mu.Unlock()
			if len(atB) != 0 {
				t.Errorf("the redirect target got requests (it must get none, least of all with the configured header): %q", atB)
			}
		})
	}
}

// TestRemoteNPMEverythingServer runs the reference server-everything over
// sse (/sse) and streamableHttp (/mcp) and uses it through the host.
func TestRemoteNPMEverythingServer(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	t.Parallel()
	for _, c := range []struct{ typ, mode, path string }{
		{"sse", "sse", "/sse"},
		{"http", "streamableHttp", "/mcp"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			_, port, _ := net.SplitHostPort(addr)
			cmd := exec.Command("node", everything, c.mode)
			cmd.Env = append(os.Environ(), "PORT="+port)
			node := startProcess(t, cmd)
			waitListening(t, node, addr, 15*time.Second)
			h := startHost(t, map[string]any{"everything": remoteEntry(c.typ, "http://"+addr+c.path)})
			st := state(h, "everything")
			if st.State != supervisor.StateConnected || st.Tools == 0 || st.Transport != c.typ {
				t.Fatalf("%+v; want connected over %s with tools\nnode stderr:\n%s", st, c.typ, node.stderr.String())
			}
			if !hasTool(h, "mcp_everything_echo") {
				t.Fatalf("mcp_everything_echo missing; tools: %v", h.ServerTools("everything"))
			}
			got := text(t, call(t, h.NewSession(), "mcp_everything_echo", map[string]any{"message": "ping " + c.typ}))
			if !strings.Contains(got, "ping "+c.typ) {
				t.Errorf("everything echo: %q", got)
			}
		})
	}
}
