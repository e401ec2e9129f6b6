package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/plughost/plughost/host"
)

// JSON-RPC batches. MCP 2025-03-26 requires servers to accept a batch (an
// array of requests and notifications, or of responses); 2025-06-18 removed
// batching. So a batch is served in a session that negotiated a version
// that has them, and refused (-32600) in any other. Its requests run as
// single ones would, concurrently; their responses go back together, as one
// array — or, when a request sent something ahead of them over an event
// stream, as events of their own.

// batchVersions are the MCP versions with JSON-RPC batches.
var batchVersions = []string{"2025-03-26"}

// batchesAllowed reports whether a session of protocol takes batches.
func batchesAllowed(protocol string) bool { return slices.Contains(batchVersions, protocol) }

// isBatch reports whether a message is a JSON array.
func isBatch(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// batchRefused is the error answering a batch in a session of protocol
// ("" when there is no session yet).
func batchRefused(protocol string) *rpcError {
	if protocol == "" {
		return batchError
	}
	return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("batches are not supported: this session uses MCP %s, which has no batching "+
		"(only %s had); send one JSON-RPC message per request", protocol, batchVersions[0])}
}

// batchItem is one element of a batch: a message, or why it is not one
// (to answer with id errID, null when unknown).
type batchItem struct {
	msg   message
	kind  kind
	raw   json.RawMessage
	err   *rpcError
	errID json.RawMessage
}

// parseBatch splits a batch into its elements, each read as a message. An
// element that is no message is answered on its own; the batch as a whole
// is refused only when it is not JSON or empty.
func parseBatch(b []byte) ([]batchItem, *rpcError) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, &rpcError{Code: codeParseError, Message: "parse error: the body is not a JSON-RPC batch: " + err.Error()}
	}
	if len(raw) == 0 {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: an empty batch; send at least one message"}
	}
	items := make([]batchItem, len(raw))
	for i, r := range raw {
		it := &items[i]
		it.raw = r
		if b := bytes.TrimLeft(r, " \t\r\n"); len(b) == 0 || b[0] != '{' {
			it.err = &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("invalid request: element %d of the batch is not a JSON-RPC message (an object)", i)}
			continue
		}
		it.msg, it.kind, it.err = parseMessage(r)
		if it.err == nil && it.kind == kindRequest && it.msg.Method == "initialize" {
			it.err, it.errID = &rpcError{Code: codeInvalidRequest,
				Message: "invalid request: initialize must not be part of a batch (MCP 2025-03-26); send it alone"}, it.msg.ID
		}
	}
	return items, nil
}

// answers counts the responses a batch gets: one per request and per
// element that is no message.
func answers(items []batchItem) int {
	n := 0
	for _, it := range items {
		if it.err != nil || it.kind == kindRequest {
			n++
		}
	}
	return n
}

// batchReply gathers the responses to a batch and hands them to done, once,
// when the last expected one is in. Safe for concurrent use.
type batchReply struct {
	mu      sync.Mutex
	want    int
	replies [][]byte
	done    func(replies [][]byte)
}

func (b *batchReply) add(msg []byte) {
	b.mu.Lock()
	b.replies = append(b.replies, msg)
	last := len(b.replies) == b.want
	b.mu.Unlock()
	if last {
		b.done(b.replies)
	}
}

// encodeBatch is a JSON array of messages.
func encodeBatch(msgs [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(msgs, []byte{','})...), ']')
}

// batchSink is the sink of one request of a batch: what goes ahead of the
// response takes the batch's channel, the response joins the others.
type batchSink struct {
	out   sink
	reply *batchReply
}

func (s batchSink) notify(msg []byte) bool { return s.out.notify(msg) }
func (s batchSink) respond(msg []byte)     { s.reply.add(msg) }

// canNotify is the batch channel's (see announce).
func (s batchSink) canNotify() bool {
	n, ok := s.out.(interface{ canNotify() bool })
	return !ok || n.canNotify()
}

// serveBatch serves a batch's elements in order: an element that is no
// message is answered at once, a notification acted on, a response handed
// to the request of the gateway's it answers (respond says whether one
// took it), a request admitted and given to start, which runs it. Each
// answer goes to reply.
func (g *Gateway) serveBatch(ctx context.Context, sess *host.Session, items []batchItem, out sink, reply *batchReply,
	respond func(it batchItem) bool, start func(run func())) {
	for _, it := range items {
		switch {
		case it.err != nil:
			reply.add(encodeError(it.errID, it.err))
		case it.kind == kindNotification:
			g.serveNotification(ctx, &exchange{g: g, msg: it.msg, sess: sess})
		case it.kind == kindResponse:
			if !respond(it) {
				g.logger.Debug("a client's response matches no request of the gateway", "session", sess.ID(), "id", string(it.msg.ID))
			}
		default:
			x := &exchange{g: g, msg: it.msg, sess: sess, out: batchSink{out, reply}}
			if run, ok := g.admit(ctx, x); ok {
				start(run)
			}
		}
	}
}

// postBatch serves a POSTed batch: 202 when it holds no request, else the
// responses as one JSON array, or as events when the answer became an
// event stream.
func (g *Gateway) postBatch(w http.ResponseWriter, r *http.Request, scope, client string, body []byte) {
	if r.Header.Get(sessionHeader) == "" {
		httpError(w, http.StatusBadRequest, batchRefused(""))
		return
	}
	sess := g.sessionOf(w, r, scope, client)
	if sess == nil {
		return
	}
	ctx := r.Context()
	st, err := sess.State(ctx)
	if err != nil {
		storeError(w, err)
		return
	}
	if !batchesAllowed(st.Protocol) {
		httpError(w, http.StatusBadRequest, batchRefused(st.Protocol))
		return
	}
	items, perr := parseBatch(body)
	if perr != nil {
		httpError(w, http.StatusBadRequest, perr)
		return
	}
	out := newHTTPSink(w, accepts(r, "text/event-stream"))
	all := make(chan [][]byte, 1)
	reply := &batchReply{want: answers(items), done: func(replies [][]byte) { all <- replies }}
	var runs sync.WaitGroup
	g.serveBatch(ctx, sess, items, out, reply,
		func(it batchItem) bool {
			return g.answered(sess.ID(), it.msg) || g.forwardResponse(ctx, sess.ID(), it.msg, it.raw)
		},
		func(run func()) { runs.Go(run) })
	runs.Wait()
	if reply.want == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out.respondAll(<-all)
}
