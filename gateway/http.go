package gateway

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/host"
)

// MCPPath is where the streamable-HTTP MCP endpoint is mounted.
const MCPPath = "/mcp"

// ServerPattern is where the per-server endpoints are mounted
// (http.ServeMux syntax): /servers/<name>/mcp serves one server alone.
const ServerPattern = "/servers/{name}/mcp"

// Streamable-HTTP headers (MCP 2025-11-25).
const (
	sessionHeader  = "Mcp-Session-Id"
	protocolHeader = "Mcp-Protocol-Version"
)

// keepAliveEvery is how often an idle event stream gets a comment line, so
// proxies do not cut it and a vanished client is noticed.
const keepAliveEvery = 25 * time.Second

// URL is the client-facing MCP URL of a listener address: an unspecified
// host (all interfaces) is shown as 127.0.0.1.
func URL(addr net.Addr) string {
	h, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + MCPPath
	}
	if ip := net.ParseIP(h); h == "" || (ip != nil && ip.IsUnspecified()) {
		h = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(h, port) + MCPPath
}

// HTTPHandler returns the streamable-HTTP transport (MCP 2025-11-25) of the
// gateway, to mount at MCPPath behind the front door (which owns the
// listener, authentication and limits). POST carries one JSON-RPC message
// and is answered with JSON, or with an event stream when messages go out
// before the response; GET opens the session's stream for server-initiated
// messages; DELETE ends the session. The session id is issued at
// initialize and checked against the host's session store on every
// request, so no session state lives only in this process. Run must run
// beside it for list_changed to reach GET streams.
func (g *Gateway) HTTPHandler() http.Handler { return g.HTTPHandlerFor("") }

// HTTPHandlerFor is HTTPHandler for the requests of a configured client
// (tools.mcp.gateway.clients; "" for the administrator), which the front
// door recognized by its token: its sessions belong to it (a session id is
// good only with the token of the client that opened it) and see only
// what its entry allows.
func (g *Gateway) HTTPHandlerFor(client string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.serveHTTP(w, r, "", client) })
}

// ServerHTTPHandler returns the per-server endpoints, to mount at
// ServerPattern: /servers/<name>/mcp serves the server <name> alone, as if
// the client were connected to it — its own tool, prompt and resource names,
// its own capabilities and serverInfo — through the same supervision,
// shaping, sessions and limits as /mcp. A name that is not a running
// server is 404.
func (g *Gateway) ServerHTTPHandler() http.Handler { return g.ServerHTTPHandlerFor("") }

// ServerHTTPHandlerFor is ServerHTTPHandler for the requests of a
// configured client ("" for the administrator): a server outside the
// client's servers answers 403, whether it exists or not.
func (g *Gateway) ServerHTTPHandlerFor(client string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		if !g.clientMayUse(w, client, name) {
			return
		}
		if _, ok := g.h.Server(name); !ok || name == "" {
			httpError(w, http.StatusNotFound, &rpcError{Code: codeInvalidRequest,
				Message: fmt.Sprintf("no running server %q: /servers/<name>/mcp serves one configured, enabled server (see plughost mcp list)", name)})
			return
		}
		g.serveHTTP(w, r, name, client)
	})
}

func (g *Gateway) serveHTTP(w http.ResponseWriter, r *http.Request, scope, client string) {
	switch r.Method {
	case http.MethodPost:
		g.post(w, r, scope, client)
	case http.MethodGet:
		g.get(w, r, scope, client)
	case http.MethodDelete:
		g.delete(w, r, scope, client)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, &rpcError{Code: codeInvalidRequest, Message: "method not allowed: use POST, GET or DELETE"})
	}
}

// httpError answers with status and a JSON-RPC error of id null.
func httpError(w http.ResponseWriter, status int, e *rpcError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(encodeError(nil, e)) // the client went away: nothing to do
}

func (g *Gateway) post(w http.ResponseWriter, r *http.Request, scope, client string) {
	if !checkVersionHeader(w, r) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.opts.MaxMessageBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, &rpcError{Code: codeInvalidRequest,
				Message: fmt.Sprintf("request body exceeds %d bytes (tools.mcp.gateway.max_request_mb)", tooBig.Limit)})
			return
		}
		httpError(w, http.StatusBadRequest, &rpcError{Code: codeParseError, Message: "reading the request body: " + err.Error()})
		return
	}
	if isBatch(body) {
		g.postBatch(w, r, scope, client, body)
		return
	}
	msg, k, perr := parseMessage(body)
	if perr != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(encodeError(nil, perr))
		return
	}
	ctx := r.Context()
	var sess *host.Session
	if k == kindRequest && msg.Method == "initialize" {
		if sess, err = g.h.CreateSession(ctx, host.SessionRecord{Scope: scope, ClientName: client}); err != nil {
			sessionError(w, err)
			return
		}
		w.Header().Set(sessionHeader, sess.ID())
	} else if sess = g.sessionOf(w, r, scope, client); sess == nil {
		return
	}
	x := &exchange{g: g, msg: msg, sess: sess}
	switch k {
	case kindNotification:
		g.serveNotification(ctx, x)
		w.WriteHeader(http.StatusAccepted)
	case kindResponse:
		if !g.answered(sess.ID(), msg) && !g.forwardResponse(ctx, sess.ID(), msg, body) {
			g.logger.Debug("a client's response matches no request of the gateway", "session", sess.ID(), "id", string(msg.ID))
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		x.out = newHTTPSink(w, accepts(r, "text/event-stream"))
		if run, ok := g.admit(ctx, x); ok {
			run()
		}
	}
}

// sessionOf returns the session named by the request's Mcp-Session-Id,
// or answers 400 (no id) or 404 (unknown or expired, or a session of
// another endpoint or another client's: initialize again).
func (g *Gateway) sessionOf(w http.ResponseWriter, r *http.Request, scope, client string) *host.Session {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		httpError(w, http.StatusBadRequest, &rpcError{Code: codeInvalidRequest,
			Message: "missing " + sessionHeader + " header: send initialize first and then the session id it returned"})
		return nil
	}
	sess, st, err := g.h.OpenSession(r.Context(), id)
	if err == nil && (st.Scope != scope || st.ClientName != client) {
		err = host.ErrSessionNotFound // a session id is good for the endpoint and the client that opened it
	}
	if errors.Is(err, host.ErrSessionNotFound) {
		httpError(w, http.StatusNotFound, errSessionNotFound)
		return nil
	}
	if err != nil {
		storeError(w, err)
		return nil
	}
	if g.rs != nil { // what the record says, read anyway: no extra round trip
		g.rs.note(id, st)
		sess.AdoptLogLevel(r.Context(), st)
	}
	return sess
}

// clientMayUse answers 403 unless client ("" for the administrator) may
// use server.
func (g *Gateway) clientMayUse(w http.ResponseWriter, client, server string) bool {
	rule, err := g.h.ClientRule(client)
	if err == nil && rule.AllowsServer(server) {
		return true
	}
	httpError(w, http.StatusForbidden, &rpcError{Code: codeInvalidRequest,
		Message: fmt.Sprintf("client %q may not use server %q: it is not among the servers of the client's entry in tools.mcp.gateway.clients; "+
			"use /mcp for the client's servers, or ask the administrator to add this one to the entry", client, server)})
	return false
}

// sessionError answers a failure to create a session: 403 when the
// session's client may not have it, else as a store failure.
func sessionError(w http.ResponseWriter, err error) {
	if errors.Is(err, host.ErrClientGone) {
		httpError(w, http.StatusForbidden, &rpcError{Code: codeInvalidRequest, Message: err.Error()})
		return
	}
	storeError(w, err)
}

// storeError answers 503 when the session store failed (down or slow, its
// error names it): the client may retry the same request in a moment.
func storeError(w http.ResponseWriter, err error) {
	w.Header().Set("Retry-After", "1")
	httpError(w, http.StatusServiceUnavailable, &rpcError{Code: codeInternalError, Message: err.Error()})
}

// checkVersionHeader refuses an MCP-Protocol-Version the gateway does not
// speak (400, as the spec says); an absent header is fine.
func checkVersionHeader(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get(protocolHeader)
	if v == "" || slices.Contains(protocolVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, &rpcError{Code: codeInvalidRequest,
		Message: fmt.Sprintf("unsupported %s %q; supported: %s", protocolHeader, v, strings.Join(protocolVersions, ", "))})
	return false
}

// accepts reports whether the request's Accept header admits mediaType
// (an absent header admits everything).
func accepts(r *http.Request, mediaType string) bool {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			t, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if t == mediaType || t == "*/*" || t == strings.SplitN(mediaType, "/", 2)[0]+"/*" {
				return true
			}
		}
	}
	return false
}

// get opens the session's event stream for server-initiated messages.
func (g *Gateway) get(w http.ResponseWriter, r *http.Request, scope, client string) {
	if !checkVersionHeader(w, r) {
		return
	}
	if !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, &rpcError{Code: codeInvalidRequest, Message: "GET opens an event stream: send Accept: text/event-stream"})
		return
	}
	sess := g.sessionOf(w, r, scope, client)
	if sess == nil {
		return
	}
	rc := http.NewResponseController(w)
	st := g.attach(sess.ID())
	sess.SetHandlers(g.handlers(sess.ID(), streamChannel{g, sess.ID()}))
	if g.rs != nil {
		g.claimStream(r.Context(), sess.ID())
	}
	defer func() {
		if g.detach(st) == 0 {
			sess.ClearHandlers() // nothing outside a request can reach the client now
			if g.rs != nil {
				g.releaseStream(sess.ID())
			}
		}
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	g.announce(r.Context(), sess, nil) // a change since the client's last request
	tick := time.NewTicker(keepAliveEvery)
	defer tick.Stop()
	for {
		select {
		case msg := <-st.queue:
			if writeEvent(w, msg) != nil || rc.Flush() != nil {
				return
			}
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-st.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// delete ends the session.
func (g *Gateway) delete(w http.ResponseWriter, r *http.Request, scope, client string) {
	sess := g.sessionOf(w, r, scope, client)
	if sess == nil {
		return
	}
	if err := sess.Close(r.Context()); err != nil {
		storeError(w, err)
		return
	}
	g.endStreams(sess.ID())
	w.WriteHeader(http.StatusNoContent)
}

// httpSink answers a POSTed request: plain JSON, or an event stream once a
// message goes out before the response (when the client accepts one).
type httpSink struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	rc        *http.ResponseController
	canStream bool
	streaming bool
}

func newHTTPSink(w http.ResponseWriter, canStream bool) *httpSink {
	return &httpSink{w: w, rc: http.NewResponseController(w), canStream: canStream}
}

// canNotify reports whether the request's client takes messages ahead of
// the response (it accepts an event stream).
func (s *httpSink) canNotify() bool { return s.canStream }

func (s *httpSink) notify(msg []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.canStream {
		return false
	}
	if !s.streaming {
		s.streaming = true
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
	}
	if writeEvent(s.w, msg) == nil {
		_ = s.rc.Flush()
	}
	return true
}

func (s *httpSink) respond(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streaming {
		_ = writeEvent(s.w, msg)
		return
	}
	s.w.Header().Set("Content-Type", "application/json")
	_, _ = s.w.Write(msg) // the client went away: nothing to do
}

// respondAll sends the responses to a batch: as events when the answer
// is an event stream already, else as one JSON array.
func (s *httpSink) respondAll(msgs [][]byte) {
	s.mu.Lock()
	streaming := s.streaming
	s.mu.Unlock()
	if !streaming {
		s.respond(encodeBatch(msgs))
		return
	}
	for _, m := range msgs {
		s.respond(m)
	}
}

// writeEvent writes one server-sent event carrying a JSON-RPC message.
// Messages never contain a raw newline (definitions are compacted), but
// split defensively: SSE joins data lines with newlines, which JSON
// tolerates as whitespace.
func writeEvent(w io.Writer, msg []byte) error {
	var b strings.Builder
	b.Grow(len(msg) + 24)
	b.WriteString("event: message\n")
	for _, part := range strings.Split(string(msg), "\n") {
		b.WriteString("data: ")
		b.WriteString(part)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
