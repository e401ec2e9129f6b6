package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plughost/plughost/gateway"
)

// BenchmarkToolsCall is one tools/call through the HTTP handler, in process
// (no network, an in-process server): the engine's own cost per call, with
// a catalog of 7 or 1,000 tools (the cost must not depend on it).
func BenchmarkToolsCall(b *testing.B) {
	for _, n := range []int{7, 1000} {
		b.Run(map[int]string{7: "7-tools", 1000: "1000-tools"}[n], func(b *testing.B) {
			t := &testing.T{}
			h, _ := fakeHost(t, map[string]*fake{"s": newFake(n - 2)}, nil)
			post := poster(gateway.New(h, gateway.Options{}).HTTPHandler())
			init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
			id := init.Header().Get("Mcp-Session-Id")
			const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"hello"}}}`
			b.ReportAllocs()
			for b.Loop() {
				if rec := post(id, call); rec.Code != 200 || !strings.Contains(rec.Body.String(), "hello") {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// poster returns a function that POSTs a JSON-RPC body to handler in
// process, in session ("" for none), and returns the recorded response.
func poster(handler http.Handler) func(session, body string) *httptest.ResponseRecorder {
	return func(session, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", gateway.MCPPath, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec
	}
}
