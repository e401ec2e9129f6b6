package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host"
)

// Options configure a Gateway.
type Options struct {
	// Logger receives the gateway's logs; nil discards them.
	Logger hclog.Logger
	// Version is reported to clients in initialize.
	Version string
	// MaxMessageBytes caps one incoming message (an HTTP body, a stdio
	// line); 0 means 8 MiB. The HTTP front door enforces its own limit
	// first; this one also guards stdio.
	MaxMessageBytes int64
	// ShutdownTimeout bounds how long ServeStdio waits for calls in flight
	// once its input ended or its context was cancelled; 0 means 10 s.
	ShutdownTimeout time.Duration
}

// Gateway serves one host.Host as an MCP server: a JSON-RPC engine whose
// method table answers from each session's state in the host's session
// store, over stdio (ServeStdio) or streamable HTTP (HTTPHandler). Safe for
// concurrent use.
type Gateway struct {
	h       *host.Host
	opts    Options
	logger  hclog.Logger
	metrics *metrics

	methods       map[string]handler
	notifications map[string]notificationHandler

	mu       sync.Mutex
	inflight map[inflightKey]context.CancelFunc // requests in progress (inflight.go)
	streams  map[string][]*stream               // server→client streams by session id
	pending  map[pendingKey]chan message        // the gateway's requests to clients
	askSeq   atomic.Uint64                      // numbers them
	askID    string                             // their id prefix, unique to this process (replicas share sessions)
	calls    sync.WaitGroup                     // requests admitted and not yet answered

	rs *relayState // replicas' messages to each other (relay.go); nil with one replica

	held      []heldMessage    // messages for sessions with no stream yet, oldest first (streams.go)
	heldBytes int              // their total size
	now       func() time.Time // the clock of held messages
}

// handler answers one request. An *rpcError chooses the JSON-RPC error; any
// other error is an internal error.
type handler func(ctx context.Context, x *exchange) (json.RawMessage, error)

// notificationHandler acts on one notification from the client.
type notificationHandler func(ctx context.Context, x *exchange)

// New prepares a gateway over h (which the caller starts and closes).
func New(h *host.Host, opts Options) *Gateway {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 8 << 20
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	g := &Gateway{
		h: h, opts: opts, logger: opts.Logger,
		inflight: map[inflightKey]context.CancelFunc{},
		streams:  map[string][]*stream{},
		pending:  map[pendingKey]chan message{},
		askID:    fmt.Sprintf("plughost-%08x-", rand.Uint32()),
		now:      time.Now,
	}
	if g.rs = newRelayState(h); g.rs != nil {
		g.askID = "plughost-" + g.rs.replica + "-" // one id per process: task ids name it too
		h.SetElsewhere(g.elsewhere)
		h.SetTasksElsewhere(g.tasksOn)
	}
	g.metrics = newMetrics(h)
	// The method table: protocol features are added here, one handler each.
	g.methods = map[string]handler{
		"initialize": g.initialize,
		"ping":       ping,
		"tools/list": g.toolsList,
		"tools/call": g.toolsCall,
	}
	for _, m := range forwardedMethods {
		g.methods[m] = g.forwarded
	}
	g.notifications = map[string]notificationHandler{
		"notifications/initialized":        func(context.Context, *exchange) {},
		"notifications/cancelled":          g.cancelled,
		"notifications/roots/list_changed": g.passOn,
	}
	return g
}

func versionOr(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// exchange is one message from a client and what the engine knows of its
// session.
type exchange struct {
	g    *Gateway
	msg  message
	sess *host.Session // nil only for a request that needs no session
	out  sink

	boxOnce sync.Once
	box     *outbox         // what the request delivers before its response; nil until used
	ch      *requestChannel // the channel its host handlers hold; nil until callOptions
}

// sink is where the engine writes what a request produces: messages sent
// before its response (notifications) and the response itself.
type sink interface {
	// notify sends msg ahead of the response; false means this request's
	// channel cannot carry it (an HTTP client that accepts no event stream).
	notify(msg []byte) bool
	// respond sends the response; the exchange is then over.
	respond(msg []byte)
}

// serveRequest runs one admitted request (see admit) through the method
// table and answers it on x.out; before the response, the session is told
// if its tool list changed; a session that ended meanwhile is answered
// as unknown (ended.go). done runs just before the response is written,
// so the request's id is free again by the time the client reads the
// answer. A panic in a handler is an internal error, never a crash.
func (g *Gateway) serveRequest(ctx context.Context, x *exchange, done func()) {
	result, err := g.run(ctx, x)
	x.closeOutbox()
	ended := x.sess != nil && errors.Is(err, host.ErrSessionNotFound) // see ended.go
	if x.sess != nil && x.msg.Method != "initialize" && !ended {
		g.announce(ctx, x.sess, x.out)
	}
	done()
	if ended {
		if s, ok := x.out.(interface{ sessionEnded() bool }); ok && s.sessionEnded() {
			return
		}
		err = errSessionNotFound
	}
	if err != nil {
		x.out.respond(encodeError(x.msg.ID, asRPCError(err)))
		return
	}
	x.out.respond(encodeResult(x.msg.ID, result))
}

// asRPCError is the JSON-RPC error answering err: the handler's choice, a
// server's error passed on as the server sent it (but for the configured
// secrets, which the host masked in its message and data), or an internal
// error.
func asRPCError(err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	var server *host.RPCError
	if errors.As(err, &server) {
		re = &rpcError{Code: server.Code, Message: server.Message}
		if len(server.Data) > 0 {
			re.Data = server.Data
		}
		return re
	}
	return &rpcError{Code: codeInternalError, Message: err.Error()}
}

// run calls the method's handler, turning a panic into an error.
func (g *Gateway) run(ctx context.Context, x *exchange) (result json.RawMessage, err error) {
	h, ok := g.methods[x.msg.Method]
	if !ok {
		return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("method %q is not supported by the plughost gateway", x.msg.Method)}
	}
	defer func() {
		if p := recover(); p != nil {
			g.logger.Error("handler panicked", "method", x.msg.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, &rpcError{Code: codeInternalError, Message: fmt.Sprintf("internal error in %s", x.msg.Method)}
		}
	}()
	return h(ctx, x)
}

// serveNotification acts on a notification from the client.
func (g *Gateway) serveNotification(ctx context.Context, x *exchange) {
	if h, ok := g.notifications[x.msg.Method]; ok {
		h(ctx, x)
		return
	}
	g.logger.Debug("ignoring notification", "method", x.msg.Method)
}

// cancelled stops the request the client cancelled, if it is still running.
func (g *Gateway) cancelled(_ context.Context, x *exchange) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(x.msg.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	g.mu.Lock()
	cancel := g.inflight[inflightKey{sessionID(x.sess), string(p.RequestID)}]
	g.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func sessionID(s *host.Session) string {
	if s == nil {
		return ""
	}
	return s.ID()
}

// ping answers ping.
func ping(context.Context, *exchange) (json.RawMessage, error) { return json.RawMessage("{}"), nil }
