package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/pluginapi"
)

// hostCredentials plays the host: it hands out "Bearer tok-1", then on each
// refusal the next token, until giveUpAfter refusals; then it says the user
// must log in.
type hostCredentials struct {
	giveUpAfter int

	mu       sync.Mutex
	n        int
	rejected []pluginapi.Rejection
}

func (h *hostCredentials) value() pluginapi.Authorization {
	return pluginapi.Authorization{Value: "Bearer tok-" + string(rune('1'+h.n))}
}

func (h *hostCredentials) Authorization(context.Context) (pluginapi.Authorization, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.value(), nil
}

func (h *hostCredentials) Rejected(_ context.Context, r pluginapi.Rejection) (pluginapi.Authorization, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rejected = append(h.rejected, r)
	if len(h.rejected) > h.giveUpAfter {
		return pluginapi.Authorization{}, pluginapi.Errorf("credentials", pluginapi.KindUnauthorized,
			`server "guarded" needs login: run plughost mcp login guarded`)
	}
	h.n++
	return h.value(), nil
}

func (h *hostCredentials) refusals() []pluginapi.Rejection {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]pluginapi.Rejection(nil), h.rejected...)
}

// TestCredentials runs the http transport with host credentials, in process
// and over the plugin binary: a refused token is replaced and the request
// re-sent; when the host has nothing better the request fails with an
// "unauthorized" error naming what to do; closing sends the DELETE with the
// last token.
func TestCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin processes: heavy integration test, skipped under -short")
	}
	for name, transport := range httpTransports() {
		t.Run(name, func(t *testing.T) {
			g := newGuardedServer(t, "Authorization", "Bearer tok-2") // tok-1 is stale
			creds := &hostCredentials{giveUpAfter: 1}
			cfg, _ := json.Marshal(map[string]any{"url": g.url, "oauth": map[string]any{}})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			conn, err := transport(t).Open(ctx, pluginapi.OpenRequest{ServerName: "guarded", Config: cfg, Credentials: creds})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			initialize(t, ctx, conn)
			if got := creds.refusals(); len(got) != 1 || got[0].Status != 401 || got[0].Sent != "Bearer tok-1" {
				t.Fatalf("refusals after initialize = %v, want one 401 of tok-1", got)
			}
			if msg := call(t, ctx, conn, 2); !strings.Contains(msg, `"ok"`) {
				t.Fatalf("tools/call with the refreshed token answered %s", msg)
			}

			g.accept() // every token revoked
			msg := call(t, ctx, conn, 3)
			var resp struct {
				Error struct {
					Message string
					Data    struct{ Kind pluginapi.Kind }
				}
			}
			if err := json.Unmarshal([]byte(msg), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.Error.Data.Kind != pluginapi.KindUnauthorized || !strings.Contains(resp.Error.Message, "plughost mcp login guarded") {
				t.Fatalf("tools/call after revocation answered %s; want an unauthorized error saying how to log in", msg)
			}
			if strings.Contains(msg, "tok-") {
				t.Errorf("the error %s shows a token", msg)
			}

			g.accept("Bearer tok-2")
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			deletes, open := g.snapshot()
			if len(deletes) != 1 || deletes[0].Get("Authorization") != "Bearer tok-2" || len(open) != 0 {
				t.Errorf("after Close: %d DELETEs (Authorization %q), open sessions %v; want one with the last token, none open",
					len(deletes), firstAuth(deletes), open)
			}
		})
	}
}

func firstAuth(h []http.Header) string {
	if len(h) == 0 {
		return ""
	}
	return h[0].Get("Authorization")
}

// call sends tools/call noop with id and returns the response.
func call(t *testing.T, ctx context.Context, conn pluginapi.Conn, id int) string {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "noop", "arguments": map[string]any{}}})
	if err := conn.Send(ctx, req); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := conn.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ ID *int }
		if json.Unmarshal(msg, &r) == nil && r.ID != nil && *r.ID == id {
			return string(msg)
		}
	}
}
