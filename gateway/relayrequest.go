package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/rawjson"
)

// Requests for another replica. A task lives on the upstream connection
// that created it, so on one replica, and its id names that replica
// (host.TaskReplica). A tasks/get, tasks/result or tasks/cancel reaching
// another replica is sent to the one holding the task, which runs it as a
// request of the session and sends back what the request sends its
// client (progress, status, a server's requests) and its response. While
// it runs it says so every relayBeatEvery; an asker that hears nothing for
// relaySilence (the replica died) answers with an error naming it.
const (
	relayBeatEvery = 2 * time.Second
	relaySilence   = 5 * relayBeatEvery
)

// relayWait is a request of this replica's running on another.
type relayWait struct {
	x    *exchange     // nil for a request of the gateway's own (tasksOn)
	beat chan struct{} // a sign of life
	done chan []byte   // the response
}

// wait registers a request of x's (nil: none of a client's) sent to
// another replica, under a new relay id.
func (rs *relayState) wait(x *exchange) (string, *relayWait) {
	w := &relayWait{x: x, beat: make(chan struct{}, 1), done: make(chan []byte, 1)}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seq++
	rid := strconv.FormatUint(rs.seq, 10)
	rs.waits[rid] = w
	return rid, w
}

// unwait forgets request rid.
func (rs *relayState) unwait(rid string) {
	rs.mu.Lock()
	delete(rs.waits, rid)
	rs.mu.Unlock()
}

// ownerElsewhere returns the replica holding the task a tasks/* request
// names, when it is another one.
func (g *Gateway) ownerElsewhere(x *exchange) (string, bool) {
	if g.rs == nil {
		return "", false
	}
	switch x.msg.Method {
	case "tasks/get", "tasks/result", "tasks/cancel":
	default:
		return "", false
	}
	id, _ := rawjson.String(x.msg.Params, "taskId")
	owner, ok := host.TaskReplica(id)
	return owner, ok && owner != g.rs.replica
}

// relayTo runs x's request on the replica owner and answers with what it
// answered.
func (g *Gateway) relayTo(ctx context.Context, x *exchange, owner string) (json.RawMessage, error) {
	rid, w := g.rs.wait(x)
	defer g.rs.unwait(rid)
	req := encodeRequest(x.msg.ID, x.msg.Method, x.msg.Params)
	delivered, err := g.rs.relay.Send(ctx, owner, relayEnvelope(relayRequest, []string{g.rs.replica, rid, sessionID(x.sess)}, req))
	if err != nil {
		return nil, err
	}
	if !delivered {
		return nil, unreachable(x, owner, "is not connected to the session store (it stopped, or lost the store)")
	}
	resp, err := g.awaitRelayed(ctx, owner, rid, w)
	if errors.Is(err, errSilent) {
		return nil, unreachable(x, owner, err.Error())
	}
	if err != nil {
		return nil, err
	}
	return relayResult(resp, "the replica holding the task")
}

// errSilent: the replica running a request stopped giving signs of life.
var errSilent = fmt.Errorf("stopped answering (no sign of life for %s)", relaySilence)

// awaitRelayed waits for the response to request rid, which the replica
// owner runs, or until owner gives no sign of life for relaySilence
// (errSilent) or ctx ends; either way owner is told to give up.
func (g *Gateway) awaitRelayed(ctx context.Context, owner, rid string, w *relayWait) ([]byte, error) {
	silence := time.NewTimer(relaySilence)
	defer silence.Stop()
	for {
		select {
		case resp := <-w.done:
			return resp, nil
		case <-w.beat:
			silence.Reset(relaySilence)
		case <-silence.C:
			g.cancelRelayed(owner, rid)
			return nil, errSilent
		case <-ctx.Done():
			g.cancelRelayed(owner, rid)
			return nil, ctx.Err()
		}
	}
}

// unreachable is the error answering a request for a task whose replica
// cannot be reached.
func unreachable(x *exchange, owner, why string) error {
	id, _ := rawjson.String(x.msg.Params, "taskId")
	return &rpcError{Code: codeInternalError, Message: fmt.Sprintf(
		"%s: task %q is held by replica %s, which %s; a task lives on the replica whose upstream connection created it "+
			"and ends with it: run the call again to create a new task", x.msg.Method, id, owner, why)}
}

// relayResult is the result or error of a response another replica, who,
// sent.
func relayResult(resp []byte, who string) (json.RawMessage, error) {
	msg, _, perr := parseMessage(resp)
	if perr != nil {
		return nil, fmt.Errorf("%s answered with a malformed response: %s", who, perr.Message)
	}
	if len(msg.Error) > 0 {
		var re rpcError
		if err := json.Unmarshal(msg.Error, &re); err != nil {
			return nil, fmt.Errorf("%s answered with a malformed error: %w", who, err)
		}
		return nil, &re
	}
	return msg.Result, nil
}

// cancelRelayed tells owner that this replica gave up on request rid.
func (g *Gateway) cancelRelayed(owner, rid string) {
	ctx, cancel := context.WithTimeout(context.Background(), relayTimeout)
	defer cancel()
	_, _ = g.rs.relay.Send(ctx, owner, relayEnvelope(relayCancel, []string{g.rs.replica, rid}, nil)) // it may be gone: nothing to do
}

// relayAnswered hands what another replica sent about request rid to the
// request waiting here.
func (g *Gateway) relayAnswered(rid string, kind byte, msg []byte) {
	g.rs.mu.Lock()
	w := g.rs.waits[rid]
	g.rs.mu.Unlock()
	if w == nil {
		return
	}
	select {
	case w.beat <- struct{}{}:
	default:
	}
	switch kind {
	case relayMessage:
		if w.x != nil {
			w.x.send(bytes.Clone(msg))
		}
	case relayResponse:
		select {
		case w.done <- bytes.Clone(msg):
		default:
		}
	}
}

// relayCancelled cancels a request this replica runs for another.
func (g *Gateway) relayCancelled(from, rid string) {
	g.rs.mu.Lock()
	cancel := g.rs.served[from+" "+rid]
	g.rs.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// serving registers request rid of replica from, run here, so that the
// asker can cancel it (relayCancelled): its ctx ends then, or when done is
// called.
func (rs *relayState) serving(ctx context.Context, from, rid string) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := from + " " + rid
	rs.mu.Lock()
	rs.served[key] = cancel
	rs.mu.Unlock()
	return ctx, func() {
		rs.mu.Lock()
		delete(rs.served, key)
		rs.mu.Unlock()
		cancel()
	}
}

// serveRelayed runs a request another replica sent for a task held here,
// sending back what it sends its client and its response.
func (g *Gateway) serveRelayed(ctx context.Context, from, rid, session string, raw []byte) {
	ctx, done := g.rs.serving(ctx, from, rid)
	defer done()
	out := &relaySink{g: g, ctx: ctx, to: from, rid: rid}
	msg, k, perr := parseMessage(bytes.Clone(raw))
	if perr != nil || k != kindRequest {
		out.respond(encodeError(nil, &rpcError{Code: codeInvalidRequest, Message: "a request sent on by another replica is malformed"}))
		return
	}
	sess, st, err := g.h.OpenSession(ctx, session)
	if err != nil {
		out.respond(encodeError(msg.ID, asRPCError(err)))
		return
	}
	g.rs.note(session, st) // where its messages go after the request
	sess.AdoptLogLevel(ctx, st)
	go out.beat(ctx)
	x := &exchange{g: g, msg: msg, sess: sess, out: out}
	result, err := g.run(ctx, x)
	x.closeOutbox()
	if err != nil {
		out.respond(encodeError(msg.ID, asRPCError(err)))
		return
	}
	out.respond(encodeResult(msg.ID, result))
}

// relaySink sends what a request run for another replica produces back to
// it.
type relaySink struct {
	g       *Gateway
	ctx     context.Context
	to, rid string
}

func (s *relaySink) canNotify() bool { return true }

func (s *relaySink) notify(msg []byte) bool {
	s.send(relayMessage, msg)
	return true
}

func (s *relaySink) respond(msg []byte) { s.send(relayResponse, msg) }

func (s *relaySink) send(kind byte, msg []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), relayTimeout)
	defer cancel()
	if _, err := s.g.rs.relay.Send(ctx, s.to, relayEnvelope(kind, []string{s.rid}, msg)); err != nil {
		s.g.logger.Warn("sending a task request's answer back to the replica that asked", "replica", s.to, "error", err)
	}
}

// beat tells the asking replica every relayBeatEvery that the request
// still runs, until ctx ends.
func (s *relaySink) beat(ctx context.Context) {
	t := time.NewTicker(relayBeatEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.send(relayBeat, nil)
		case <-ctx.Done():
			return
		}
	}
}
