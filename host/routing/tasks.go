package routing

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/lib/rawjson"
)

// Task records (MCP 2025-11-25): which session created each task, so that
// the host answers tasks/get, tasks/result, tasks/cancel and tasks/list of
// a session for its own tasks only, and notifications/tasks/status reaches
// it. On the aggregate endpoint a task id is "<server>/<id>" (the server
// name percent-encoded; ClientTaskID). The records live in this process.

// maxTaskRecords bounds the tasks remembered; the oldest go first.
const maxTaskRecords = 10000

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

// TaskCreation is a task-augmented tools/call of a session in flight
// (BeginTask).
type TaskCreation struct {
	session, scope, server string
	handlers               *ClientHandlers // the call's own channel; nil: the session's
	rec                    *TaskRecord     // the task, once the answer named it
}

// BeginTask records a task-augmented call of session to server; until
// EndTask, statuses of tasks not named yet are held for it. h are the
// call's own handlers (nil: the session's).
func (r *Router) BeginTask(session, scope, server string, h *ClientHandlers) *TaskCreation {
	c := &TaskCreation{session: session, scope: scope, server: server, handlers: h}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.creations == nil {
		r.creations = map[string]map[*TaskCreation]bool{}
	}
	if r.creations[server] == nil {
		r.creations[server] = map[*TaskCreation]bool{}
	}
	r.creations[server][c] = true
	return c
}

// EndTask forgets a task-augmented call that answered (or failed). Once
// its server has none left, the statuses held for tasks none of them
// named are dropped.
func (r *Router) EndTask(c *TaskCreation) {
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

// RecordTask remembers that c's session created the task id, unless the
// server stopped running meanwhile (its tasks went with it), and delivers
// the statuses held for it. call is the tools/call behind it.
func (r *Router) RecordTask(c *TaskCreation, id string, call *shaping.Call) {
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
	rec := &TaskRecord{Call: call, session: c.session, scope: c.scope, created: time.Now(), creating: c}
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
func (r *Router) taskStatus(server string, params json.RawMessage) {
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
func (r *Router) holdStatus(key taskKey, params json.RawMessage) {
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
func (r *Router) flushStatuses(rec *TaskRecord, key taskKey) {
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
		clientID := r.ClientTaskIDFor(t.scope, key.server, key.id)
		for _, params := range batch {
			if clientID != key.id {
				params, _ = rawjson.Replace(params, []byte(strconv.Quote(clientID)), "taskId")
			}
			deliver(t, Notification{Server: key.server, Method: "notifications/tasks/status", Params: params})
		}
		r.mu.Lock()
	}
	rec.flushing = false
}

// Created is when the session created the task.
func (t *TaskRecord) Created() time.Time { return t.created }

// OwnedTask returns the record of a task of server if session created it.
func (r *Router) OwnedTask(session, server, id string) (*TaskRecord, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tasks[taskKey{server, id}]
	return t, t != nil && t.session == session
}
