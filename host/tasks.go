package host

import (
	"context"
	"encoding/json"
	"fmt"

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
// percent-encoded). host/routing keeps the records. tasks/result of a tools/call task goes through the
// shaping chain like a call's result.

// relatedTaskKey is the _meta key naming the task a message belongs to.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

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
	if err := s.noteTaskReplica(ctx); err != nil {
		return CallResult{}, err
	}
	c := s.h.router.BeginTask(s.id, scope, call.Server, opts.Handlers)
	defer s.h.router.EndTask(c)
	raw, err := s.forward(ctx, scope, call.Server, "tools/call", params, opts)
	if err != nil {
		return CallResult{}, s.h.explainCallError(ctx, call.Name, call.Server, err)
	}
	id, isTask := rawjson.String(raw, "task", "taskId")
	if !isTask {
		res, err := s.h.shapeFetched(ctx, call, raw)
		return CallResult{Result: res}, err
	}
	s.h.router.RecordTask(c, id, &call)
	if clientID := s.h.router.ClientTaskIDFor(scope, call.Server, id); clientID != id {
		raw, _ = rawjson.Replace(raw, quote(clientID), "task", "taskId")
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
	server, id, ok := s.h.router.ServerTaskIDFor(scope, clientID)
	if !ok {
		return nil, unknownTask(clientID)
	}
	rec, ok := s.h.router.OwnedTask(s.id, server, id)
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
	if rec.Call == nil {
		return raw, nil
	}
	call := *rec.Call
	if scope == "" {
		call.MapURI = func(u string) string { return s.h.router.ClientURI(call.Server, u) }
	}
	res, err := s.h.shapeFetched(ctx, call, raw)
	if err != nil {
		return raw, nil // not a tool result (a cancelled task's, …): as the server sent it
	}
	return res.JSON()
}

func unknownTask(id string) *RPCError {
	return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown task %q: no task of this session has that id", id)}
}

// shapeFetched decodes a tools/call result fetched outside a call (a task's
// result) and runs it through the same shaping chain as a call's.
func (h *Host) shapeFetched(ctx context.Context, call shaping.Call, raw json.RawMessage) (ToolResult, error) {
	res, err := callresult.Decode(raw)
	if err != nil {
		return ToolResult{}, err
	}
	fetched := func(_ context.Context, c shaping.Call) (shaping.Result, error) {
		return shaping.Result{Result: h.claimSpooled(c, res)}, nil
	}
	r, err := shaping.Chain(fetched, h.st().chain.links...)(ctx, call)
	return r.Result, err
}
