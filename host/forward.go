package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/plughost/plughost/host/supervisor"
)

// Request answers one request of the session's client other than
// initialize, ping and the tools methods: resources/*, prompts/*,
// completion/complete, logging/setLevel and tasks/*. A session of the
// aggregate endpoint gets every server's resources, prompts and tasks under
// plughost's names and URIs (see docs/gateway.md); a session scoped to one
// server (CreateSession with SessionRecord.Scope) has the request sent to
// that server as is. Either way the server's answer comes back raw, its
// JSON-RPC errors as *RPCError, and what the server sends meanwhile
// (progress, log messages, sampling, elicitation, roots) goes to
// opts.Handlers or the session's. A method the aggregate endpoint does not
// serve is an *RPCError -32601.
func (s *Session) Request(ctx context.Context, method string, params json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	if s.h.audit == nil || !audited(method) {
		return s.request(ctx, method, params, opts, &callee{})
	}
	began := time.Now()
	var to callee
	res, err := s.request(ctx, method, params, opts, &to)
	s.auditRequest(began, method, params, to, res, err)
	return res, err
}

// request is Request, noting in to the server (and name) a resources/read
// or prompts/get went to.
func (s *Session) request(ctx context.Context, method string, params json.RawMessage, opts CallOptions, to *callee) (json.RawMessage, error) {
	scope, rule, err := s.access(ctx)
	if err != nil {
		return nil, err
	}
	if feature := featureOf(method); scope == "" && feature != "" && !s.h.offers(feature) {
		// A server starting for the first time may offer it: wait for those.
		newcomers := s.h.newcomers()
		if _, err := s.h.awaitStart(ctx, newcomers...); err != nil {
			return nil, fmt.Errorf("method %q: %w", method, err)
		}
		if !s.h.offers(feature) {
			return nil, &RPCError{Code: codeMethodNotFound, Message: fmt.Sprintf("method %q: no server offers %s%s", method, feature, s.h.failedStarts(newcomers))}
		}
	}
	switch method {
	case "logging/setLevel":
		var p struct {
			Level string `json:"level"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: codeInvalidParams, Message: `logging/setLevel: params must be {"level": "<level>"}`}
		}
		return json.RawMessage("{}"), s.SetLogLevel(ctx, p.Level)
	case "resources/subscribe", "resources/unsubscribe":
		return s.subscription(ctx, scope, rule, method == "resources/subscribe", params)
	case "tasks/get", "tasks/result", "tasks/cancel":
		return s.taskRequest(ctx, scope, method, params, opts)
	case "tasks/list":
		return s.listTasks(ctx, params)
	}
	if scope != "" {
		to.server = scope
		return s.forward(ctx, scope, scope, method, params, opts)
	}
	switch method {
	case "resources/list":
		return s.listResources(ctx, false, rule)
	case "resources/templates/list":
		return s.listResources(ctx, true, rule)
	case "resources/read":
		return s.readResource(ctx, params, opts, rule, to)
	case "prompts/list":
		return s.promptsList(ctx, rule)
	case "prompts/get":
		return s.getPrompt(ctx, params, opts, rule, to)
	case "completion/complete":
		return s.complete(ctx, params, opts, rule)
	}
	return nil, &RPCError{Code: codeMethodNotFound, Message: fmt.Sprintf("method %q is not supported by the plughost gateway", method)}
}

// forward sends a request of the session to server and returns the raw
// answer, routing what the server sends meanwhile to the session (see
// routing.Router.Begin). A server still starting is waited for
// (awaitStart).
func (s *Session) forward(ctx context.Context, scope, server, method string, params json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	if _, rule, err := s.access(ctx); err != nil {
		return nil, err
	} else if !rule.AllowsServer(server) { // the callers route only to allowed servers: a last guard
		return nil, fmt.Errorf("server %q: %w", server, errServerNotRunning)
	}
	if _, ok := s.h.Server(server); !ok {
		return nil, fmt.Errorf("server %q: %w", server, errServerNotRunning)
	}
	if _, err := s.h.awaitStart(ctx, server); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	srv, release, err := s.h.conn(ctx, s.id, server)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer release()
	f, params := s.h.router.Begin(s.id, scope, server, params, opts.Handlers)
	defer s.h.router.End(f)
	res, err := srv.Do(ctx, supervisor.Request{Method: method, Params: params, OnID: s.h.router.NoteID(f)})
	if err != nil {
		return nil, s.h.masker.Error(err)
	}
	return res, nil
}

// Notify passes a notification of the session's client to the servers it
// concerns: notifications/roots/list_changed to the session's own
// connections (isolation "session") of the servers of its scope that its
// client may use, never to a shared connection, whose roots are the
// server's configured ones. Others are ignored.
func (s *Session) Notify(ctx context.Context, method string, params json.RawMessage) {
	if method != "notifications/roots/list_changed" {
		return
	}
	scope, rule, err := s.access(ctx)
	if err != nil {
		return
	}
	for _, name := range s.h.st().order {
		if (scope != "" && name != scope) || !rule.AllowsServer(name) {
			continue
		}
		srv := s.h.ownConn(s.id, name)
		if srv == nil {
			continue
		}
		if err := srv.Notify(ctx, method, params); err != nil {
			s.h.router.Logger().Debug("passing a client notification on failed", "server", name, "method", method, "error", err)
		}
	}
}

// failedStarts describes, for a message, those of servers waited for that
// did not come up ("" when none): "; server "x" did not start: it is down
// after a failure (state error); last error: …".
func (h *Host) failedStarts(servers []string) string {
	var b strings.Builder
	for _, name := range servers {
		if st, ok := h.Status(name); ok && st.State != supervisor.StateConnected {
			fmt.Fprintf(&b, "; server %q did not start: it is %s", name, describeDown(st))
		}
	}
	return b.String()
}

// featureOf is the server capability behind an aggregate method.
func featureOf(method string) string {
	switch method {
	case "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe":
		return "resources"
	case "prompts/list", "prompts/get":
		return "prompts"
	case "completion/complete":
		return "completions"
	case "tasks/list", "tasks/get", "tasks/result", "tasks/cancel":
		return "tasks"
	}
	return ""
}

// offers reports whether any server that initialized offers feature.
func (h *Host) offers(feature string) bool {
	for _, name := range h.st().order {
		c, ok := h.serverCaps(name)
		switch {
		case !ok:
		case feature == "resources" && c.Resources != nil,
			feature == "prompts" && c.Prompts != nil,
			feature == "completions" && c.Completions != nil,
			feature == "tasks" && c.Tasks != nil:
			return true
		}
	}
	return false
}
