package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
)

// initializeAt starts a session that negotiated version.
func (c *rawClient) initializeAt(version string) {
	c.t.Helper()
	r := c.request(0, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	if r.status != 200 || !strings.Contains(r.body, `"protocolVersion":"`+version+`"`) {
		c.t.Fatalf("initialize at %s: %d %s", version, r.status, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
}

// batchAnswers decodes a JSON array of responses, by id (the JSON of the id).
func batchAnswers(t *testing.T, body string) map[string]map[string]any {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("not an array of responses: %v: %s", err, body)
	}
	out := map[string]map[string]any{}
	for _, m := range list {
		id, _ := json.Marshal(m["id"])
		if _, dup := out[string(id)]; dup {
			t.Errorf("two answers with id %s: %s", id, body)
		}
		out[string(id)] = m
	}
	return out
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MCP 2025-03-26 requires servers to accept JSON-RPC batches: on a session
// that negotiated it, a batch is served — one response per request, in an
// array; notifications and responses get none (a batch of only those is
// 202); a bad element or an initialize gets its own error in the array.
// Later versions removed batches, and an empty batch is no batch.
func TestBatches(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(0)}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initializeAt("2025-03-26")

	r := c.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"batched"}}},
		{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("batch: %d %v %s", r.status, r.header, r.body)
	}
	got := batchAnswers(t, r.body)
	if diff := cmp.Diff([]string{`"two"`, "1", "3"}, keys(got)); diff != "" {
		t.Errorf("answered ids (-want +got):\n%s\n%s", diff, r.body)
	}
	if txt, isErr := resultText(t, got[`"two"`]); txt != "batched" || isErr {
		t.Errorf("the call in the batch: %v", got[`"two"`])
	}
	if tools, _ := got["3"]["result"].(map[string]any)["tools"].([]any); len(tools) == 0 {
		t.Errorf("tools/list in the batch: %v", got["3"])
	}

	if r := c.post(`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`); r.status != 202 || r.body != "" {
		t.Errorf("a batch of notifications: %d %q, want 202 and no body", r.status, r.body)
	}

	r = c.post(`[1, {"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}, {"jsonrpc":"2.0","id":6,"method":"ping"}, [], {"jsonrpc":"2.0","id":7,"method":"ping","id":8}]`)
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || r.status != 200 || len(list) != 5 {
		t.Fatalf("a batch with bad elements: %d %s, want 5 answers", r.status, r.body)
	}
	var bad []string
	for _, m := range list {
		switch id, _ := json.Marshal(m["id"]); string(id) {
		case "6":
			if m["result"] == nil {
				t.Errorf("the ping among bad elements: %v", m)
			}
		case "5":
			if code, msg := errorOf(t, m); code != -32600 || !strings.Contains(msg, "initialize must not be part of a batch") {
				t.Errorf("initialize in a batch: %v %q", code, msg)
			}
		case "null":
			code, msg := errorOf(t, m)
			if code != -32600 {
				t.Errorf("a bad element answered %v %q, want -32600", code, msg)
			}
			bad = append(bad, msg)
		default:
			t.Errorf("answer with id %s: %v", id, m)
		}
	}
	if len(bad) != 3 || !strings.Contains(strings.Join(bad, "\n"), "element 0 of the batch is not a JSON-RPC message") ||
		!strings.Contains(strings.Join(bad, "\n"), "element 3") || !strings.Contains(strings.Join(bad, "\n"), `duplicate key "id"`) {
		t.Errorf("bad elements are answered with id null, one each: %q", bad)
	}

	if r := c.post(`[]`); r.status != 400 || !strings.Contains(r.body, "empty batch") {
		t.Errorf("empty batch: %d %s", r.status, r.body)
	}

	later := newRaw(t, url)
	later.initializeAt("2025-06-18")
	if r := later.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); r.status != 400 || !strings.Contains(r.body, "batches are not supported") ||
		!strings.Contains(r.body, "2025-06-18") {
		t.Errorf("a batch on a 2025-06-18 session: %d %s", r.status, r.body)
	}
	none := newRaw(t, url)
	if r := none.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); r.status != 400 || !strings.Contains(r.body, "batches are not supported") {
		t.Errorf("a batch without a session: %d %s", r.status, r.body)
	}
}

// When a request of a batch sends a message ahead of the responses (here
// the search's list_changed), the answer is an event stream: that message,
// then each response as an event of its own.
func TestBatchAsEventStream(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"gh": newFake(3), "fs": newFake(0)}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "ttl": 1, "use_regex": true}
		m["servers"].(map[string]any)["fs"].(map[string]any)["deferred"] = false
	})
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initializeAt("2025-03-26")
	c.request(1, "tools/list", `{}`)
	r := c.post(`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_search_tool_regex","arguments":{"pattern":"^mcp_gh_tool_0$"}}},
		{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	events := sseData(r.body)
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || len(events) != 3 ||
		!strings.Contains(events[0], "notifications/tools/list_changed") {
		t.Fatalf("batch with a search that unlocked: %v %q", r.header, r.body)
	}
	var ids []string
	for _, ev := range events[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(ev), &m); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		id, _ := json.Marshal(m["id"])
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	if diff := cmp.Diff([]string{"2", "3"}, ids); diff != "" {
		t.Errorf("responses as events (-want +got):\n%s", diff)
	}
}

// Over stdio too: a batch after a 2025-03-26 initialize is answered with
// one line holding the array; after a later version it is refused.
func TestStdioBatches(t *testing.T) {
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(0)}, nil)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"over stdio"}}}]`
	for _, c := range []struct {
		version string
		check   func(line string)
	}{
		{"2025-03-26", func(line string) {
			answers := batchAnswers(t, line)
			if len(answers) != 2 || answers["1"]["result"] == nil {
				t.Fatalf("stdio batch: %s", line)
			}
			if txt, _ := resultText(t, answers["2"]); txt != "over stdio" {
				t.Errorf("the call in the stdio batch: %v", answers["2"])
			}
		}},
		{"2025-11-25", func(line string) {
			if !strings.Contains(line, "batches are not supported") || !strings.Contains(line, "2025-11-25") {
				t.Errorf("stdio batch on 2025-11-25: %s", line)
			}
		}},
	} {
		t.Run(c.version, func(t *testing.T) {
			s := startStdio(t, h)
			s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + c.version + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
			if l := s.line(); !strings.Contains(l, `"id":0,"result"`) {
				t.Fatalf("initialize: %s", l)
			}
			s.send(batch)
			c.check(s.line())
		})
	}
}

// stdioSession is a stdio session driven one line at a time.
type stdioSession struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

// startStdio serves a stdio session of h until the test ends.
func startStdio(t *testing.T, h *host.Host) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- gateway.New(h, gateway.Options{}).ServeStdio(context.Background(), inR, outW) }()
	s := &stdioSession{t: t, in: inW, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
		outW.Close()
	})
	return s
}

func (s *stdioSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// line is the session's next line of output.
func (s *stdioSession) line() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the session ended")
		}
		return l
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer within 20s")
	}
	return ""
}
