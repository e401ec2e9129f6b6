package frontdoor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
)

const token = secret.String("door-test-token-0123456789abcdef")

// emptyHost is a host with one disabled server: nothing to start.
func emptyHost(t *testing.T) *host.Host {
	t.Helper()
	raw := []byte(`{"tools":{"mcp":{"enabled":true,"servers":{"off":{"enabled":false,"command":"x"}}}}}`)
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: raw, AllowMissing: true,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// serve runs a door with the test token and a few mounts until the test
// ends; it returns the base URL.
func serve(t *testing.T, limits frontdoor.Limits, mount func(d *frontdoor.Door)) string {
	t.Helper()
	return serveWith(t, frontdoor.Options{Token: token, Limits: limits}, mount)
}

// serveWith runs a door with o (on a loopback listener of its own) and a
// few mounts until the test ends; it returns the base URL.
func serveWith(t *testing.T, o frontdoor.Options, mount func(d *frontdoor.Door)) string {
	t.Helper()
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	o.Listener = ln
	d, err := frontdoor.New(emptyHost(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if mount != nil {
		mount(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func defaultLimits() frontdoor.Limits {
	return frontdoor.Limits{MaxBodyBytes: 1 << 20, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second,
		IdleTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second}
}

func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var hello = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })

// Mounted routes share the token; public mounts and /healthz do not; a
// token in the query string is refused everywhere.
func TestMountsAndAuth(t *testing.T) {
	base := serve(t, defaultLimits(), func(d *frontdoor.Door) {
		d.Mount("/api/", hello)
		d.MountPublic("/oauth/callback", hello)
	})
	auth := map[string]string{"Authorization": "Bearer " + token.Reveal()}
	for _, c := range []struct {
		path   string
		header map[string]string
		want   int
		body   string
	}{
		{"/api/servers", nil, 401, "missing bearer token"},
		{"/api/servers", map[string]string{"Authorization": "Bearer nope-0123456789"}, 401, "wrong bearer token"},
		{"/api/servers", auth, 200, "hello"},
		{"/api/servers?token=" + token.Reveal(), auth, 400, "token in the URL"},
		{"/oauth/callback?code=x", nil, 200, "hello"},
		{"/oauth/callback?access_token=x", nil, 400, "token in the URL"},
		{"/healthz", nil, 200, `"ok"`},
		{"/readyz", nil, 200, `{"ready":true}`},
		{"/readyz", map[string]string{"Authorization": "Bearer nope-0123456789"}, 401, "wrong bearer token"},
		{"/readyz?token=x", nil, 400, "token in the URL"},
		{"/readyz", auth, 200, `"ready":true`},
		{"/metrics", auth, 200, `plughost_server_up{server="off",state="disabled"} 0`},
	} {
		code, body := get(t, base+c.path, c.header)
		if code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("GET %s: %d %q, want %d with %q", c.path, code, body, c.want, c.body)
		}
	}
}

// Without a token, the door serves only on loopback.
func TestNoTokenNeedsLoopback(t *testing.T) {
	if _, err := frontdoor.Listen("0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "auth") {
		t.Errorf("Listen(0.0.0.0:0, no auth) = %v, want an error about auth", err)
	}
	ln, err := frontdoor.Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := frontdoor.New(emptyHost(t), frontdoor.Options{Listener: ln}); err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Errorf("a door on 0.0.0.0 without a token = %v, want a refusal", err)
	}
}

// On loopback, a foreign Host (DNS rebinding) is refused; so is a request
// from any web page but plughost's own (its Origin names the Host the
// request went to) unless allowed_origins lists the page's origin — another
// local page (a dev server on localhost:3000) included.
func TestOriginRule(t *testing.T) {
	base := serveWith(t, frontdoor.Options{Token: token, Limits: defaultLimits(), AllowedOrigins: []string{"http://localhost:6274"}},
		func(d *frontdoor.Door) { d.Mount("/mcp", hello) })
	auth := "Bearer " + token.Reveal()
	for _, c := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{"Authorization": auth}, 200},
		{map[string]string{"Authorization": auth, "Host": "evil.example"}, 403},
		{map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, 403},
		{map[string]string{"Authorization": auth, "Origin": "http://localhost:3000"}, 403},
		{map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:3000"}, 403},
		{map[string]string{"Authorization": auth, "Origin": "null"}, 403},
		{map[string]string{"Authorization": auth, "Origin": base}, 200},
		{map[string]string{"Authorization": auth, "Origin": "http://localhost:6274"}, 200},
		{map[string]string{"Authorization": auth, "Host": "localhost:1234"}, 200},
		{map[string]string{"Authorization": auth, "Host": "localhost:1234", "Origin": "http://localhost:1234"}, 200},
		{map[string]string{"Authorization": auth, "Host": "localhost:1234", "Origin": base}, 403},
	} {
		code, body := get(t, base+"/mcp", c.header)
		if code != c.want {
			t.Errorf("%v: %d %q, want %d", c.header, code, body, c.want)
		}
		if code == 403 && c.header["Origin"] != "" && !strings.Contains(body, "tools.mcp.gateway.allowed_origins") {
			t.Errorf("%v: the refusal %q does not say how to allow the page", c.header, body)
		}
	}
}

// A page of a listed origin gets what a browser needs to call across
// origins: a preflight answer (which carries no token) and the CORS
// headers, Mcp-Session-Id readable. Other pages get neither.
func TestListedOriginCORS(t *testing.T) {
	base := serveWith(t, frontdoor.Options{Token: token, Limits: defaultLimits(), AllowedOrigins: []string{"http://localhost:6274"}},
		func(d *frontdoor.Door) {
			d.Mount("/mcp", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Mcp-Session-Id", "s1")
				io.WriteString(w, "hello")
			}))
		})
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest("OPTIONS", base+"/mcp", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := preflight("http://localhost:6274")
	h := resp.Header
	if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "mcp-session-id") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("preflight of a listed origin: %d %v", resp.StatusCode, h)
	}
	if resp := preflight("http://localhost:3000"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another origin: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader("{}"))
	req.Header.Set("Origin", "http://localhost:6274")
	req.Header.Set("Authorization", "Bearer "+token.Reveal())
	got, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got.Body.Close()
	if got.StatusCode != 200 || got.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(strings.ToLower(got.Header.Get("Access-Control-Expose-Headers")), "mcp-session-id") ||
		!strings.Contains(got.Header.Get("Vary"), "Origin") {
		t.Errorf("a listed origin's request: %d %v", got.StatusCode, got.Header)
	}
	if code, _ := get(t, base+"/mcp", map[string]string{"Authorization": "Bearer " + token.Reveal(), "Origin": base}); code != 200 {
		t.Errorf("own origin: %d", code)
	}
}

// A door refuses to start with an allowed origin that is not one.
func TestBadAllowedOrigin(t *testing.T) {
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = frontdoor.New(emptyHost(t), frontdoor.Options{Listener: ln, Token: token, AllowedOrigins: []string{"localhost:3000"}})
	if err == nil || !strings.Contains(err.Error(), "tools.mcp.gateway.allowed_origins") || !strings.Contains(err.Error(), `"localhost:3000"`) {
		t.Errorf("New with a bad allowed origin: %v", err)
	}
}

// The 401 says how to authenticate without naming where the token file is
// (an unauthenticated caller learns nothing of the machine).
func TestUnauthorizedNamesNoPath(t *testing.T) {
	base := serve(t, defaultLimits(), func(d *frontdoor.Door) { d.Mount("/mcp", hello) })
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer nope-0123456789"}} {
		code, body := get(t, base+"/mcp", h)
		if code != 401 || strings.Contains(body, "/") || !strings.Contains(body, "tools.mcp.gateway.token_file") {
			t.Errorf("401 %v: %d %q, want a message naming the setting, not a path", h, code, body)
		}
	}
}

// A request refused before its body is read (no token, a wrong one, a
// foreign page) is answered at once and its connection closed: a client
// trickling a body is not held for the read timeout.
func TestRefusalCutsTheBody(t *testing.T) {
	l := defaultLimits()
	l.ReadTimeout = time.Hour // only the refusal may end the connection
	base := serve(t, l, func(d *frontdoor.Door) { d.Mount("/mcp", hello) })
	addr := strings.TrimPrefix(base, "http://")
	for _, c := range []struct{ name, header string }{
		{"no token", ""},
		{"wrong token", "Authorization: Bearer nope-0123456789\r\n"},
		{"foreign page", "Authorization: Bearer " + token.Reveal() + "\r\nOrigin: http://localhost:3000\r\n"},
		{"token in the URL", "X-Query: 1\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			path := "/mcp"
			if c.name == "token in the URL" {
				path += "?token=x"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"js", path, addr, c.header)
			conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // far below the read timeout: fails only when held
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("no answer before the body was sent: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode < 400 || !resp.Close {
				t.Errorf("status %d, Connection close %v; want a refusal that closes the connection", resp.StatusCode, resp.Close)
			}
			if _, err := r.ReadByte(); err == nil {
				t.Error("the server wrote more after the refusal")
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Error("the connection was held open after the refusal")
			}
		})
	}
}

// A body over the limit is refused with 413 and a JSON-RPC error; a slow
// sender is cut off by the read timeout; a handler that runs (and answers)
// past the read timeout after reading its body is neither cancelled nor cut
// — the limits bound requests, never the calls they make.
func TestLimits(t *testing.T) {
	l := defaultLimits()
	l.MaxBodyBytes, l.ReadTimeout = 100, 300*time.Millisecond
	long := make(chan error, 1)
	base := serve(t, l, func(d *frontdoor.Door) {
		d.Mount("/api/echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
			w.Write(b)
		}))
		d.Mount("/api/long", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			select {
			case <-time.After(3 * l.ReadTimeout):
				long <- nil
				io.WriteString(w, "done")
			case <-r.Context().Done():
				long <- r.Context().Err()
			}
		}))
	})
	post := func(path, body string) (int, string) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token.Reveal())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/api/echo", strings.Repeat("x", 101)); code != 413 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "max_request_mb") {
		t.Errorf("over the limit: %d %q", code, body)
	}
	if code, body := post("/api/echo", "small"); code != 200 || body != "small" {
		t.Errorf("under the limit: %d %q", code, body)
	}
	if code, body := post("/api/long", "{}"); code != 200 || body != "done" {
		t.Errorf("long handler: %d %q", code, body)
	}
	if err := <-long; err != nil {
		t.Errorf("the read timeout cancelled a handler that had read its body: %v", err)
	}

	// Slowloris: headers promise a body that never comes.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: 50\r\n\r\nabc", token.Reveal())
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 200 {
			t.Errorf("a body that never finished was served: %d %q", resp.StatusCode, b)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("the server kept a slow sender's connection open past its read timeout")
	}
}

// /readyz lists every server; disabled ones do not hold readiness.
func TestReadyz(t *testing.T) {
	base := serve(t, defaultLimits(), nil)
	code, body := get(t, base+"/readyz", map[string]string{"Authorization": "Bearer " + token.Reveal()})
	var r host.Readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if code != 200 || !r.Ready || len(r.Servers) != 1 || r.Servers[0].Name != "off" || r.Servers[0].Up {
		t.Errorf("readyz: %d %+v", code, r)
	}
}

// MountProfiles serves a CPU profile, a trace and the named profiles
// behind the token, and nothing of them without it.
func TestProfiles(t *testing.T) {
	base := serve(t, defaultLimits(), func(d *frontdoor.Door) { d.MountProfiles() })
	auth := map[string]string{"Authorization": "Bearer " + token.Reveal()}
	for _, c := range []struct {
		path string
		want string // the body's start
	}{
		{"/debug/pprof/", "<html>"},
		{"/debug/pprof/profile?seconds=1", "\x1f\x8b"}, // a gzipped profile
		{"/debug/pprof/trace?seconds=1", "go 1."},
		{"/debug/pprof/heap", "\x1f\x8b"},
		{"/debug/pprof/goroutine?debug=1", "goroutine profile: total"},
		{"/debug/pprof/cmdline", ""},
		{"/debug/pprof/symbol", "num_symbols: 1"},
	} {
		code, body := get(t, base+c.path, auth)
		if code != 200 || !strings.HasPrefix(body, c.want) {
			t.Errorf("GET %s: %d %.40q, want 200 starting %q", c.path, code, body, c.want)
		}
		if code, body := get(t, base+c.path, nil); code != 401 {
			t.Errorf("GET %s without the token: %d %.40q, want 401", c.path, code, body)
		}
	}
}
