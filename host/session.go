package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/shaping"
)

// Session is one agent conversation's view of the host: the tools its model
// sees (with discovery on: the search tools, always-visible servers' tools, and what
// this session unlocked) and the calls it makes. It is a cheap handle over
// the host, an id and the host's SessionStore, which holds the session's
// state; sessions never see each other's unlocks. Safe for concurrent use.
type Session struct {
	h  *Host
	id string
	// lazy: the state is created on first change, and a missing state is an
	// empty one (NewSession). Otherwise a missing state means the session
	// ended (CreateSession, OpenSession).
	lazy bool
	// scope is the state's Scope, known when scopeKnown (every way to get
	// a Session but Host.Session reads or sets it).
	scope      string
	scopeKnown bool
	// client is the state's ClientName, known with the scope.
	client string
}

// NewSession starts a session for an embedding agent. Nothing is stored
// until the session unlocks something; a session idle past the store's
// expiry starts over with nothing unlocked.
func (h *Host) NewSession() *Session {
	return &Session{h: h, id: newSessionID(), lazy: true, scopeKnown: true}
}

// CreateSession stores a new session with state st (its discovery state
// usually empty) under a fresh random id, for a front end that hands the
// id to a client (the gateway's Mcp-Session-Id).
func (h *Host) CreateSession(ctx context.Context, st SessionRecord) (*Session, error) {
	if _, ok := h.Server(st.Scope); st.Scope != "" && !ok {
		return nil, fmt.Errorf("create session: server %q is not running (not configured, disabled or invalid)", st.Scope)
	}
	if _, err := h.checkClient(st.ClientName, st.Scope); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := &Session{h: h, id: newSessionID(), scope: st.Scope, scopeKnown: true, client: st.ClientName}
	if st.Created.IsZero() {
		st.Created = time.Now()
	}
	if st.Listed == 0 { // the client starts from the list as it is now
		st.Listed = h.fingerprint(h.view(), st)
	}
	if err := h.sessions.Create(ctx, s.id, st); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	return s, nil
}

// OpenSession returns the session with id and its current state, or an
// error wrapping ErrSessionNotFound when it ended or expired.
func (h *Host) OpenSession(ctx context.Context, id string) (*Session, SessionRecord, error) {
	st, err := h.sessions.Load(ctx, id)
	if err != nil {
		return nil, SessionRecord{}, err
	}
	return &Session{h: h, id: id, scope: st.Scope, scopeKnown: true, client: st.ClientName}, st, nil
}

// Session returns a handle on the session with id without reading the
// store; its methods fail with ErrSessionNotFound if the session does not
// exist (see OpenSession).
func (h *Host) Session(id string) *Session { return &Session{h: h, id: id} }

// Sessions returns the host's session store.
func (h *Host) Sessions() SessionStore { return h.sessions }

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// scopeOf returns the session's scope (SessionRecord.Scope).
func (s *Session) scopeOf(ctx context.Context) (string, error) {
	if s.scopeKnown {
		return s.scope, nil
	}
	st, err := s.State(ctx)
	if err != nil {
		return "", err
	}
	s.scope, s.client, s.scopeKnown = st.Scope, st.ClientName, true
	return st.Scope, nil
}

// newSessionID returns 128 random bits, URL-safe: unguessable, and valid
// as an Mcp-Session-Id (visible ASCII).
func newSessionID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// State returns the session's current state.
func (s *Session) State(ctx context.Context) (SessionRecord, error) {
	st, err := s.h.sessions.Load(ctx, s.id)
	if s.lazy && errors.Is(err, ErrSessionNotFound) {
		return SessionRecord{Format: SessionRecordFormat}, nil
	}
	return st, err
}

// update changes the session's state atomically (see SessionStore.Update);
// a lazy session is created on its first change.
func (s *Session) update(ctx context.Context, fn func(*SessionRecord) error) (SessionRecord, error) {
	st, err := s.h.sessions.Update(ctx, s.id, fn)
	if !s.lazy || !errors.Is(err, ErrSessionNotFound) {
		return st, err
	}
	fresh := SessionRecord{Created: time.Now()}
	if err := fn(&fresh); err != nil {
		if errors.Is(err, ErrSessionUnchanged) {
			return fresh, nil
		}
		return SessionRecord{}, err
	}
	if err := s.h.sessions.Create(ctx, s.id, fresh); errors.Is(err, ErrSessionExists) {
		return s.h.sessions.Update(ctx, s.id, fn) // created concurrently: apply on top
	} else if err != nil {
		return SessionRecord{}, err
	}
	return fresh, nil
}

// Tools returns the tools this session's model sees now, sorted by name so
// the list is stable across turns (prompt caches survive). The session's
// client is taken to know this list (see TakeListChange).
func (s *Session) Tools(ctx context.Context) ([]registry.Tool, error) {
	tools, err := s.Visible(ctx)
	return append([]registry.Tool(nil), tools...), err
}

// Visible is Tools without the copy: the slice may be shared with other
// sessions and must not be modified. It costs O(what the session sees).
func (s *Session) Visible(ctx context.Context) ([]registry.Tool, error) {
	_, rule, err := s.access(ctx)
	if err != nil {
		return nil, err
	}
	v := s.h.view()
	var tools []registry.Tool
	_, err = s.update(ctx, func(st *SessionRecord) error {
		tools = allowedTools(v.Visible(st.Unlocks()), rule)
		fp := s.h.fingerprint(v, *st)
		if st.Listed == fp {
			return ErrSessionUnchanged
		}
		st.Listed = fp
		return nil
	})
	return tools, err
}

// TakeListChange reports whether the tools this session sees differ from
// the list its client last learned of (through Tools, Visible or an earlier
// TakeListChange), and records the current list as learned: a front end
// calls it to send notifications/tools/list_changed exactly when a
// session's list changed. It costs O(what the session unlocked).
func (s *Session) TakeListChange(ctx context.Context) (bool, error) {
	return s.learn(ctx, s.h.view())
}

// EndTurn marks the end of one conversational turn: tools unlocked by a
// search stay visible for tools.mcp.discovery.ttl turns, counted here. A
// session with nothing unlocked counts nothing; otherwise the turn is
// counted beside the record (SessionStore.CountTurn), and the record is
// rewritten only when an unlock runs out, so that every process sharing
// the store sees the shorter list at once, or a tool unlocked is gone (its
// unlock is dropped).
func (s *Session) EndTurn(ctx context.Context) error {
	st, err := s.h.sessions.Load(ctx, s.id)
	if s.lazy && errors.Is(err, ErrSessionNotFound) {
		return nil // never changed: nothing unlocked
	}
	if err != nil {
		return err
	}
	before := st.Unlocks()
	if len(before.Unlocked) == 0 {
		return nil
	}
	if st.Turn, err = s.h.sessions.CountTurn(ctx, s.id); err != nil {
		return err
	}
	v := s.h.view()
	if after := st.Unlocks(); len(after.Unlocked) == len(before.Unlocked) && len(v.Prune(after).Unlocked) == len(after.Unlocked) {
		return nil // nothing ran out, nothing is gone
	}
	_, err = s.update(ctx, func(st *SessionRecord) error {
		now := v.Prune(st.Unlocks())
		if now.Equal(st.Discovery) && st.DiscoveryTurn >= st.Turn {
			return ErrSessionUnchanged
		}
		st.SetUnlocks(now)
		return nil
	})
	return err
}

// Close ends the session and forgets its state (and what the router kept
// for it: see Release).
func (s *Session) Close(ctx context.Context) error {
	s.Release()
	return s.h.sessions.Delete(ctx, s.id)
}

// IsSearchTool reports whether name is one of the discovery search tools
// (a call of one searches and unlocks; it does not end a turn).
func (s *Session) IsSearchTool(name string) bool { return s.h.st().rules.IsSearchTool(name) }

// Call runs the tool with agent-facing name with args (a JSON object; empty
// means {}). A search tool searches and unlocks; a hidden tool called by its
// exact name is unlocked and run; read_file and search_files page saved
// results. MCP results go through the shaping chain: oversized text is
// bounded and its full payload saved in the workspace. A tool's own failure
// is a result with IsError set; an error means the call could not be made:
// an unknown tool (*UnknownToolError), a quarantined one
// (*QuarantinedToolError), a server that is down
// (*ServerUnavailableError), a crash or a timeout, or the server's JSON-RPC
// error answer (an *RPCError, wrapped). The cost does not depend on the
// catalog's size.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error) {
	r, err := s.CallWith(ctx, name, args, CallOptions{})
	return r.Result, err
}

// CallResult is the answer to a call: the tool's result, or, for a call
// with CallOptions.Task, the task the server created (its
// CreateTaskResult, raw; see tasks/get and tasks/result).
type CallResult struct {
	// Result is the tool's result; empty for a task.
	Result ToolResult
	// Task is the server's CreateTaskResult as sent (its task id as the
	// client knows it); nil for a result.
	Task json.RawMessage
	// Server and Tool name what answered, for a front end's metrics: the
	// server and its own tool name, or "plughost" and the called name for
	// what the host answers itself (a search tool, read_file,
	// search_files). Set on an error too, when the tool was known.
	Server, Tool string
	// Search is set for a call of a discovery search tool, which does not
	// end a turn.
	Search bool
}

// hostLabel is CallResult.Server for the tools the host answers itself.
const hostLabel = "plughost"

// JSON returns the answer as the client gets it: the task, or the result
// (ToolResult.JSON).
func (r CallResult) JSON() (json.RawMessage, error) {
	if r.Task != nil {
		return r.Task, nil
	}
	return r.Result.JSON()
}

// CallWith is Call with what a client's request carries besides name and
// arguments (CallOptions): its _meta (progress), task augmentation, and the
// handlers of what the server sends during the call. In a session scoped to
// one server, name is the server's own tool name and discovery does not
// apply.
//
// Every call that is not a search ends a turn (EndTurn), unless
// CallOptions.OwnTurns: a front end that cannot see a model's rounds (an
// MCP client's calls) counts each call as one. A call refused as an
// unknown or quarantined tool, or not made because the session store is
// unavailable, does not.
func (s *Session) CallWith(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (CallResult, error) {
	began := time.Now()
	r, err := s.callTool(ctx, name, args, opts)
	s.auditCall(began, args, r, err)
	r.Search = s.IsSearchTool(name)
	var unknown *UnknownToolError
	var held *QuarantinedToolError
	if r.Search || opts.OwnTurns || errors.As(err, &unknown) || errors.As(err, &held) || errors.Is(err, ErrStoreUnavailable) {
		return r, err
	}
	if err := s.EndTurn(ctx); err != nil && !errors.Is(err, ErrSessionNotFound) {
		s.h.logger.Warn("ending a turn", "session", s.id, "error", err)
	}
	return r, err
}

// callTool runs one call for CallWith; the result names what answered
// (CallResult.Server, Tool) whenever that is known.
func (s *Session) callTool(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (CallResult, error) {
	r := CallResult{Server: hostLabel, Tool: name}
	scope, rule, err := s.access(ctx)
	if err != nil {
		return r, err
	}
	if scope != "" {
		r.Server = scope
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		if tool, ok := lookup(s.h.view(), scope, name, rule); ok {
			r.Server, r.Tool = tool.Server, tool.ServerTool
		}
		return r, fmt.Errorf("tool %q: arguments must be a JSON object, like {\"key\": \"value\"}", name)
	}
	v, tool, ok, err := s.find(ctx, scope, name, rule)
	if err != nil {
		return r, err
	}
	if !ok && artifacts.IsTool(name) {
		r.Server, r.Result = hostLabel, s.h.callPaging(ctx, s.client, name, args)
		return r, nil
	}
	if !ok {
		if err := s.h.quarantinedCall(scope, name, rule.Allows); err != nil {
			var q *QuarantinedToolError
			if errors.As(err, &q) {
				r.Server, r.Tool = q.Server, q.Tool
			}
			return r, err
		}
	}
	switch {
	case scope != "" && !ok:
		return r, s.h.unknownScoped(scope, name)
	case scope == "" && v.Rules().IsSearchTool(name):
		r.Result, err = s.search(ctx, v, name, args, rule)
		return r, err
	case !ok:
		return r, s.h.unknownTool(v, name, rule)
	}
	r.Server, r.Tool = tool.Server, tool.ServerTool
	if scope == "" {
		if err := s.use(ctx, v, tool); err != nil {
			return r, err
		}
	}
	if _, err := s.h.awaitStart(ctx, tool.Server); err != nil { // restarting
		return r, s.h.unavailable(tool.Name, tool.Server, err)
	}
	call := shaping.Call{Server: tool.Server, Tool: tool.ServerTool, Name: tool.Name, Args: args, OutputSchema: tool.OutputSchema, Session: s.id, Client: s.client}
	if scope == "" {
		call.MapURI = func(u string) string { return s.h.router.ClientURI(tool.Server, u) }
	}
	if len(opts.Task) > 0 {
		task, err := s.callTask(ctx, scope, call, opts)
		task.Server, task.Tool = r.Server, r.Tool
		return task, err
	}
	f, meta := s.h.router.BeginWithMeta(s.id, scope, tool.Server, opts.Meta, opts.Handlers)
	defer s.h.router.End(f)
	call.Meta, call.OnID = meta, s.h.router.NoteID(f)
	res, err := s.h.call(ctx, call)
	if res.Size >= largeResultBytes {
		s.h.afterLargeCall()
	}
	if err != nil {
		return r, s.h.explainCallError(ctx, tool.Name, tool.Server, err)
	}
	r.Result = res.Result
	return r, nil
}

// find looks a tool up by the name the session's client calls it: the
// server's own name in a session scoped to it, else the agent-facing name
// in the discovery view. A name of a server still starting (the scope, or
// the server its mcp_<server>_ prefix names) that is not known yet waits
// for the server (awaitStart) and is looked up again; a wait that reached
// its bound is an *UnknownToolError saying so.
func (s *Session) find(ctx context.Context, scope, name string, rule access.Rule) (*discovery.View, registry.Tool, bool, error) {
	v := s.h.view()
	tool, ok := lookup(v, scope, name, rule)
	server := scope
	if server == "" && !ok && !v.Rules().IsSearchTool(name) && !artifacts.IsTool(name) {
		server = s.h.serverOfNameFor(name, rule)
	}
	if ok || server == "" {
		return v, tool, ok, nil
	}
	waited, err := s.h.awaitStart(ctx, server)
	var starting *StartTimeoutError
	if errors.As(err, &starting) {
		st, _ := s.h.Status(server)
		return v, tool, false, &UnknownToolError{Name: name, Server: server, Down: stillStarting(starting, st.LastError)}
	}
	if err != nil || !waited {
		return v, tool, false, err
	}
	v = s.h.view()
	tool, ok = lookup(v, scope, name, rule)
	return v, tool, ok, nil
}

// lookup finds a tool in v that rule allows: by the server's own name for
// a session scoped to server, else by agent-facing name. A tool the rule
// does not allow is not found, exactly like a name no tool has.
func lookup(v *discovery.View, scope, name string, rule access.Rule) (registry.Tool, bool) {
	var t registry.Tool
	var ok bool
	if scope != "" {
		t, ok = serverTool(v.Snapshot(), scope, name)
	} else {
		t, ok = v.Lookup(name)
	}
	if !ok || !rule.Allows(t.Server, t.Name) {
		return registry.Tool{}, false
	}
	return t, true
}

// search runs a search tool and unlocks what it found.
func (s *Session) search(ctx context.Context, v *discovery.View, name string, args json.RawMessage, rule access.Rule) (ToolResult, error) {
	var keep func(registry.Tool) bool
	if rule.IsLimited() {
		keep = func(t registry.Tool) bool { return rule.Allows(t.Server, t.Name) }
	}
	text, isError, found := v.SearchFor(name, args, keep)
	if len(found) > 0 {
		newly := 0
		_, err := s.update(ctx, func(st *SessionRecord) error {
			cur := st.Unlocks()
			next := v.Unlock(cur, found)
			if next.Equal(cur) {
				return ErrSessionUnchanged
			}
			newly = 0
			for _, n := range found {
				if !cur.IsUnlocked(n) {
					newly++
				}
			}
			st.SetUnlocks(next)
			return nil
		})
		if err != nil {
			return ToolResult{}, fmt.Errorf("%s: %w", name, err)
		}
		s.h.unlocks.Add(int64(newly))
	}
	res := callresult.NewTextResult(text)
	res.IsError = isError
	return res, nil
}

// use records that the model called tool by name: a hidden tool is
// unlocked, an unlocked one renewed.
func (s *Session) use(ctx context.Context, v *discovery.View, tool registry.Tool) error {
	if !v.Rules().Hidden(tool) {
		return nil
	}
	unlocked := false
	_, err := s.update(ctx, func(st *SessionRecord) error {
		cur := st.Unlocks()
		next, now := v.Use(cur, tool)
		if next.Equal(cur) {
			return ErrSessionUnchanged
		}
		st.SetUnlocks(next)
		unlocked = now
		return nil
	})
	if err != nil {
		return fmt.Errorf("tool %q: %w", tool.Name, err)
	}
	if unlocked {
		s.h.unlocks.Add(1)
	}
	return nil
}
