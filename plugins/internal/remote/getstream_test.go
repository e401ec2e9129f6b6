package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/internal/syncbuf"
)

// endlessGETServer is a stateful streamable-HTTP MCP server (mcp-go's)
// whose standalone GET stream is its own: the first GET gets an event that
// never ends (written until the client stops reading, up to endlessCap
// bytes), later ones a log notification ("after") and then stay open.
type endlessGETServer struct {
	url string

	mu      sync.Mutex
	gets    int
	written int   // bytes of the endless event the client took
	cutOff  error // why writing it stopped (nil: endlessCap was reached)
	done    chan struct{}
}

// endlessCap stops the endless event if the client reads it all.
const endlessCap = 64 << 20

func newEndlessGETServer(t *testing.T) *endlessGETServer {
	s := &endlessGETServer{done: make(chan struct{})}
	h := server.NewStreamableHTTPServer(server.NewMCPServer("endless", "1.0.0"), server.WithStateful(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.gets++
		first := s.gets == 1
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		if !first {
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}\n\n")
			_ = rc.Flush()
			<-r.Context().Done()
			return
		}
		defer close(s.done)
		chunk := []byte(strings.Repeat("x", 64<<10))
		n, err := fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"")
		for err == nil && n < endlessCap {
			var k int
			if k, err = w.Write(chunk); err == nil {
				err = rc.Flush()
			}
			n += k
		}
		s.mu.Lock()
		s.written, s.cutOff = n, err
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/mcp"
	return s
}

// A streamable-HTTP server's standalone GET stream is bounded like its
// answers: an event over max_message_mb is refused once the limit is
// passed — the plugin stops reading it (the server's writes fail long
// before the whole event is sent), logs the refusal naming the server and
// the setting, and mcp-go opens the stream again, on which the next
// notification arrives.
func TestGETStreamEventOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an HTTP server: heavy integration test, skipped under -short")
	}
	const limit = 1 << 20
	srv := newEndlessGETServer(t)
	var logs syncbuf.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, send := openLimited(ctx, t, KindHTTP, logger, "endless", srv.url, limit)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if msg, err := conn.Recv(ctx); err != nil || !strings.Contains(string(msg), `"id":1`) {
		t.Fatalf("initialize: %s, %v", truncated(msg), err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	msg, err := conn.Recv(ctx)
	if err != nil || !strings.Contains(string(msg), `"data":"after"`) {
		t.Fatalf("recv: %s, %v; want the notification sent after the endless event", truncated(msg), err)
	}
	select {
	case <-srv.done:
	case <-ctx.Done():
		t.Fatal("the server is still writing the endless event: the plugin never stopped reading it")
	}
	srv.mu.Lock()
	written, cutOff := srv.written, srv.cutOff
	srv.mu.Unlock()
	t.Logf("the server got %d bytes of the endless event out before its write failed (%v)", written, cutOff)
	// What the server got out is what the plugin read (up to the limit) plus
	// what the sockets buffer; all of it is far below endlessCap.
	if cutOff == nil || written >= endlessCap/2 {
		t.Errorf("the server wrote %d bytes of the endless event (write error %v): the plugin read far past the %d-byte limit", written, cutOff, limit)
	}
	log := logs.String()
	for _, want := range []string{"refused an event of the server's GET stream", "max_message_mb", "server=endless", "1 MiB"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}
