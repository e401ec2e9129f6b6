package httppolicy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// headerRecorder is a test server that keeps the headers of the last request.
type headerRecorder struct {
	mu   sync.Mutex
	last http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.last = r.Header.Clone()
	h.mu.Unlock()
}

func (h *headerRecorder) lastHeaders() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

func TestHeaderPrecedence(t *testing.T) {
	rec := &headerRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()

	cases := []struct {
		name       string
		configured map[string]string
		request    http.Header // what the protocol layer already set
		want       map[string][]string
	}{{
		name:       "custom header applied",
		configured: map[string]string{"X-Api-Key": "k1"},
		want:       map[string][]string{"X-Api-Key": {"k1"}},
	}, {
		name:       "configured Accept ignored when the request has one",
		configured: map[string]string{"Accept": "text/plain"},
		request:    http.Header{"Accept": {"application/json, text/event-stream"}},
		want:       map[string][]string{"Accept": {"application/json, text/event-stream"}},
	}, {
		name:       "configured Accept applied when the request has none",
		configured: map[string]string{"Accept": "text/plain"},
		want:       map[string][]string{"Accept": {"text/plain"}},
	}, {
		name:       "configured Authorization applied when absent",
		configured: map[string]string{"Authorization": "Bearer static"},
		want:       map[string][]string{"Authorization": {"Bearer static"}},
	}, {
		name:       "OAuth Authorization on the request wins",
		configured: map[string]string{"Authorization": "Bearer static"},
		request:    http.Header{"Authorization": {"Bearer oauth"}},
		want:       map[string][]string{"Authorization": {"Bearer oauth"}},
	}, {
		name:       "lower-case configured name still loses to the protocol header",
		configured: map[string]string{"mcp-session-id": "forged", "content-type": "text/plain"},
		request:    http.Header{"Mcp-Session-Id": {"s-1"}, "Content-Type": {"application/json"}},
		want:       map[string][]string{"Mcp-Session-Id": {"s-1"}, "Content-Type": {"application/json"}},
	}, {
		name:       "non-canonical request key still wins",
		configured: map[string]string{"Last-Event-ID": "forged", "MCP-Protocol-Version": "1999-01-01"},
		request:    http.Header{"last-event-id": {"e-7"}, "Mcp-Protocol-Version": {"2025-11-25"}},
		want:       map[string][]string{"Last-Event-Id": {"e-7"}, "Mcp-Protocol-Version": {"2025-11-25"}},
	}, {
		// An initialize carries no session id yet: that absence is the
		// protocol's value too, so a configured one must not fill it in.
		name:       "configured session headers never sent, even when the request has none",
		configured: map[string]string{"Mcp-Session-Id": "forged", "Mcp-Protocol-Version": "1999-01-01", "Last-Event-ID": "e-0"},
		want:       map[string][]string{"Mcp-Session-Id": nil, "Mcp-Protocol-Version": nil, "Last-Event-Id": nil},
	}, {
		name:       "configured non-protocol header replaces the request's",
		configured: map[string]string{"user-agent": "configured/1"},
		request:    http.Header{"User-Agent": {"mcp-go"}},
		want:       map[string][]string{"User-Agent": {"configured/1"}},
	}, {
		name:       "configured header replaces a non-canonical request key",
		configured: map[string]string{"X-Trace": "configured"},
		request:    http.Header{"x-trace": {"from-request"}},
		want:       map[string][]string{"X-Trace": {"configured"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(Policy{ServerURL: srv.URL + "/mcp", Headers: tc.configured})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.request {
				req.Header[k] = v
			}
			before := req.Header.Clone()
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()

			got := map[string][]string{}
			for k := range tc.want {
				got[k] = rec.lastHeaders().Values(k)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("received headers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, req.Header); diff != "" {
				t.Errorf("caller's request was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// TestHeadersOnlyToServerOrigin sends requests to several origins through one
// client: only the server's origin (and its https upgrade) gets the headers.
func TestHeadersOnlyToServerOrigin(t *testing.T) {
	a, b := newSite(t), newSite(t)
	c, err := NewClient(Policy{
		ServerURL: "http://127.0.0.1:" + a.Port + "/sse",
		Headers:   map[string]string{"X-Api-Key": "secret-a"},
		Base:      a.base(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()

	cases := []struct {
		name string
		site *site
		url  string
		want string // X-Api-Key received
	}{
		{"same origin, SSE message endpoint", a, "http://127.0.0.1:" + a.Port + "/message?sessionId=1", "secret-a"},
		{"https upgrade of the server origin", a, "https://127.0.0.1:" + a.Port + "/upgraded", "secret-a"},
		{"other port, plain", b, "http://127.0.0.1:" + b.Port + "/other-port", ""},
		{"other port, https", b, "https://127.0.0.1:" + b.Port + "/other-port-tls", ""},
		{"other host name, same address", a, "http://localhost:" + a.Port + "/other-host", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Get(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			path := resp.Request.URL.Path
			hits := tc.site.hitsTo(path)
			if len(hits) != 1 {
				t.Fatalf("site got %d requests for %s, want 1", len(hits), path)
			}
			if got := hits[0].APIKey; got != tc.want {
				t.Errorf("X-Api-Key received = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIsProtocolHeader(t *testing.T) {
	names := []string{"Accept", "content-type", "MCP-SESSION-ID", "Mcp-Protocol-Version",
		"Last-Event-ID", "authorization", "X-Api-Key", "User-Agent", "Accept-Encoding", ""}
	got := map[string]bool{}
	for _, n := range names {
		got[n] = IsProtocolHeader(n)
	}
	want := map[string]bool{"Accept": true, "content-type": true, "MCP-SESSION-ID": true,
		"Mcp-Protocol-Version": true, "Last-Event-ID": true, "authorization": true,
		"X-Api-Key": false, "User-Agent": false, "Accept-Encoding": false, "": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IsProtocolHeader (-want +got):\n%s", diff)
	}
}
