package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/gateway"
)

// rpcMsg is a JSON-RPC message as a raw client sees it.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeMsg(t *testing.T, raw string) rpcMsg {
	t.Helper()
	var m rpcMsg
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %q: %v", raw, err)
	}
	return m
}

// callText is the text of m's tool result; an error response or an isError
// result fails the test.
func (m rpcMsg) callText(t *testing.T) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("id %s: error %d %q, want a result", m.ID, m.Error.Code, m.Error.Message)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("id %s: result %s: %v", m.ID, m.Result, err)
	}
	if res.IsError {
		t.Fatalf("id %s: isError result %q", m.ID, text(&res))
	}
	return text(&res)
}

// isProgress reports whether m is notifications/progress for token.
func (m rpcMsg) isProgress(token string) bool {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	return m.Method == "notifications/progress" && json.Unmarshal(m.Params, &p) == nil && string(p.Token) == token
}

// checkReusedIDError checks that m refuses a request for reusing id.
func checkReusedIDError(t *testing.T, what string, m rpcMsg, id string) {
	t.Helper()
	if string(m.ID) != id || m.Error == nil {
		t.Fatalf("%s: got id %s result %s, want the error refusing a reused id", what, m.ID, m.Result)
	}
	for _, want := range []string{"id " + id + " ", "still in progress", "fresh id"} {
		if m.Error.Code != -32600 || !strings.Contains(m.Error.Message, want) {
			t.Errorf("%s: error %d %q, want -32600 containing %q", what, m.Error.Code, m.Error.Message, want)
		}
	}
}

// reusingRequests are the requests sent with the id of the request in
// progress: a plain call, a task call and a ping (%s: the server).
var reusingRequests = []struct{ what, format string }{
	{"a plain tools/call", `"method":"tools/call","params":{"name":"mcp_%s_echo","arguments":{"text":"second"}}`},
	{"a task tools/call", `"method":"tools/call","params":{"name":"mcp_%s_slow","arguments":{"ms":1},"task":{"ttl":60000}}`},
	{"a ping", `"method":"ping","params":{}%.0s`},
}

func request(id, format, server string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,` + fmt.Sprintf(format, server) + `}`
}

// A client that reuses the id of a request still in progress in its
// session gets the second request refused at once with -32600 naming the
// id; the first runs on and gets its own answer; another session may use
// the id meanwhile; once it was answered, its id may be used again. Over both front doors, with the call in progress on
// a server behind the stdio plugin and one behind the http plugin.
func TestReusedRequestID(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{
		"p": testserver(nil, "-faithful"),
		"r": map[string]any{"enabled": true, "type": "http", "url": httpTestServer(t, "-faithful")},
	}, nil)
	url, _ := serveHTTP(t, h)
	for _, server := range []string{"p", "r"} {
		t.Run("stdio door/"+server, func(t *testing.T) {
			c := newStdioRaw(t, gateway.New(h, gateway.Options{}))
			c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			c.next(t, func(m rpcMsg) bool { return string(m.ID) == "0" })
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

			const id = "7"
			c.send(request(id, `"method":"tools/call","params":{"name":"mcp_%s_hold","arguments":{},"_meta":{"progressToken":"held"}}`, server))
			c.next(t, func(m rpcMsg) bool { return m.isProgress(`"held"`) }) // the call is in progress at the server
			for _, r := range reusingRequests {
				c.send(request(id, r.format, server))
				// The hold is not released: any answer with the id is the second request's.
				checkReusedIDError(t, r.what, c.next(t, func(m rpcMsg) bool { return string(m.ID) == id }), id)
			}
			c.send(request("8", `"method":"tools/call","params":{"name":"mcp_%s_release","arguments":{}}`, server))
			var first, release rpcMsg
			for first.ID == nil || release.ID == nil {
				m := c.next(t, func(m rpcMsg) bool { return string(m.ID) == id || string(m.ID) == "8" })
				if string(m.ID) == id {
					if first.ID != nil {
						t.Fatalf("a second answer with id %s: %s %+v", id, m.Result, m.Error)
					}
					first = m
				} else {
					release = m
				}
			}
			if got := first.callText(t); got != "released" {
				t.Errorf("the request in progress answered %q, want released", got)
			}
			if got := release.callText(t); got != "released 1" {
				t.Errorf("release answered %q", got)
			}
			c.send(request(id, reusingRequests[0].format, server))
			if got := c.next(t, func(m rpcMsg) bool { return string(m.ID) == id }).callText(t); got != "second" {
				t.Errorf("the id reused after its request was answered: %q, want the call's own answer", got)
			}
		})
		t.Run("http door/"+server, func(t *testing.T) {
			c := newRaw(t, url)
			c.initialize()
			const id = `"call-1"` // a string id this time
			held := c.stream(request(id, `"method":"tools/call","params":{"name":"mcp_%s_hold","arguments":{},"_meta":{"progressToken":"held"}}`, server))
			if m := decodeMsg(t, held.next(t)); !m.isProgress(`"held"`) {
				t.Fatalf("the held call's stream began with %+v, want its progress", m)
			}
			for _, r := range reusingRequests {
				reply := c.post(request(id, r.format, server))
				if reply.status != http.StatusOK || reply.header.Get("Content-Type") != "application/json" {
					t.Errorf("%s: %d %s, want 200 with JSON", r.what, reply.status, reply.header.Get("Content-Type"))
				}
				checkReusedIDError(t, r.what, decodeMsg(t, reply.body), id)
			}
			other := newRaw(t, url) // ids are per session: another may use the same one meanwhile
			other.initialize()
			if m := decodeMsg(t, lastEvent(other.post(request(id, reusingRequests[0].format, server)))); string(m.ID) != id || m.callText(t) != "second" {
				t.Errorf("another session's request with the same id: %s %s", m.ID, m.Result)
			}
			if got := decodeMsg(t, lastEvent(c.post(request("8", `"method":"tools/call","params":{"name":"mcp_%s_release","arguments":{}}`, server)))).callText(t); got != "released 1" {
				t.Errorf("release answered %q", got)
			}
			first := decodeMsg(t, held.next(t))
			if string(first.ID) != id || first.callText(t) != "released" {
				t.Errorf("the request in progress answered %s %s, want released", first.ID, first.Result)
			}
			again := decodeMsg(t, lastEvent(c.post(request(id, reusingRequests[0].format, server))))
			if string(again.ID) != id || again.callText(t) != "second" {
				t.Errorf("the id reused after its request was answered: %s %s", again.ID, again.Result)
			}
		})
	}
}

// stdioRaw speaks newline-delimited JSON-RPC to a stdio session by hand.
type stdioRaw struct {
	in    io.WriteCloser
	lines chan string
}

func newStdioRaw(t *testing.T, g *gateway.Gateway) *stdioRaw {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	c := &stdioRaw{in: inW, lines: make(chan string, 64)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		go func() {
			for range c.lines { // let the session write its last answers
			}
		}()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return c
}

func (c *stdioRaw) send(line string) { _, _ = io.WriteString(c.in, line+"\n") }

// next returns the next message that matches, skipping the others.
func (c *stdioRaw) next(t *testing.T, match func(rpcMsg) bool) rpcMsg {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatal("the stdio session ended")
			}
			if m := decodeMsg(t, l); match(m) {
				return m
			}
		case <-timeout:
			t.Fatal("no matching message from the stdio session")
		}
	}
}

// events is an event stream being read.
type events struct{ data chan string }

// stream POSTs body and returns its response's event stream as it comes.
func (c *rawClient) stream(body string) *events {
	c.t.Helper()
	req, err := http.NewRequest("POST", c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", c.accept)
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		c.t.Fatalf("POST %s: %d %s, want an event stream", body, resp.StatusCode, ct)
	}
	e := &events{data: make(chan string, 16)}
	go func() {
		defer close(e.data)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				e.data <- d
			}
		}
	}()
	return e
}

// next returns the data of the stream's next event.
func (e *events) next(t *testing.T) string {
	t.Helper()
	select {
	case d, ok := <-e.data:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no event")
	}
	return ""
}
