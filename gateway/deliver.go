package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/rawjson"
)

// Delivering to the client. The host ties what a server sends on its own to
// the session that caused it (host.ClientHandlers); the gateway delivers
// it: during a request, on that request's channel (its HTTP response
// stream, which then becomes an event stream, or stdout) through the
// request's outbox, so it reaches the client before the response; outside
// a request, on the session's stream (GET /mcp, or stdout). A server's
// request becomes a request of the gateway's to the client (its own id,
// "plughost-<process>-<n>"); the client's response comes back as a POST
// (HTTP) or a line (stdio) and is matched by session and id. A response
// POSTed to another replica sharing the session store is forwarded here
// (Peers.ForwardResponse).

// outbox orders what a request sends its client before the response:
// notifications and requests go through a bounded queue drained by a
// goroutine of its own, so the host's router never waits on a slow client,
// and the response is written only once the queue is empty. Safe for
// concurrent use.
type outbox struct {
	g       *Gateway
	session string
	out     sink
	queue   chan []byte
	done    chan struct{}

	mu     sync.Mutex
	closed bool
}

// outboxQueue bounds the messages waiting for one request's channel.
const outboxQueue = 256

func (g *Gateway) newOutbox(session string, out sink) *outbox {
	b := &outbox{g: g, session: session, out: out, queue: make(chan []byte, outboxQueue), done: make(chan struct{})}
	go b.pump()
	return b
}

func (b *outbox) pump() {
	defer close(b.done)
	for msg := range b.queue {
		if !b.out.notify(msg) { // the client takes no event stream on POST
			streamChannel{b.g, b.session}.send(msg)
		}
	}
}

// send queues msg for the request's channel; after close (the request
// answered) it goes to the session's stream instead.
func (b *outbox) send(msg []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		streamChannel{b.g, b.session}.send(msg)
		return
	}
	select {
	case b.queue <- msg:
	default:
		b.g.logger.Warn("a request's channel is not keeping up; dropping a message", "session", b.session)
	}
}

// close waits until everything queued is written.
func (b *outbox) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	<-b.done
}

// channel is where a routed message goes: a request's outbox, or (nil)
// the session's stream.
type channel interface{ send(msg []byte) }

// streamChannel sends on the session's stream.
type streamChannel struct {
	g       *Gateway
	session string
}

// send holds msg for the session's next stream when it has none yet, or,
// with replicas (Relay), sends it to the replica holding the stream.
func (c streamChannel) send(msg []byte) {
	if c.g.rs != nil && !c.g.hasStream(c.session) {
		c.g.forwardStream(c.session, msg)
		return
	}
	c.hold(msg)
}

// hold is send without replicas.
func (c streamChannel) hold(msg []byte) {
	if !c.g.pushOrHold(c.session, msg) {
		c.g.logger.Debug("no stream to deliver a message on yet; holding it for the session's next stream", "session", c.session)
	}
}

// send queues msg on the request's outbox, made on first use (most
// requests deliver nothing): x is a channel for its request.
func (x *exchange) send(msg []byte) {
	x.boxOnce.Do(func() { x.box = x.g.newOutbox(sessionID(x.sess), x.out) })
	if x.box == nil { // the request was answered without delivering anything
		streamChannel{x.g, sessionID(x.sess)}.send(msg)
		return
	}
	x.box.send(msg)
}

// closeOutbox waits until what the request delivered is written; what its
// handlers get afterwards goes to the session's stream.
func (x *exchange) closeOutbox() {
	x.boxOnce.Do(func() {}) // no outbox from now on
	if x.box != nil {
		x.box.close()
	}
	if x.ch != nil {
		x.ch.x.Store(nil)
	}
}

// requestChannel is a request's channel as the host holds it in the
// request's handlers. The host keeps the handlers of an answered request
// a while (progress a server writes after its answer still goes to them),
// so they hold the exchange — its message, its sink — only until the
// answer; then they send on the session's stream, as the exchange would.
type requestChannel struct {
	g       *Gateway
	session string
	x       atomic.Pointer[exchange] // nil once the request was answered
}

func (c *requestChannel) send(msg []byte) {
	if x := c.x.Load(); x != nil {
		x.send(msg)
		return
	}
	streamChannel{c.g, c.session}.send(msg)
}

// callOptions are the host options of a request: what the server sends
// during it goes to the request's own channel.
func (g *Gateway) callOptions(x *exchange) host.CallOptions {
	x.ch = &requestChannel{g: g, session: sessionID(x.sess)}
	x.ch.x.Store(x)
	h := g.handlers(x.ch.session, x.ch)
	return host.CallOptions{Handlers: &h}
}

// handlers returns the host handlers of a session whose messages go to ch.
// The server→client requests are offered as the client declared them at
// initialize; a client that did not declare one answers -32601.
func (g *Gateway) handlers(session string, ch channel) host.ClientHandlers {
	ask := func(ctx context.Context, r host.ServerRequest) (json.RawMessage, error) {
		if why := g.cannotAnswer(ctx, session, r); why != "" {
			return nil, &host.RPCError{Code: codeMethodNotFound, Message: why}
		}
		return g.ask(ctx, session, ch, r.Method, r.Params)
	}
	return host.ClientHandlers{
		Sampling: ask, Elicitation: ask, Roots: ask,
		Notify: func(n host.Notification) { ch.send(encodeNotification(n.Method, n.Params)) },
	}
}

// cannotAnswer says why the session's client cannot answer r ("" when it
// can): it did not declare the capability at initialize.
func (g *Gateway) cannotAnswer(ctx context.Context, session string, r host.ServerRequest) string {
	st, err := g.h.Session(session).State(ctx)
	if err != nil {
		return "the client session ended"
	}
	capName := map[string]string{"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots"}[r.Method]
	if _, _, ok := rawjson.Member(st.ClientInfo, "capabilities", capName); !ok {
		return fmt.Sprintf("the client did not declare the %q capability", capName)
	}
	if r.Method == "elicitation/create" {
		if mode, _ := rawjson.String(r.Params, "mode"); mode == "url" {
			if _, _, ok := rawjson.Member(st.ClientInfo, "capabilities", "elicitation", "url"); !ok {
				return `the client did not declare URL-mode elicitation ("elicitation": {"url": {}})`
			}
		}
	}
	return ""
}

// ask sends a request to the session's client on ch and waits for its
// answer (or ctx: then the client is told the request was cancelled).
func (g *Gateway) ask(ctx context.Context, session string, ch channel, method string, params json.RawMessage) (json.RawMessage, error) {
	id := strconv.Quote(g.askID + strconv.FormatUint(g.askSeq.Add(1), 10))
	key := pendingKey{session, id}
	answer := make(chan message, 1)
	g.mu.Lock()
	g.pending[key] = answer
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.pending, key)
		g.mu.Unlock()
	}()
	ch.send(encodeRequest(json.RawMessage(id), method, params))
	select {
	case a := <-answer:
		if len(a.Error) > 0 {
			var re host.RPCError
			if err := json.Unmarshal(a.Error, &re); err != nil {
				return nil, fmt.Errorf("the client answered %s with a malformed error: %w", method, err)
			}
			return nil, &re
		}
		return a.Result, nil
	case <-ctx.Done():
		ch.send(encodeNotification("notifications/cancelled", json.RawMessage(`{"requestId":`+id+`,"reason":"the server cancelled its request"}`)))
		return nil, ctx.Err()
	}
}

// pendingKey names a request of the gateway's to a client.
type pendingKey struct{ session, id string }

// answered hands a client's response to the request waiting for it;
// false when none waits (it ended, or the id is not the gateway's).
func (g *Gateway) answered(session string, msg message) bool {
	g.mu.Lock()
	ch := g.pending[pendingKey{session, string(msg.ID)}]
	g.mu.Unlock()
	if ch == nil {
		return false
	}
	select {
	case ch <- msg:
	default: // answered twice: the first answer counts
	}
	return true
}
