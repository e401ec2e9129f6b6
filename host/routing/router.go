package routing

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/naming"
	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/rawjson"
)

// Router ties what servers send on their own to client sessions (see
// docs/gateway.md, "Routing to the client"). A shared upstream connection
// serves all sessions, so the router keeps what tells sessions apart: the
// requests in flight to each server (which session made them, the
// handlers of their channel, their progress tokens), the tasks sessions
// created, the resources they subscribed to, the log level each asked for,
// and the handlers of sessions that can take messages outside a request.
// It also keeps each server's catalog of resources and prompts, which
// routes URIs and prompt names. It implements supervisor.Router. Safe for
// concurrent use; its state lives in this process only (the connections do
// too).
type Router struct {
	servers Servers
	logger  hclog.Logger
	seq     atomic.Uint64 // numbers progress tokens

	mu          sync.Mutex
	clients     map[string]*client          // sessions with handlers, by id
	levels      map[string]sessionLevel     // log levels sessions set, by id
	flights     map[string]map[*Flight]bool // requests in flight, by server
	tokens      map[string]*Flight          // by the progress token the server got, in flight or ended (ended)
	ended       map[string][]string         // per session: tokens of its answered requests still honoured, oldest first
	tasks       map[taskKey]*TaskRecord     // tasks sessions created
	subs        map[subKey]map[string]bool  // resource subscriptions: session ids
	elicits     map[taskKey]string          // URL elicitations in progress: session id
	applied     map[string]string           // the log level set at each server
	levelTurns  map[string]*levelTurn       // setting a server's log level takes turns (applyLevel); only while in use
	catalogs    map[string]*serverCatalog   // resources and prompts, by server
	promptNames *naming.Table               // names of every known prompt

	// Tasks being created (tasks.go): the task-augmented calls in flight,
	// by server, and the status notifications of tasks none of them named
	// yet (earlyN in all). Made on first use.
	creations map[string]map[*TaskCreation]bool
	early     map[taskKey][]json.RawMessage
	earlyN    int

	// Replicas (replicas.go): this one's id in task ids, and the handlers
	// of sessions whose client is reached through another replica.
	replica   string
	elsewhere func(session string) (scope string, h *ClientHandlers, ok bool)
}

var _ supervisor.Router = (*Router)(nil)

// What the router keeps per server goes when the server stops running
// (ForgetServer): the maps above keyed by a server hold running servers
// only. Three things are left out on purpose: flights (and their tokens)
// belong to their request, which removes them when it ends (End is
// deferred by every caller); levelTurns holds a server's turn only while
// some applyLevel holds or waits for it; clients and levels are by
// session, and so are the progress tokens of answered requests (ended,
// at most progressKept per session). What a server's goroutines still
// running after it stopped (a Connected, a request it sent) would record
// is refused: catalog, applyLevel, Request and RecordTask check that the
// server runs, under mu, so a record is either made before ForgetServer
// drops it or not made.

// client is a session whose client takes messages outside its requests.
type client struct {
	id, scope string
	handlers  ClientHandlers
}

// sessionLevel is the log level a session asked for, and its scope.
type sessionLevel struct{ level, scope string }

// Flight is one request of a session in flight to a server (Begin).
type Flight struct {
	session, scope, server string
	handlers               *ClientHandlers // the request's own; nil: the session's
	clientToken            json.RawMessage // the client's progressToken, nil if none
	serverToken            string          // the token the server got
	upstreamID             string          // its JSON-RPC id at the server, once sent (under Router.mu)
	began                  time.Time
}

// NoteID returns the function that records f's id at the server when the
// request is sent (supervisor.Request.OnID).
func (r *Router) NoteID(f *Flight) func(id string) {
	return func(id string) {
		r.mu.Lock()
		f.upstreamID = id
		r.mu.Unlock()
	}
}

// taskKey names a server's task (or a server's elicitation).
type taskKey struct{ server, id string }

// TaskRecord is a task a session created.
type TaskRecord struct {
	// Call is the tools/call behind it, for shaping its result (nil: none).
	Call *shaping.Call

	session, scope string
	created        time.Time
	// Its status notifications, delivered in order by one goroutine at a
	// time (flushStatuses); creating is the call that created it while that
	// call is still answering (its channel carries them until then).
	creating *TaskCreation
	queued   []json.RawMessage
	flushing bool
}

// subKey names a resource of a server.
type subKey struct{ server, uri string }

// New returns a router of the sessions of a host with the given servers,
// logging to logger.
func New(servers Servers, logger hclog.Logger) *Router {
	return &Router{
		servers: servers, logger: logger,
		clients: map[string]*client{}, levels: map[string]sessionLevel{},
		flights: map[string]map[*Flight]bool{}, tokens: map[string]*Flight{}, ended: map[string][]string{},
		tasks: map[taskKey]*TaskRecord{}, subs: map[subKey]map[string]bool{},
		elicits: map[taskKey]string{}, applied: map[string]string{}, levelTurns: map[string]*levelTurn{},
		catalogs: map[string]*serverCatalog{},
	}
}

// SetHandlers sets what the client of session id, of scope (a server's
// name, "" for the aggregate endpoint), does for the servers.
func (r *Router) SetHandlers(id, scope string, c ClientHandlers) {
	r.mu.Lock()
	r.clients[id] = &client{id: id, scope: scope, handlers: c}
	r.mu.Unlock()
}

// ClearHandlers removes the handlers of session id.
func (r *Router) ClearHandlers(id string) {
	r.mu.Lock()
	delete(r.clients, id)
	r.mu.Unlock()
}

// Release forgets an ended session; subscriptions only it held are
// cancelled at their servers in the background.
func (r *Router) Release(id string) {
	r.mu.Lock()
	delete(r.clients, id)
	_, hadLevel := r.levels[id]
	delete(r.levels, id)
	for _, token := range r.ended[id] {
		delete(r.tokens, token)
	}
	delete(r.ended, id)
	for k, t := range r.tasks {
		if t.session == id {
			delete(r.tasks, k)
		}
	}
	for k, s := range r.elicits {
		if s == id {
			delete(r.elicits, k)
		}
	}
	var drop []subKey
	for k, sessions := range r.subs {
		if sessions[id] {
			delete(sessions, id)
			if len(sessions) == 0 {
				delete(r.subs, k)
				drop = append(drop, k)
			}
		}
	}
	r.mu.Unlock()
	if len(drop) == 0 && !hadLevel {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, k := range drop {
			r.upstream(ctx, k.server, "resources/unsubscribe", uriParams(k.uri))
		}
		if hadLevel {
			r.applyLevels(ctx, "")
		}
	}()
}

// Begin records a request of session to server and returns the params to
// send: a progressToken in params._meta is replaced by one of plughost's.
// h are the request's own handlers (nil: the session's). End it with End.
func (r *Router) Begin(session, scope, server string, params json.RawMessage, h *ClientHandlers) (*Flight, json.RawMessage) {
	f := &Flight{session: session, scope: scope, server: server, handlers: h, began: time.Now()}
	if start, end, ok := rawjson.Member(params, "_meta", "progressToken"); ok {
		f.clientToken = append(json.RawMessage(nil), params[start:end]...)
		f.serverToken = "plughost-progress-" + strconv.FormatUint(r.seq.Add(1), 10)
		params, _ = rawjson.Replace(params, []byte(strconv.Quote(f.serverToken)), "_meta", "progressToken")
	}
	r.mu.Lock()
	set := r.flights[server]
	if set == nil {
		set = map[*Flight]bool{}
		r.flights[server] = set
	}
	set[f] = true
	if f.serverToken != "" {
		r.tokens[f.serverToken] = f
	}
	r.mu.Unlock()
	return f, params
}

// BeginWithMeta is Begin for a request whose _meta travels apart from its
// params (tools/call): it returns the _meta to send.
func (r *Router) BeginWithMeta(session, scope, server string, meta json.RawMessage, h *ClientHandlers) (*Flight, json.RawMessage) {
	if len(meta) == 0 {
		f, _ := r.Begin(session, scope, server, nil, h)
		return f, nil
	}
	wrapped := append(append([]byte(`{"_meta":`), meta...), '}')
	f, out := r.Begin(session, scope, server, wrapped, h)
	start, end, _ := rawjson.Member(out, "_meta")
	return f, out[start:end]
}

// progressKept is how many answered requests of one session keep their
// progress token honoured: a server may write its notifications and its
// answer from different goroutines (mcp-go's stdio server does), so
// progress it sent first can arrive after the answer — a moment later,
// however loaded the machine. Bounded by count, not by time: a token is
// forgotten when the session's progressKept newer requests with tokens
// were answered (oldest first), or when the session ends (Release).
const progressKept = 32

// End forgets a request that got its answer; its progress token stays
// honoured among the session's progressKept most recently answered.
func (r *Router) End(f *Flight) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.flights[f.server], f)
	if len(r.flights[f.server]) == 0 {
		delete(r.flights, f.server)
	}
	if f.serverToken == "" {
		return
	}
	kept := append(r.ended[f.session], f.serverToken)
	if len(kept) > progressKept {
		delete(r.tokens, kept[0])
		kept = append(kept[:0], kept[1:]...)
	}
	r.ended[f.session] = kept
}

// target is where a routed message goes.
type target struct {
	session, scope string
	handlers       *ClientHandlers
}

// cause finds the session a message of server belongs to, in order: the
// request the transport says it was sent during (related, "" when
// unknown), else the task named by its related-task _meta, else the one
// session with requests in flight to the server (its newest request's
// channel), else the one session in this process that takes messages. ok is
// false when no session or several could be the cause; why says which.
func (r *Router) cause(server, related string, params json.RawMessage) (t target, ok bool, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if related != "" {
		for f := range r.flights[server] {
			if f.upstreamID == related {
				t = r.sessionTarget(f.session)
				if f.handlers != nil {
					t.handlers = f.handlers
				}
				return t, true, ""
			}
		}
	}
	if id, found := rawjson.String(params, "_meta", "io.modelcontextprotocol/related-task", "taskId"); found {
		if rec := r.tasks[taskKey{server, id}]; rec != nil {
			return r.sessionTarget(rec.session), true, ""
		}
	}
	var newest *Flight
	sessions := map[string]bool{}
	for f := range r.flights[server] {
		sessions[f.session] = true
		if newest == nil || f.began.After(newest.began) {
			newest = f
		}
	}
	switch {
	case len(sessions) == 1:
		t = r.sessionTarget(newest.session)
		if newest.handlers != nil {
			t.handlers = newest.handlers
		}
		return t, true, ""
	case len(sessions) > 1:
		return target{}, false, fmt.Sprintf("%d client sessions have requests in flight to server %q, and nothing in the message tells which one caused it", len(sessions), server)
	case len(r.clients) == 1:
		for id := range r.clients {
			return r.sessionTarget(id), true, ""
		}
	}
	return target{}, false, fmt.Sprintf("no client session has a request in flight to server %q", server)
}

// sessionTarget is the session's own channel. Callers hold r.mu.
func (r *Router) sessionTarget(id string) target {
	t := target{session: id}
	if c := r.clients[id]; c != nil {
		t.scope, t.handlers = c.scope, &c.handlers
		return t
	}
	if l, ok := r.levels[id]; ok {
		t.scope = l.scope
	}
	if r.elsewhere != nil {
		if scope, h, ok := r.elsewhere(id); ok {
			t.scope, t.handlers = scope, h
		}
	}
	return t
}

// Request answers a server→client request of a shared connection through
// the session that caused it, or -32601 when none can. roots/list is
// answered with the server's configured roots: a client's roots never
// reach a connection other clients share (see ForSession for a session's
// own connection).
func (r *Router) Request(ctx context.Context, server string, req supervisor.ServerRequest) (json.RawMessage, error) {
	if req.Method == "roots/list" {
		return r.servers.Roots(server), nil
	}
	return r.recorded(ctx, server, req, func() (target, error) {
		t, ok, why := r.cause(server, req.Related, req.Params)
		if !ok {
			return t, &RPCError{Code: codeMethodNotFound, Message: fmt.Sprintf("plughost cannot route %s: %s", req.Method, why)}
		}
		return t, nil
	})
}

// recorded answers req through the target find picks and tells the host
// of the answer (Servers.Answered).
func (r *Router) recorded(ctx context.Context, server string, req supervisor.ServerRequest, find func() (target, error)) (json.RawMessage, error) {
	rec := Answer{Server: server, Method: req.Method, Params: req.Params, Began: time.Now()}
	t, err := find()
	if rec.Err = err; err == nil {
		rec.Session = t.session
		rec.Result, rec.Err = r.answer(ctx, server, t, req, &rec)
	}
	rec.Took = time.Since(rec.Began)
	r.servers.Answered(rec)
	return rec.Result, rec.Err
}

// answer has t's handlers answer a server request, within the server's
// call timeout; -32601 when they cannot. It notes in rec whether the
// request reached a client.
func (r *Router) answer(ctx context.Context, server string, t target, req supervisor.ServerRequest, rec *Answer) (json.RawMessage, error) {
	method, params := req.Method, req.Params
	var h RequestHandler
	if t.handlers != nil {
		switch method {
		case "sampling/createMessage":
			h = t.handlers.Sampling
		case "elicitation/create":
			h = t.handlers.Elicitation
		case "roots/list":
			h = t.handlers.Roots
		}
	}
	if h == nil {
		return nil, &RPCError{Code: codeMethodNotFound, Message: fmt.Sprintf("the client of the session that caused this request does not support %s", method)}
	}
	if method == "elicitation/create" {
		if id, ok := rawjson.String(params, "elicitationId"); ok {
			r.mu.Lock()
			if r.runs(server) {
				r.elicits[taskKey{server, id}] = t.session
			}
			r.mu.Unlock()
		}
	}
	if limit := r.servers.CallTimeout(server); limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	rec.Routed = true
	return h(ctx, ServerRequest{Server: server, Method: method, Params: params})
}

// Connected restores what sessions set on the server's previous connection
// (log level, subscriptions) and refreshes its catalog.
func (r *Router) Connected(server string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.mu.Lock()
	var uris []string
	for k := range r.subs {
		if k.server == server {
			uris = append(uris, k.uri)
		}
	}
	r.mu.Unlock()
	r.catalog(server).invalidate()
	r.applyLevels(ctx, server)
	sort.Strings(uris)
	for _, uri := range uris {
		r.upstream(ctx, server, "resources/subscribe", uriParams(uri))
	}
	if caps, ok := r.servers.Capabilities(server); ok && caps.Resources != nil {
		if _, err := r.Resources(ctx, server); err != nil {
			r.logger.Debug("listing resources after connect", "server", server, "error", err)
		}
	}
}

// upstream sends a request of plughost's own to a server, logging a failure.
func (r *Router) upstream(ctx context.Context, server, method string, params json.RawMessage) {
	srv, ok := r.servers.Server(server)
	if !ok {
		return
	}
	if _, err := srv.Request(ctx, method, params); err != nil {
		r.logger.Warn("request to server failed", "server", server, "method", method, "error", err)
	}
}

func uriParams(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": uri}) // a string always encodes
	return b
}

// deliver hands n to t's handlers, if it has any.
func deliver(t target, n Notification) {
	if t.handlers != nil && t.handlers.Notify != nil {
		t.handlers.Notify(n)
	}
}

// Notification routes one notification of a server (see the rules in
// docs/gateway.md). It never blocks on a session.
func (r *Router) Notification(server, method string, params json.RawMessage) {
	switch method {
	case "notifications/progress":
		r.progress(server, params)
	case "notifications/message":
		r.logMessage(server, params)
	case "notifications/resources/updated":
		r.resourceUpdated(server, params)
	case "notifications/resources/list_changed":
		r.catalog(server).invalidateResources()
		r.broadcast(server, method, params)
	case "notifications/prompts/list_changed":
		r.catalog(server).invalidatePrompts()
		r.broadcast(server, method, params)
	case "notifications/tasks/status":
		r.taskStatus(server, params)
	case "notifications/tools/list_changed", "notifications/cancelled":
		// tools: the supervisor re-lists and sessions learn it from their
		// list's fingerprint; cancelled: it ended the server's own request.
	case "notifications/elicitation/complete":
		r.elicitationComplete(server, params)
	default:
		if t, ok, _ := r.cause(server, "", params); ok {
			deliver(t, Notification{Server: server, Method: method, Params: params})
		} else {
			r.logger.Debug("dropping a notification no session can be tied to", "server", server, "method", method)
		}
	}
}

// progress goes to the request whose token the server got, with the
// client's token back in place.
func (r *Router) progress(server string, params json.RawMessage) {
	start, end, ok := rawjson.Member(params, "progressToken")
	if !ok {
		return
	}
	var token string
	if json.Unmarshal(params[start:end], &token) != nil {
		return
	}
	r.mu.Lock()
	f := r.tokens[token]
	var t target
	if f != nil {
		t = r.sessionTarget(f.session)
		if f.handlers != nil {
			t.handlers = f.handlers
		}
	}
	r.mu.Unlock()
	if f == nil || f.server != server {
		r.logger.Debug("dropping progress for no request in flight", "server", server)
		return
	}
	out, _ := rawjson.Replace(params, f.clientToken, "progressToken")
	deliver(t, Notification{Server: server, Method: "notifications/progress", Params: out})
}

// broadcast sends a notification to every session taking messages whose
// scope includes server.
func (r *Router) broadcast(server, method string, params json.RawMessage) {
	r.mu.Lock()
	var ts []target
	for _, c := range r.clients {
		if c.scope == "" || c.scope == server {
			ts = append(ts, target{session: c.id, scope: c.scope, handlers: &c.handlers})
		}
	}
	r.mu.Unlock()
	for _, t := range ts {
		deliver(t, Notification{Server: server, Method: method, Params: params})
	}
}

// elicitationComplete goes to the session that was asked.
func (r *Router) elicitationComplete(server string, params json.RawMessage) {
	id, _ := rawjson.String(params, "elicitationId")
	r.mu.Lock()
	session, ok := r.elicits[taskKey{server, id}]
	delete(r.elicits, taskKey{server, id})
	var t target
	if ok {
		t = r.sessionTarget(session)
	}
	r.mu.Unlock()
	if !ok {
		var found bool
		if t, found, _ = r.cause(server, "", params); !found {
			return
		}
	}
	deliver(t, Notification{Server: server, Method: "notifications/elicitation/complete", Params: params})
}

// ClientTaskID is a server's task id as a session of the aggregate
// endpoint knows it: the server name, percent-encoded (no "/" left), a
// slash, the server's id.
func ClientTaskID(server, id string) string { return resourceuri.EscapeServer(server) + "/" + id }

// ServerTaskID reverses ClientTaskID.
func ServerTaskID(clientID string) (server, id string, ok bool) {
	enc, id, found := strings.Cut(clientID, "/")
	if !found {
		return "", "", false
	}
	server, err := url.PathUnescape(enc)
	return server, id, err == nil && server != ""
}

// runs reports whether server is running in the current state: the router
// keeps state for running servers only. Callers hold r.mu.
func (r *Router) runs(server string) bool {
	return r.servers.Running(server)
}

// ForgetServer drops what the router keeps for a server that stopped
// running (removed from the config, disabled or invalid): its log level,
// catalog, subscriptions, tasks and elicitations, and the prompt names (a
// server's prompts can rename another's). A server of that name added
// again starts clean. Call it after the state without the server is
// published, so that nothing is recorded for it afterwards (runs).
func (r *Router) ForgetServer(server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.applied, server)
	delete(r.catalogs, server)
	r.promptNames = nil
	for k := range r.subs {
		if k.server == server {
			delete(r.subs, k)
		}
	}
	for k := range r.tasks {
		if k.server == server {
			delete(r.tasks, k)
		}
	}
	for k := range r.elicits {
		if k.server == server {
			delete(r.elicits, k)
		}
	}
}

// InFlight returns how many requests of sessions are in flight to server.
func (r *Router) InFlight(server string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.flights[server])
}

// Logger returns the router's logger, which the host also logs its
// routing of sessions' requests to.
func (r *Router) Logger() hclog.Logger { return r.logger }

// SetPromptNames keeps the names of every known prompt on the aggregate
// endpoint (the host lists them); ForgetServer drops them.
func (r *Router) SetPromptNames(t *naming.Table) {
	r.mu.Lock()
	r.promptNames = t
	r.mu.Unlock()
}

// PromptNames returns the prompt names last kept (nil: none).
func (r *Router) PromptNames() *naming.Table {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.promptNames
}

// Kept names what the router keeps by the name of server: "applied" (its
// log level), "catalog", "elicitation", "flight", "level turn",
// "subscription" and "task", each once, in no order. A server that stopped
// running has none of them (ForgetServer) once its requests ended.
func (r *Router) Kept(server string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, applied := r.applied[server]
	_, catalog := r.catalogs[server]
	_, turn := r.levelTurns[server]
	has := map[string]bool{"applied": applied, "catalog": catalog, "level turn": turn,
		"flight": len(r.flights[server]) > 0}
	for k := range r.subs {
		has["subscription"] = has["subscription"] || k.server == server
	}
	for k := range r.tasks {
		has["task"] = has["task"] || k.server == server
	}
	for k := range r.elicits {
		has["elicitation"] = has["elicitation"] || k.server == server
	}
	var out []string
	for what, ok := range has {
		if ok {
			out = append(out, what)
		}
	}
	return out
}
