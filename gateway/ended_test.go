package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
)

// A session deleted while one of its calls runs — on the same gateway
// (memory store), or on another replica (Redis) — gets for that call the
// answer of an unknown session: 404, the same body, never the call's
// result or a tool result saying "session not found".
func TestSessionDeletedMidCall(t *testing.T) {
	for _, c := range []struct {
		name  string
		setUp func(t *testing.T) (call, del *rawClient, f *fake, heard func() bool)
	}{
		{"memory store, DELETE on the same gateway", func(t *testing.T) (*rawClient, *rawClient, *fake, func() bool) {
			f := newFake(0)
			h, _ := fakeHost(t, map[string]*fake{"gh": f}, nil)
			url, _ := serveHTTP(t, h)
			c := newRaw(t, url)
			c.initialize()
			return c, c, f, func() bool { return true }
		}},
		{"Redis, DELETE on another replica", func(t *testing.T) (*rawClient, *rawClient, *fake, func() bool) {
			srv := testredis.New(t)
			hA, ghA, _ := replica(t, srv.URL(0))
			hB, _, _ := replica(t, srv.URL(0))
			urlA, gwA := serveHTTP(t, hA)
			urlB, _ := serveHTTP(t, hB)
			a := newRaw(t, urlA)
			a.initialize()
			b := newRaw(t, urlB)
			b.session = a.session
			openStream(t, urlA, a.session)
			testwait.Eventually(t, 10*time.Second, "A's stream attached", func() bool { return gwA.StreamAttached(a.session) })
			// A closes the session's stream when it hears of the end.
			return a, b, ghA, func() bool { return !gwA.StreamAttached(a.session) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			call, del, f, heard := c.setUp(t)
			unknown := newRaw(t, call.url)
			unknown.session = "no-such-session"
			want := unknown.request(9, "tools/list", `{}`)
			if want.status != http.StatusNotFound {
				t.Fatalf("a request of an unknown session: %d %s", want.status, want.body)
			}

			var wg sync.WaitGroup
			var r reply
			wg.Go(func() { r = call.request(1, "tools/call", `{"name":"mcp_gh_slow","arguments":{}}`) })
			<-f.started
			if d := del.do("DELETE", "", nil); d.status != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", d.status, d.body)
			}
			testwait.Eventually(t, 10*time.Second, "the gateway running the call to hear of the end", heard)
			time.Sleep(gateway.EndedCheckAfter) // a call this long is checked after (shorter ones are by the store operations they make)
			close(f.release)
			wg.Wait()
			if r.status != http.StatusNotFound || r.body != want.body || strings.Contains(r.body, "released") {
				t.Errorf("the call whose session was deleted meanwhile: %d %s, want %d %s", r.status, r.body, want.status, want.body)
			}
			if after := call.request(2, "tools/list", `{}`); after.status != http.StatusNotFound {
				t.Errorf("a request after: %d %s", after.status, after.body)
			}
		})
	}
}

// endingStore is an in-memory store that deletes a session just before
// the update it was told to fail (as if the session ended at that moment
// on another replica).
type endingStore struct {
	*host.MemorySessionStore
	endAt atomic.Pointer[string] // the session to end at its next update
}

func (s *endingStore) Update(ctx context.Context, id string, fn func(*host.SessionRecord) error) (host.SessionRecord, error) {
	if p := s.endAt.Load(); p != nil && *p == id && s.endAt.CompareAndSwap(p, nil) {
		_ = s.Delete(ctx, id) // a memory store's Delete does not fail
	}
	return s.MemorySessionStore.Update(ctx, id, fn)
}

// A session that ends just before a store operation inside a request —
// a search's unlock, a hidden tool's — gets 404 for that request, never a
// tool result saying "session not found".
func TestSessionEndedInsideRequest(t *testing.T) {
	store := &endingStore{MemorySessionStore: host.NewMemorySessionStore(host.MemorySessionStoreOptions{})}
	tr := inprocess.New(map[string]*mcpserver.MCPServer{"gh": newFake(3).MCPServer})
	h := startHostWith(t, host.Options{SessionStore: store, Transports: map[string]pluginapi.Transport{"stdio": tr}},
		map[string]any{"gh": map[string]any{"enabled": true, "command": "in-process"}},
		func(mcpCfg map[string]any) { mcpCfg["discovery"] = map[string]any{"enabled": true, "use_regex": true} })
	url, _ := serveHTTP(t, h)
	unknown := newRaw(t, url)
	unknown.session = "no-such-session"
	want := unknown.request(9, "tools/list", `{}`)

	for i, call := range []string{
		`{"name":"tool_search_tool_regex","arguments":{"pattern":"tool_0"}}`,
		`{"name":"mcp_gh_tool_1","arguments":{}}`,
	} {
		c := newRaw(t, url)
		c.initialize()
		id := c.session
		store.endAt.Store(&id)
		r := c.request(i+1, "tools/call", call)
		if r.status != http.StatusNotFound || r.body != want.body {
			t.Errorf("%s with the session ending at its unlock: %d %s, want %d %s", call, r.status, r.body, want.status, want.body)
		}
	}
}
