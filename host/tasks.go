package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/lib/rawjson"
)

// Tasks (MCP 2025-11-25). A session that calls a tool with a "task" member
// gets the task the server created; plughost records which session created
// it, so tasks/get, tasks/result, tasks/cancel and tasks/list of a session
// see its own tasks only (the upstream connection, and so the server's
// task list, is shared), and notifications/tasks/status reaches it. On the
// aggregate endpoint a task id is "<server>/<id>" (the server name
// percent-encoded). tasks/result of a tools/call task goes through the
// shaping chain like a call's result. The records live in this process.

// maxTaskRecords bounds the tasks remembered; the oldest go first.
const maxTaskRecords = 10000

// relatedTaskKey is the _meta key naming the task a message belongs to.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// taskCall is the tool call behind a task.
type taskCall struct{ call shaping.Call }

// Status notifications. A server may announce a task
// (notifications/tasks/status) before its answer to the tools/call that
// created it names the task — server-everything does, over every
// transport — so a status of a task no session is known to own is held
// while task-augmented calls to its server are in flight, and delivered
// first once one of them names it; when the last of them ends, what no
// call claimed is dropped (no session here created those tasks). Guessing
// the owner instead could hand one session another's task. Every status of
// a task goes through its record's queue, drained by one goroutine at a
// time, so the client gets them in the order the server sent them: on the
// creating call's own channel while that call is answering (an HTTP
// client gets the first ahead of the call's answer, as from the server
// directly), then on the session's.

// maxEarlyStatuses bounds the status notifications held for tasks no call
// has named yet, over all servers.
const maxEarlyStatuses = 256

// taskCreation is a task-augmented tools/call of a session in flight.
type taskCreation struct {
	session, scope, server string
	handlers               *ClientHandlers // the call's own channel; nil: the session's
	rec                    *taskRecord     // the task, once the answer named it
}

// beginTask records a task-augmented call of session to server; until
// endTask, statuses of tasks not named yet are held for it.
func (r *relay) beginTask(session, scope, server string, h *ClientHandlers) *taskCreation {
	c := &taskCreation{session: session, scope: scope, server: server, handlers: h}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.creations == nil {
		r.creations = map[string]map[*taskCreation]bool{}
	}
	if r.creations[server] == nil {
		r.creations[server] = map[*taskCreation]bool{}
	}
	r.creations[server][c] = true
	return c
}

// endTask forgets a task-augmented call that answered (or failed). Once
// its server has none left, the statuses held for tasks none of them
// named are dropped.
func (r *relay) endTask(c *taskCreation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.rec != nil && c.rec.creating == c {
		c.rec.creating = nil
	}
	delete(r.creations[c.server], c)
	if len(r.creations[c.server]) > 0 {
		return
	}
	delete(r.creations, c.server)
	for k, held := range r.early {
		if k.server == c.server {
			r.logger.Debug("dropping task status notifications no session's call claimed", "server", k.server, "task", k.id, "count", len(held))
			r.earlyN -= len(held)
			delete(r.early, k)
		}
	}
}

// recordTask remembers that c's session created the task id, unless the
// server stopped running meanwhile (its tasks went with it), and delivers
// the statuses held for it.
func (r *relay) recordTask(c *taskCreation, id string, call *taskCall) {
	r.mu.Lock()
	if !r.runs(c.server) {
		r.mu.Unlock()
		return
	}
	if len(r.tasks) >= maxTaskRecords {
		var oldest taskKey
		first := true
		for k, t := range r.tasks {
			if first || t.created.Before(r.tasks[oldest].created) {
				oldest, first = k, false
			}
		}
		delete(r.tasks, oldest)
	}
	key := taskKey{c.server, id}
	rec := &taskRecord{session: c.session, scope: c.scope, call: call, created: time.Now(), creating: c}
	r.tasks[key] = rec
	c.rec = rec
	rec.queued = r.early[key]
	r.earlyN -= len(rec.queued)
	delete(r.early, key)
	r.flushStatuses(rec, key)
}

// taskStatus queues a status notification for the session that created
// the task (its id as that session knows it), or holds it while the task
// may be one not named yet.
func (r *relay) taskStatus(server string, params json.RawMessage) {
	id, ok := rawjson.String(params, "taskId")
	if !ok {
		return
	}
	key := taskKey{server, id}
	r.mu.Lock()
	rec := r.tasks[key]
	if rec == nil {
		r.holdStatus(key, params)
		r.mu.Unlock()
		return
	}
	rec.queued = append(rec.queued, params)
	r.flushStatuses(rec, key)
}

// holdStatus keeps a status of a task no session is known to own while
// task-augmented calls to its server are in flight. Callers hold r.mu.
func (r *relay) holdStatus(key taskKey, params json.RawMessage) {
	switch {
	case len(r.creations[key.server]) == 0:
		r.logger.Debug("dropping a task status no session can be tied to", "server", key.server, "task", key.id)
	case r.earlyN >= maxEarlyStatuses:
		r.logger.Warn("dropping a task status: too many are held for tasks not named yet", "server", key.server, "task", key.id, "held", r.earlyN)
	default:
		if r.early == nil {
			r.early = map[taskKey][]json.RawMessage{}
		}
		r.early[key] = append(r.early[key], params)
		r.earlyN++
	}
}

// flushStatuses delivers rec's queued statuses in order, and those queued
// meanwhile, unless another goroutine is at it (which then delivers them).
// Callers hold r.mu; it is released on return.
func (r *relay) flushStatuses(rec *taskRecord, key taskKey) {
	defer r.mu.Unlock()
	if rec.flushing {
		return
	}
	rec.flushing = true
	for len(rec.queued) > 0 {
		batch := rec.queued
		rec.queued = nil
		t := r.sessionTarget(rec.session)
		t.scope = rec.scope
		if rec.creating != nil && rec.creating.handlers != nil {
			t.handlers = rec.creating.handlers
		}
		r.mu.Unlock()
		for _, params := range batch {
			if t.scope == "" {
				params, _ = rawjson.Replace(params, []byte(strconv.Quote(clientTaskID(key.server, key.id))), "taskId")
			}
			deliver(t, Notification{Server: key.server, Method: "notifications/tasks/status", Params: params})
		}
		r.mu.Lock()
	}
	rec.flushing = false
}

// ownedTask returns the record of a task of server if session created it.
func (r *relay) ownedTask(session, server, id string) (*taskRecord, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tasks[taskKey{server, id}]
	return t, t != nil && t.session == session
}

// callTask sends a task-augmented tools/call; the answer is the task the
// server created (recorded for the session), or, from a server that ran
// the call at once, its result.
func (s *Session) callTask(ctx context.Context, scope string, call shaping.Call, opts CallOptions) (CallResult, error) {
	params := make([]byte, 0, len(call.Args)+len(opts.Task)+len(opts.Meta)+len(call.Tool)+48)
	params = append(params, `{"name":`...)
	params = append(params, quote(call.Tool)...)
	params = append(params, `,"arguments":`...)
	params = append(params, call.Args...)
	params = append(params, `,"task":`...)
	params = append(params, opts.Task...)
	if len(opts.Meta) > 0 {
		params = append(params, `,"_meta":`...)
		params = append(params, opts.Meta...)
	}
	params = append(params, '}')
	c := s.h.relay.beginTask(s.id, scope, call.Server, opts.Handlers)
	defer s.h.relay.endTask(c)
	raw, err := s.forward(ctx, scope, call.Server, "tools/call", params, opts)
	if err != nil {
		return CallResult{}, s.h.explainCallError(ctx, call.Name, call.Server, err)
	}
	id, isTask := rawjson.String(raw, "task", "taskId")
	if !isTask {
		res, extra, err := s.h.shapeFetched(ctx, call, raw)
		return CallResult{Result: newToolResult(res, extra)}, err
	}
	s.h.relay.recordTask(c, id, &taskCall{call: call})
	if scope == "" {
		raw, _ = rawjson.Replace(raw, quote(clientTaskID(call.Server, id)), "task", "taskId")
	}
	return CallResult{Task: raw}, nil
}

// taskRequest answers tasks/get, tasks/result and tasks/cancel for a task
// the session created.
func (s *Session) taskRequest(ctx context.Context, scope, method string, params json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	clientID, ok := rawjson.String(params, "taskId")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: method + `: params must be {"taskId": "<task id>"}`}
	}
	server, id := scope, clientID
	if scope == "" {
		if server, id, ok = serverTaskID(clientID); !ok {
			return nil, unknownTask(clientID)
		}
	}
	rec, ok := s.h.relay.ownedTask(s.id, server, id)
	if !ok {
		return nil, unknownTask(clientID)
	}
	if id != clientID {
		params, _ = rawjson.Replace(params, quote(id), "taskId")
	}
	raw, err := s.forward(ctx, scope, server, method, params, opts)
	if err != nil {
		return nil, err
	}
	if method != "tasks/result" {
		if id != clientID {
			raw, _ = rawjson.Replace(raw, quote(clientID), "taskId")
		}
		return raw, nil
	}
	if id != clientID {
		raw, _ = rawjson.Replace(raw, quote(clientID), "_meta", relatedTaskKey, "taskId")
	}
	if rec.call == nil {
		return raw, nil
	}
	call := rec.call.call
	if scope == "" {
		call.MapURI = func(u string) string { return s.h.clientURI(call.Server, u) }
	}
	res, extra, err := s.h.shapeFetched(ctx, call, raw)
	if err != nil {
		return raw, nil // not a tool result (a cancelled task's, …): as the server sent it
	}
	return callresult.Encode(res, extra)
}

func unknownTask(id string) *RPCError {
	return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown task %q: no task of this session has that id", id)}
}

// listTasks answers tasks/list: the tasks of the session's scope that the
// session created, from every server that lists tasks (a server that
// fails is left out and logged).
func (s *Session) listTasks(ctx context.Context, scope string) (json.RawMessage, error) {
	var b strings.Builder
	b.WriteString(`{"tasks":[`)
	n := 0
	for _, server := range s.h.st().order {
		if scope != "" && server != scope {
			continue
		}
		if c, ok := s.h.serverCaps(server); !ok || c.Tasks == nil || c.Tasks.List == nil {
			continue
		}
		items, err := listAll(ctx, s.h, server, "tasks/list", "tasks")
		if err != nil {
			s.h.relay.logger.Warn("listing tasks failed; leaving the server out", "server", server, "error", err)
			continue
		}
		for _, it := range items {
			id, _ := rawjson.String(it, "taskId")
			if _, mine := s.h.relay.ownedTask(s.id, server, id); !mine {
				continue
			}
			if scope == "" {
				it, _ = rawjson.Replace(it, quote(clientTaskID(server, id)), "taskId")
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(it)
		}
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String()), nil
}

// shapeFetched runs a tools/call result fetched outside a call (a task's
// result) through the same shaping chain as a call's; the Extra is what the
// result holds beyond mcp.CallToolResult's fields (callresult.Encode).
func (h *Host) shapeFetched(ctx context.Context, call shaping.Call, raw json.RawMessage) (*mcp.CallToolResult, callresult.Extra, error) {
	res, extra, err := callresult.Decode(raw)
	if err != nil {
		return nil, callresult.Extra{}, err
	}
	fetched := func(context.Context, shaping.Call) (shaping.Result, error) {
		return shaping.Result{MCP: res, Extra: extra}, nil
	}
	r, err := shaping.Chain(fetched, h.st().chain.links...)(ctx, call)
	return r.MCP, r.Extra, err
}
