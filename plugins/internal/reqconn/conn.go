package reqconn

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/pluginapi"
)

// Factory makes a fresh, not yet started, mcp-go transport: each call is a
// new session with the server. It is called once by Open and once more each
// time the server forgets the session.
type Factory func() (transport.Interface, error)

// Options configures Open. The zero value is usable.
type Options struct {
	// Logger receives the adapter's logs; nil discards them. Message bodies
	// and header values are never logged above debug level.
	Logger hclog.Logger
	// MaxQueuedNotifications bounds the server notifications waiting for
	// Recv (default 1024); past it, delivery of the next one waits (see queue).
	MaxQueuedNotifications int
	// SessionTimeout bounds starting a new session after the server forgot
	// the old one: new transport, Start, replayed initialize (default 30s).
	SessionTimeout time.Duration
	// ProbeTimeout bounds the ping sent after a transport failure to tell a
	// dropped connection from a server that is gone (default 5s).
	ProbeTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.MaxQueuedNotifications <= 0 {
		o.MaxQueuedNotifications = 1024
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Second
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 5 * time.Second
	}
	return o
}

// errClosed is the cause of everything cancelled by Close.
var errClosed = errors.New("connection closed")

// conn is the pluginapi.Conn returned by Open. It is safe for concurrent use
// (Recv from one goroutine, as the contract says).
type conn struct {
	log     hclog.Logger
	opts    Options
	factory Factory
	q       *queue

	// ctx lives as long as the connection; every transport and request
	// context derives from it. cancel carries errClosed or the failure.
	ctx    context.Context
	cancel context.CancelCauseFunc
	ended  chan struct{} // closed on Close or failure
	closed atomic.Bool   // Close was called: Recv says io.EOF at once
	wg     sync.WaitGroup

	mu        sync.Mutex
	endErr    error                           // why the connection failed; nil while up or after a plain Close
	cur       *session                        // where new messages go
	sessions  map[*session]struct{}           // every session not yet closed
	calls     map[string]*call                // host requests in flight, by idKey
	waiting   map[string]chan json.RawMessage // server requests awaiting the host, by idKey
	handshake *handshake                      // the host's initialize, for replay
	renewal   *renewal                        // the session restart in progress
	probing   bool
	probes    int // makes probe ids unique
}

// Open starts a transport made by factory and returns a pluginapi.Conn over
// it. ctx bounds starting only; the transport then lives until Close.
// Errors are *pluginapi.Error: KindConnect when the transport cannot be made
// or started, KindTimeout or KindCanceled when ctx ends first.
func Open(ctx context.Context, factory Factory, opts Options) (pluginapi.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError("open", err)
	}
	opts = opts.withDefaults()
	c := &conn{
		log:      opts.Logger,
		opts:     opts,
		factory:  factory,
		q:        newQueue(opts.MaxQueuedNotifications),
		ended:    make(chan struct{}),
		sessions: make(map[*session]struct{}),
		calls:    make(map[string]*call),
		waiting:  make(map[string]chan json.RawMessage),
	}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	s, err := c.startSession(ctx)
	if err != nil {
		c.cancel(errClosed)
		if ctx.Err() != nil {
			return nil, ctxError("open", ctx.Err())
		}
		var pe *pluginapi.Error
		if errors.As(err, &pe) {
			return nil, &pluginapi.Error{Op: "open", Kind: pe.Kind, Err: pe.Err}
		}
		return nil, pluginapi.Errorf("open", pluginapi.KindConnect, "%w", err)
	}
	c.cur = s
	c.sessions[s] = struct{}{}
	return c, nil
}

// Send routes one message from the host (see the package doc). It never
// waits on the network for a request; a notification is delivered before it
// returns, within ctx.
func (c *conn) Send(ctx context.Context, raw json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return ctxError("send", err)
	}
	if err := c.down("send"); err != nil {
		return err
	}
	m, err := parseMessage(raw)
	if err != nil {
		return pluginapi.Errorf("send", pluginapi.KindInternal, "%w", err)
	}
	switch m.kind {
	case kindRequest:
		return c.startCall(ctx, m)
	case kindNotification:
		return c.notify(ctx, m)
	default:
		c.answerServer(m)
		return nil
	}
}

// Recv returns the next message for the host. Once the connection has
// failed it returns what was already queued, then a *pluginapi.Error of
// KindServerExited; after Close it returns io.EOF.
func (c *conn) Recv(ctx context.Context) (json.RawMessage, error) {
	for {
		if c.closed.Load() {
			return nil, io.EOF
		}
		if msg, ok := c.q.take(); ok {
			return msg, nil
		}
		select {
		case <-c.ended:
			if msg, ok := c.q.take(); ok && !c.closed.Load() {
				return msg, nil
			}
			return nil, c.endError("recv")
		case <-c.q.ready:
		case <-ctx.Done():
			return nil, ctxError("recv", ctx.Err())
		}
	}
}

// SessionID returns the current transport's session id.
func (c *conn) SessionID() string {
	c.mu.Lock()
	s := c.cur
	c.mu.Unlock()
	if s == nil {
		return ""
	}
	return s.tr.GetSessionId()
}

// Close cancels every request in flight, closes the transports and makes
// Recv return io.EOF. It waits for the adapter's goroutines and is safe to
// call more than once.
func (c *conn) Close() error {
	c.mu.Lock()
	if c.closed.Load() {
		c.mu.Unlock()
		return nil
	}
	c.closed.Store(true)
	if c.endErr == nil {
		close(c.ended)
	}
	sessions := c.sessions
	c.sessions = map[*session]struct{}{}
	c.mu.Unlock()

	c.cancel(errClosed)
	var errs []error
	for s := range sessions {
		errs = append(errs, s.close())
	}
	c.wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return pluginapi.Errorf("close", pluginapi.KindInternal, "close transport: %w", err)
	}
	return nil
}

// fail ends the connection because of an unrecoverable failure: in-flight
// requests are cancelled, Recv drains what is queued and then returns err.
// The transports stay open until the owner calls Close.
func (c *conn) fail(err *pluginapi.Error) {
	c.mu.Lock()
	if c.closed.Load() || c.endErr != nil {
		c.mu.Unlock()
		return
	}
	c.endErr = err
	close(c.ended)
	c.mu.Unlock()
	c.log.Warn("connection to the server ended", "error", err.Err)
	c.cancel(err)
}

// down returns the error for op once the connection has ended, else nil.
func (c *conn) down(op string) error {
	select {
	case <-c.ended:
		return c.endError(op)
	default:
		return nil
	}
}

// endError says why the connection ended, for op.
func (c *conn) endError(op string) error {
	if c.closed.Load() {
		if op == "recv" {
			return io.EOF
		}
		return pluginapi.Errorf(op, pluginapi.KindServerExited, "%w", errClosed)
	}
	c.mu.Lock()
	err := c.endErr
	c.mu.Unlock()
	var pe *pluginapi.Error
	if errors.As(err, &pe) {
		return &pluginapi.Error{Op: op, Kind: pe.Kind, Err: pe.Err}
	}
	return pluginapi.Errorf(op, pluginapi.KindServerExited, "%w", err)
}

// ctxError turns a context error into the contract's error.
func ctxError(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return pluginapi.Errorf(op, pluginapi.KindTimeout, "%w", err)
	}
	return pluginapi.Errorf(op, pluginapi.KindCanceled, "%w", err)
}
