package sessionconn

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/internal/testwait"
)

// noServers is a host of which the routers know nothing.
type noServers struct{}

func (noServers) Names() []string                          { return nil }
func (noServers) Running(string) bool                      { return false }
func (noServers) Server(string) (*supervisor.Server, bool) { return nil, false }
func (noServers) Capabilities(string) (routing.Capabilities, bool) {
	return routing.Capabilities{}, false
}
func (noServers) CallTimeout(string) time.Duration { return 0 }
func (noServers) Roots(string) json.RawMessage     { return json.RawMessage(`{"roots":[]}`) }
func (noServers) Answered(routing.Answer)          {}

// newPool returns a running pool of an in-process server with one tool,
// whose shared connection is said to list shared.
func newPool(t *testing.T, max int, idle time.Duration, shared []json.RawMessage) *Pool {
	t.Helper()
	s := server.NewMCPServer("x", "1")
	s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	spec := supervisor.Spec{Name: "x", Transport: "inproc", InProcess: inprocess.New(map[string]*server.MCPServer{"x": s}),
		Timeouts: supervisor.Timeouts{Start: 5 * time.Second, Initialize: 5 * time.Second, ListTools: 5 * time.Second, Call: 5 * time.Second},
		Backoff:  supervisor.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}}
	p := New(Options{Spec: spec, Router: routing.New(noServers{}, hclog.NewNullLogger()), Idle: idle, Max: max,
		MaxSetting: "tools.mcp.servers.x.max_sessions", Shared: func() []json.RawMessage { return shared }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return p
}

func acquire(t *testing.T, p *Pool, session string) (*supervisor.Server, func(), error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.Acquire(ctx, session)
}

// Each session gets a connection of its own, the same one on every use;
// past Max a new session is refused naming the setting; a closed
// session's place is free again.
func TestPoolGivesEachSessionItsOwnConnection(t *testing.T) {
	p := newPool(t, 2, time.Hour, nil)
	a, releaseA, err := acquire(t, p, "session-a")
	if err != nil {
		t.Fatal(err)
	}
	releaseA()
	again, releaseAgain, err := acquire(t, p, "session-a")
	if err != nil || again != a {
		t.Fatalf("second use of session-a: %p, %v; want the same connection %p", again, err, a)
	}
	releaseAgain()
	b, releaseB, err := acquire(t, p, "session-b")
	if err != nil || b == a {
		t.Fatalf("session-b: %p, %v; want a connection of its own", b, err)
	}
	releaseB()
	_, _, err = acquire(t, p, "session-c")
	var limit *LimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "tools.mcp.servers.x.max_sessions") {
		t.Fatalf("third session: %v; want a *LimitError naming the setting", err)
	}
	p.CloseSession("session-a")
	if p.Open() != 1 {
		t.Errorf("%d open after closing session-a; want 1", p.Open())
	}
	if _, release, err := acquire(t, p, "session-c"); err != nil {
		t.Errorf("session-c after session-a closed: %v", err)
	} else {
		release()
	}
}

// A connection unused past Idle closes; one in use does not.
func TestPoolClosesIdleConnections(t *testing.T) {
	p := newPool(t, 4, 200*time.Millisecond, nil)
	_, releaseA, err := acquire(t, p, "idle")
	if err != nil {
		t.Fatal(err)
	}
	releaseA()
	_, releaseB, err := acquire(t, p, "busy")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseB()
	testwait.Eventually(t, 10*time.Second, "the idle connection closed", func() bool {
		_, open := p.Find("idle")
		return !open
	})
	if _, open := p.Find("busy"); !open {
		t.Error("the connection in use was closed")
	}
}

// A session connection listing other tools than the shared connection is
// reported, never merged.
func TestPoolReportsADifferentToolList(t *testing.T) {
	p := newPool(t, 4, time.Hour, []json.RawMessage{json.RawMessage(`{"name":"other","inputSchema":{"type":"object"}}`)})
	_, release, err := acquire(t, p, "session-a")
	if err != nil {
		t.Fatal(err)
	}
	release()
	if note := p.Note(); !strings.Contains(note, "differ") || !strings.Contains(note, "session") {
		t.Errorf("note %q; want the difference reported", note)
	}
}

func TestSameToolsIgnoresOrder(t *testing.T) {
	a, b := json.RawMessage(`{"name":"a"}`), json.RawMessage(`{"name":"b"}`)
	if !sameTools([]json.RawMessage{a, b}, []json.RawMessage{b, a}) {
		t.Error("the same tools in another order differ")
	}
	if sameTools([]json.RawMessage{a, b}, []json.RawMessage{a, a}) || sameTools([]json.RawMessage{a}, []json.RawMessage{a, b}) {
		t.Error("other tools are the same")
	}
}
