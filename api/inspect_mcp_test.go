package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
)

// faithfulFixture is a host running one -faithful test server, "a".
func faithfulFixture(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
	f := startHost(t, map[string]any{"a": (&fixture{}).server("-faithful")}, host.Options{})
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test"}))
	t.Cleanup(f.srv.Close)
	return f
}

// The resources, prompts and completion endpoints answer with the
// server's own results, under its own names and URIs.
func TestServerResourcesAndPrompts(t *testing.T) {
	f := faithfulFixture(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		want                     []string
	}{
		{"resources", "GET", "/api/servers/a/resources", "", 200, []string{`"uri": "test://static"`, `"uri": "test://testserver/own"`}},
		{"templates", "GET", "/api/servers/a/resource-templates", "", 200, []string{`"uriTemplate": "test://items/{id}"`}},
		{"read", "POST", "/api/servers/a/resources/read", `{"uri":"test://static"}`, 200, []string{`"text": "static text of testserver"`}},
		{"read a template's", "POST", "/api/servers/a/resources/read", `{"uri":"test://items/7"}`, 200, []string{`"text": "item 7 of testserver"`}},
		{"read without uri", "POST", "/api/servers/a/resources/read", `{}`, 400, []string{`"code": "bad_request"`}},
		{"read unknown", "POST", "/api/servers/a/resources/read", `{"uri":"test://nope"}`, 502, []string{`"code": "request_failed"`, "JSON-RPC error"}},
		{"prompts", "GET", "/api/servers/a/prompts", "", 200, []string{`"name": "greet"`, `"name": "who"`, `"name": "linked"`}},
		{"get", "POST", "/api/servers/a/prompts/get", `{"name":"greet","arguments":{"who":"bob"}}`, 200, []string{"Hello, bob, from testserver"}},
		{"get without name", "POST", "/api/servers/a/prompts/get", `{"arguments":{}}`, 400, []string{`"code": "bad_request"`}},
		{"get unknown", "POST", "/api/servers/a/prompts/get", `{"name":"nope"}`, 502, []string{`"code": "request_failed"`}},
		{"complete a prompt's", "POST", "/api/servers/a/complete",
			`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}`, 200, []string{`"alice"`}},
		{"complete a template's", "POST", "/api/servers/a/complete",
			`{"ref":{"type":"ref/resource","uri":"test://items/{id}"},"argument":{"name":"id","value":"2"}}`, 200, []string{`"2"`}},
		{"complete not an object", "POST", "/api/servers/a/complete", `[1]`, 400, []string{`"code": "bad_request"`}},
		{"unknown server", "GET", "/api/servers/nope/resources", "", 404, []string{`"code": "not_found"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.do(t, tc.method, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("%s %s: %d %s; want %d", tc.method, tc.path, code, body, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s %s: %s; want %s in it", tc.method, tc.path, body, w)
				}
			}
		})
	}
}

// A server without resources, prompts or completions answers not_offered.
func TestServerWithoutResources(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/api/servers/a/resources", "/api/servers/a/prompts"} {
		if code, body := f.do(t, "GET", path, ""); code != 404 || !strings.Contains(body, `"code": "not_offered"`) {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

// A server that is not running is refused as not_running.
func TestServerResourcesNotRunning(t *testing.T) {
	f := faithfulFixture(t)
	if code, body := f.do(t, "POST", "/api/servers/a/enabled", `{"enabled":false}`); code != 200 {
		t.Fatalf("disable: %d %s", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := f.do(t, "GET", "/api/servers/a/prompts", "")
		if code == 409 && strings.Contains(body, `"code": "not_running"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("prompts of a disabled server: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A call whose client goes away is cancelled at the server.
func TestCallCancelledWithRequest(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, "POST", f.srv.URL+"/api/tools/mcp_a_sleep/call", strings.NewReader(`{"seconds":30}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	waitStderr(t, f, "sleeping")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call answered")
	}
	waitStderr(t, f, "cancelled")
}

// waitStderr waits for server a's stderr to show s.
func waitStderr(t *testing.T, f *fixture, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok := f.h.Diagnostics(t.Context(), "a")
		if ok && strings.Contains(d.Stderr, s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server a's stderr never showed %q:\n%s", s, d.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
