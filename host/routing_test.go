//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
)

// scripted is a transport whose one server is played by the test: it
// answers initialize (with logging), tools/list (one tool, "work") and
// logging/setLevel itself, and hands every tools/call to work, which may
// talk to the host through the scriptedConn before it answers.
type scripted struct {
	work func(c *scriptedConn, id json.RawMessage, params json.RawMessage)
	// more makes the server offer one resource, file:///a, which can be
	// subscribed to, and tasks.
	more bool
	// hangList makes the server never answer tools/list.
	hangList bool

	mu     sync.Mutex
	levels []string // logging/setLevel levels received
	conn   *scriptedConn
}

func (s *scripted) Describe(context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{Name: "scripted", Version: "test"}, nil
}
func (s *scripted) Validate(context.Context, json.RawMessage) error { return nil }
func (s *scripted) Open(context.Context, pluginapi.OpenRequest) (pluginapi.Conn, error) {
	c := &scriptedConn{s: s, out: make(chan json.RawMessage, 64), answers: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
	return c, nil
}

type scriptedConn struct {
	s   *scripted
	out chan json.RawMessage // to the host

	mu      sync.Mutex
	seq     int
	answers map[string]chan json.RawMessage // the server's requests awaiting the host
	once    sync.Once
	done    chan struct{}
}

func (c *scriptedConn) Send(_ context.Context, msg json.RawMessage) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return err
	}
	switch {
	case m.Method == "" && len(m.ID) > 0: // an answer to a request of the server's
		c.mu.Lock()
		ch := c.answers[string(m.ID)]
		c.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	case m.Method == "initialize":
		caps := `{"tools":{},"logging":{}}`
		if c.s.more {
			caps = `{"tools":{},"logging":{},"resources":{"subscribe":true},"tasks":{"requests":{"tools":{"call":{}}}}}`
		}
		c.reply(m.ID, `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"serverInfo":{"name":"scripted","version":"1"}}`)
	case m.Method == "resources/list":
		c.reply(m.ID, `{"resources":[{"uri":"file:///a","name":"a"}]}`)
	case m.Method == "resources/templates/list":
		c.reply(m.ID, `{"resourceTemplates":[]}`)
	case m.Method == "resources/subscribe", m.Method == "resources/unsubscribe":
		c.reply(m.ID, `{}`)
	case m.Method == "tools/list" && c.s.hangList:
	case m.Method == "tools/list":
		c.reply(m.ID, `{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}`)
	case m.Method == "logging/setLevel":
		var p struct{ Level string }
		_ = json.Unmarshal(m.Params, &p)
		c.s.mu.Lock()
		c.s.levels = append(c.s.levels, p.Level)
		c.s.mu.Unlock()
		c.reply(m.ID, `{}`)
	case m.Method == "tools/call":
		go c.s.work(c, m.ID, m.Params)
	}
	return nil
}

func (c *scriptedConn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case m := <-c.out:
		return m, nil
	case <-c.done:
		return nil, errors.New("closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
func (c *scriptedConn) SessionID() string { return "" }
func (c *scriptedConn) Close() error      { c.once.Do(func() { close(c.done) }); return nil }

func (c *scriptedConn) reply(id json.RawMessage, result string) {
	c.out <- json.RawMessage(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (c *scriptedConn) notify(method, params string) {
	c.out <- json.RawMessage(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

// ask sends a request to the host and returns the whole answer.
func (c *scriptedConn) ask(method, params string) string {
	c.mu.Lock()
	c.seq++
	id := fmt.Sprintf(`"s%d"`, c.seq)
	ch := make(chan json.RawMessage, 1)
	c.answers[id] = ch
	c.mu.Unlock()
	c.out <- json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	select {
	case a := <-ch:
		return string(a)
	case <-time.After(10 * time.Second):
		return "no answer"
	}
}

func scriptedHost(t *testing.T, s *scripted) *host.Host {
	t.Helper()
	return startHostOpts(t, host.Options{Transports: map[string]pluginapi.Transport{"stdio": s}},
		map[string]any{"x": map[string]any{"enabled": true, "command": "scripted"}})
}

// recorder is a session's client: it records notifications and answers
// sampling with its name.
type recorder struct {
	name  string
	mu    sync.Mutex
	notes []host.Notification
}

func (r *recorder) handlers() host.ClientHandlers {
	return host.ClientHandlers{
		Sampling: func(_ context.Context, req host.ServerRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"model":"` + r.name + `","params":` + string(req.Params) + `}`), nil
		},
		Notify: func(n host.Notification) {
			r.mu.Lock()
			r.notes = append(r.notes, n)
			r.mu.Unlock()
		},
	}
}

func (r *recorder) params(method string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.notes {
		if n.Method == method {
			out = append(out, string(n.Params))
		}
	}
	return out
}

// A server's request during a call goes to the calling session's client:
// not another session's, and -32601 when the caller has no handler for it
// or when two sessions' calls are in flight and nothing says which one
// caused it.
func TestServerRequestsGoToTheCausingSession(t *testing.T) {
	asked := make(chan string, 4)
	gate := make(chan struct{})
	var both sync.WaitGroup // the concurrent calls answer once both asked
	both.Add(2)
	s := &scripted{work: func(c *scriptedConn, id, params json.RawMessage) {
		concurrent := strings.Contains(string(params), `"wait"`)
		if concurrent {
			<-gate
		}
		asked <- c.ask("sampling/createMessage", `{"messages":[],"maxTokens":1}`)
		if concurrent {
			both.Done()
			both.Wait()
		}
		c.reply(id, `{"content":[{"type":"text","text":"done"}]}`)
	}}
	h := scriptedHost(t, s)
	ctx := context.Background()
	a, b := &recorder{name: "A"}, &recorder{name: "B"}
	sa, sb, sc := h.NewSession(), h.NewSession(), h.NewSession()
	sa.SetHandlers(a.handlers())
	sb.SetHandlers(b.handlers())

	if _, err := sb.Call(ctx, "mcp_x_work", nil); err != nil {
		t.Fatal(err)
	}
	if got := <-asked; !strings.Contains(got, `"model":"B"`) || !strings.Contains(got, `"maxTokens":1`) {
		t.Errorf("sampling during B's call was answered %s; want B's client, with the server's params", got)
	}
	if _, err := sc.Call(ctx, "mcp_x_work", nil); err != nil {
		t.Fatal(err)
	}
	if got := <-asked; !strings.Contains(got, `-32601`) || !strings.Contains(got, "does not support sampling") {
		t.Errorf("sampling during the call of a session without handlers was answered %s; want -32601", got)
	}

	var wg sync.WaitGroup
	for _, sess := range []*host.Session{sa, sb} {
		wg.Go(func() {
			if _, err := sess.Call(ctx, "mcp_x_work", json.RawMessage(`{"wait":true}`)); err != nil {
				t.Error(err)
			}
		})
	}
	waitFlights(t, h, 2)
	close(gate)
	for range 2 {
		if got := <-asked; !strings.Contains(got, "-32601") || !strings.Contains(got, "2 client sessions") {
			t.Errorf("sampling while two sessions' calls are in flight was answered %s; want -32601 saying why", got)
		}
	}
	wg.Wait()
}

// waitFlights waits until n calls are in flight at server x: a call of
// mcp_x_work registers before the server sees it.
func waitFlights(t *testing.T, h *host.Host, n int) {
	t.Helper()
	if !testwait.Until(10*time.Second, func() bool { return h.InFlight("x") >= n }) {
		t.Fatalf("%d calls in flight, want %d", h.InFlight("x"), n)
	}
}

// A client's progress token reaches the server as a token of plughost's
// (so sessions cannot clash) and the server's progress comes back with the
// client's token, raw.
func TestProgressTokensAreTranslated(t *testing.T) {
	seen := make(chan string, 1)
	s := &scripted{work: func(c *scriptedConn, id, params json.RawMessage) {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(params, &p)
		seen <- string(p.Meta.ProgressToken)
		c.notify("notifications/progress", `{"progressToken":`+string(p.Meta.ProgressToken)+`,"progress":1,"total":2}`)
		c.notify("notifications/progress", `{"progressToken":"someone-else","progress":1}`)
		c.reply(id, `{"content":[]}`)
	}}
	h := scriptedHost(t, s)
	rec := &recorder{name: "A"}
	sess := h.NewSession()
	_, err := sess.CallWith(context.Background(), "mcp_x_work", nil, host.CallOptions{Meta: json.RawMessage(`{"progressToken":5,"other":"kept"}`), Handlers: ptr(rec.handlers())})
	if err != nil {
		t.Fatal(err)
	}
	if tok := <-seen; !strings.HasPrefix(tok, `"plughost-progress-`) {
		t.Errorf("the server got progress token %s; want one of plughost's", tok)
	}
	got := rec.params("notifications/progress")
	if len(got) != 1 || got[0] != `{"progressToken":5,"progress":1,"total":2}` {
		t.Errorf("progress routed %v; want exactly the call's, with the client's token 5 and every other byte the server's", got)
	}
}

// logging/setLevel sets the server to the most verbose level any session
// asked for; each session gets what its own level admits: a message during
// its call when the level admits it, and messages outside any call when it
// asked for them.
func TestLogLevelsPerSession(t *testing.T) {
	s := &scripted{work: func(c *scriptedConn, id, _ json.RawMessage) {
		c.notify("notifications/message", `{"level":"info","data":"in the call"}`)
		c.notify("notifications/message", `{"level":"error","logger":"db","data":"in the call, loud"}`)
		c.reply(id, `{"content":[]}`)
	}}
	h := scriptedHost(t, s)
	ctx := context.Background()
	quiet, chatty := &recorder{name: "quiet"}, &recorder{name: "chatty"}
	sq, sc := h.NewSession(), h.NewSession()
	sq.SetHandlers(quiet.handlers())
	sc.SetHandlers(chatty.handlers())
	if err := sq.SetLogLevel(ctx, "error"); err != nil {
		t.Fatal(err)
	}
	if err := sc.SetLogLevel(ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	if err := sc.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("an unknown level was accepted")
	}
	s.mu.Lock()
	levels := slices.Compact(append([]string(nil), s.levels...)) // a reconnect may set a level again
	s.mu.Unlock()
	if strings.Join(levels, ",") != "error,debug" {
		t.Errorf("levels set at the server: %v; want error, then debug (the most verbose asked for)", levels)
	}
	if _, err := sq.Call(ctx, "mcp_x_work", nil); err != nil {
		t.Fatal(err)
	}
	got := quiet.params("notifications/message")
	if len(got) != 1 || !strings.Contains(got[0], `"logger":"x/db"`) || !strings.Contains(got[0], "loud") {
		t.Errorf("the quiet session got %v; want only the error, its logger naming the server", got)
	}
	if n := chatty.params("notifications/message"); len(n) != 0 {
		t.Errorf("another session's call's messages reached the chatty session: %v", n)
	}
	s.conn.notify("notifications/message", `{"level":"warning","data":"outside any call"}`)
	testwait.Until(5*time.Second, func() bool { return len(chatty.params("notifications/message")) > 0 })
	if got := chatty.params("notifications/message"); len(got) != 1 || got[0] != `{"logger":"x","level":"warning","data":"outside any call"}` {
		t.Errorf("a message outside any call reached the chatty session as %v", got)
	}
	if got := quiet.params("notifications/message"); len(got) != 1 {
		t.Errorf("a warning outside any call reached the session at level error: %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

// Progress a server sends after its answer still reaches the client for
// the session's 32 most recently answered requests with a progress token,
// however late it comes: the oldest token is forgotten first, one
// session's requests never push out another's, and a session that ends
// forgets its tokens. No clock is involved.
func TestProgressAfterTheAnswerIsKeptByCount(t *testing.T) {
	const kept = 32 // host.progressKept, as documented
	tokens := make(chan string, kept+2)
	s := &scripted{work: func(c *scriptedConn, id, params json.RawMessage) {
		var p struct {
			Meta struct {
				ProgressToken string `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(params, &p)
		tokens <- p.Meta.ProgressToken
		c.reply(id, `{"content":[]}`)
	}}
	h := scriptedHost(t, s)
	ctx := context.Background()
	notes := map[string]chan string{"a": make(chan string, kept+2), "b": make(chan string, kept+2)}
	sessions := map[string]*host.Session{}
	for name, ch := range notes {
		sessions[name] = h.NewSession()
		sessions[name].SetHandlers(host.ClientHandlers{Notify: func(n host.Notification) {
			var p struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			}
			_ = json.Unmarshal(n.Params, &p)
			ch <- string(p.ProgressToken)
		}})
	}
	callWith := func(sess *host.Session, clientToken string) string {
		t.Helper()
		_, err := sess.CallWith(ctx, "mcp_x_work", nil, host.CallOptions{Meta: json.RawMessage(`{"progressToken":` + clientToken + `}`)})
		if err != nil {
			t.Fatal(err)
		}
		return <-tokens
	}
	bToken := callWith(sessions["b"], `"b"`)
	var aTokens []string
	for i := range kept + 1 {
		aTokens = append(aTokens, callWith(sessions["a"], fmt.Sprint(i)))
	}
	progress := func(serverToken string) {
		s.conn.notify("notifications/progress", `{"progressToken":"`+serverToken+`","progress":1}`)
	}
	// Every request was answered. The server's progress comes now; b's
	// last: notifications are handed over in order, so once b has its
	// own, a got everything it will get.
	for _, tok := range aTokens {
		progress(tok)
	}
	progress(bToken)
	if got := <-notes["b"]; got != `"b"` {
		t.Fatalf("b got progress for %s; want its own token", got)
	}
	var got []string
	for len(notes["a"]) > 0 {
		got = append(got, <-notes["a"])
	}
	var want []string
	for i := 1; i <= kept; i++ {
		want = append(want, fmt.Sprint(i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("a got late progress for tokens %v; want the %d most recent, 1 … %d (0, the oldest, forgotten)", got, kept, kept)
	}

	// An ended session forgets its tokens.
	if err := sessions["a"].Close(ctx); err != nil {
		t.Fatal(err)
	}
	progress(aTokens[kept])
	progress(bToken)
	<-notes["b"]
	if len(notes["a"]) > 0 {
		t.Errorf("progress for a token of a closed session was routed: %s", <-notes["a"])
	}
}
