package gateway

import (
	"context"
	"fmt"
)

// Requests in progress. JSON-RPC ties a response to its request by id
// alone, so the MCP spec forbids a client to reuse the id of a request still
// in progress in the same session. A client that does anyway gets the second
// request refused at once with -32600, the first one running on and
// answering normally. Answering both would put two different answers under
// one id on the wire: a client keeping one waiter per id (mcp-go's does)
// hands the first of them to whichever caller holds the id and drops the
// other, so one caller gets the wrong answer or none. An id is free again
// once its request was answered.

// inflightKey names a request in progress: its session and its id as the
// client wrote it.
type inflightKey struct{ session, id string }

// admit registers x as a request in progress in its session and returns
// the context it runs under (notifications/cancelled ends it) and the
// function that runs it to its answer. When a request of the session with
// the same id is still in progress, x is answered at once with -32600 and
// ok is false. Callers admit requests in the order they arrived (stdio) so
// the first of two with one id is the one that runs.
func (g *Gateway) admit(ctx context.Context, x *exchange) (run func(), ok bool) {
	key := inflightKey{sessionID(x.sess), string(x.msg.ID)}
	ctx, cancel := context.WithCancel(ctx)
	g.mu.Lock()
	if _, busy := g.inflight[key]; busy {
		g.mu.Unlock()
		cancel()
		g.metrics.reusedID()
		x.out.respond(encodeError(x.msg.ID, reusedID(x.msg.ID)))
		return nil, false
	}
	g.inflight[key] = cancel
	g.calls.Add(1)
	g.mu.Unlock()
	return func() {
		defer g.calls.Done()
		defer cancel()
		g.serveRequest(ctx, x, func() {
			g.mu.Lock()
			delete(g.inflight, key)
			g.mu.Unlock()
		})
	}, true
}

// reusedID is the error refusing a request whose id is taken by a request
// still in progress.
func reusedID(id []byte) *rpcError {
	return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf(
		"invalid request: id %s is the id of a request still in progress in this session; "+
			"send every request with a fresh id (MCP forbids reusing an id within a session); "+
			"the request in progress goes on and gets its own answer", id)}
}
