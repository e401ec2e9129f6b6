// Package inprocess serves MCP servers built with mcp-go inside the test
// process as a pluginapi.Transport, so the host and the gateway can be
// tested without subprocesses: pass it in host.Options.Transports. Tests
// can make a server "crash" (Drop) and stay down (FailOpen), and announce
// tool changes (ListChanged).
package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/pluginapi"
)

// Transport connects to in-process servers by the configured server name.
// Safe for concurrent use.
type Transport struct {
	mu      sync.Mutex
	servers map[string]*server.MCPServer
	failing map[string]error
	conns   map[string]map[*conn]struct{}
	holds   map[string]*hold
}

var _ pluginapi.Transport = (*Transport)(nil)

// hold is a Close held back by HoldClose.
type hold struct {
	started chan struct{} // closed when a Close is held
	release chan struct{} // closed to let it go on
}

// New returns a transport serving servers (by configured server name).
func New(servers map[string]*server.MCPServer) *Transport {
	return &Transport{servers: servers, failing: map[string]error{}, conns: map[string]map[*conn]struct{}{}, holds: map[string]*hold{}}
}

// HoldClose holds back the next Close of one of the server's connections
// (the host tearing it down): started is closed once a Close waits, and
// release lets it go on. It lets a test act in the middle of a teardown.
func (t *Transport) HoldClose(name string) (started <-chan struct{}, release func()) {
	h := &hold{started: make(chan struct{}), release: make(chan struct{})}
	t.mu.Lock()
	t.holds[name] = h
	t.mu.Unlock()
	var once sync.Once
	return h.started, func() { once.Do(func() { close(h.release) }) }
}

// held waits for a hold of the server's, if there is one.
func (t *Transport) held(name string) {
	t.mu.Lock()
	h := t.holds[name]
	delete(t.holds, name)
	t.mu.Unlock()
	if h != nil {
		close(h.started)
		<-h.release
	}
}

// Describe implements pluginapi.Transport.
func (t *Transport) Describe(context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{Name: "inprocess", Version: "test"}, nil
}

// Validate implements pluginapi.Transport: any config is fine.
func (t *Transport) Validate(context.Context, json.RawMessage) error { return nil }

// Open implements pluginapi.Transport.
func (t *Transport) Open(_ context.Context, req pluginapi.OpenRequest) (pluginapi.Conn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.failing[req.ServerName]; err != nil {
		return nil, &pluginapi.Error{Op: "open", Kind: pluginapi.KindConnect, Err: err}
	}
	srv, ok := t.servers[req.ServerName]
	if !ok {
		return nil, pluginapi.Errorf("open", pluginapi.KindConnect, "no in-process server named %q", req.ServerName)
	}
	c := &conn{t: t, name: req.ServerName, srv: srv, out: make(chan json.RawMessage, 64), done: make(chan struct{})}
	if t.conns[req.ServerName] == nil {
		t.conns[req.ServerName] = map[*conn]struct{}{}
	}
	t.conns[req.ServerName][c] = struct{}{}
	return c, nil
}

// FailOpen makes every later connection attempt to the server fail with
// err (nil: connect again).
func (t *Transport) FailOpen(name string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failing[name] = err
}

// Drop ends the server's live connections as if it had crashed.
func (t *Transport) Drop(name string) {
	for _, c := range t.live(name) {
		c.end(&pluginapi.Error{Op: "recv", Kind: pluginapi.KindServerExited, Err: errors.New("in-process server dropped")})
	}
}

// ListChanged sends notifications/tools/list_changed on the server's live
// connections (after the test changed its tools).
func (t *Transport) ListChanged(name string) {
	t.Notify(name, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
}

// Notify sends msg, a notification of the server's, on its live
// connections, as if the server wrote it on its own (after answering,
// say).
func (t *Transport) Notify(name string, msg json.RawMessage) {
	for _, c := range t.live(name) {
		select {
		case c.out <- msg:
		case <-c.done:
		}
	}
}

func (t *Transport) live(name string) []*conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*conn
	for c := range t.conns[name] {
		out = append(out, c)
	}
	return out
}

// conn is one connection: each message sent is handled by the server at
// once, and its answer queued for Recv.
type conn struct {
	t    *Transport
	name string
	srv  *server.MCPServer
	out  chan json.RawMessage

	once sync.Once
	done chan struct{}
	err  error
}

var _ pluginapi.Conn = (*conn)(nil)

func (c *conn) Send(ctx context.Context, msg json.RawMessage) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	resp := c.srv.HandleMessage(ctx, msg)
	if resp == nil {
		return nil // a notification
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("in-process server %q: encode response: %w", c.name, err)
	}
	select {
	case c.out <- b:
		return nil
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *conn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case m := <-c.out:
		return m, nil
	case <-c.done:
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *conn) SessionID() string { return "" }

func (c *conn) Close() error {
	c.t.held(c.name)
	c.end(errors.New("connection closed"))
	return nil
}

func (c *conn) end(err error) {
	c.once.Do(func() {
		c.err = err
		close(c.done)
		c.t.mu.Lock()
		delete(c.t.conns[c.name], c)
		c.t.mu.Unlock()
	})
}
