package routing

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/rawjson"
)

// SessionRouter is the supervisor.Router of a connection opened for one
// session alone (a server with isolation "session"): everything the
// server sends on it goes to that session and no other, with no guessing
// of the cause, and its roots/list is answered by the session's own
// client. Make it with ForSession and Bind it to its connection before
// the connection runs.
type SessionRouter struct {
	r       *Router
	session string
	conn    *supervisor.Server
}

var _ supervisor.Router = (*SessionRouter)(nil)

// ForSession returns the router of a connection of session's own.
func (r *Router) ForSession(session string) *SessionRouter {
	return &SessionRouter{r: r, session: session}
}

// Bind ties the router to its connection, on which Connected restores the
// session's log level. Call it before the connection runs.
func (sr *SessionRouter) Bind(conn *supervisor.Server) { sr.conn = conn }

// target is the session's channel for a message of server: that of the
// session's request it was sent during (related), else of its newest
// request in flight, else the session's own. The cause is never in
// doubt: only this session's requests travel on the connection.
func (sr *SessionRouter) target(server, related string) target {
	r := sr.r
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.sessionTarget(sr.session)
	var newest, exact *Flight
	for f := range r.flights[server] {
		if f.session != sr.session || f.handlers == nil {
			continue
		}
		if related != "" && f.upstreamID == related {
			exact = f
		}
		if newest == nil || f.began.After(newest.began) {
			newest = f
		}
	}
	switch {
	case exact != nil:
		t.handlers = exact.handlers
	case newest != nil:
		t.handlers = newest.handlers
	}
	return t
}

// Request answers a server request through the session's client: roots
// included, since the connection is the session's alone.
func (sr *SessionRouter) Request(ctx context.Context, server string, req supervisor.ServerRequest) (json.RawMessage, error) {
	return sr.r.recorded(ctx, server, req, func() (target, error) { return sr.target(server, req.Related), nil })
}

// Notification routes a notification of the session's connection to the
// session: progress by its token (of this session's requests only), log
// messages at the level the session asked for, everything else as sent.
func (sr *SessionRouter) Notification(server, method string, params json.RawMessage) {
	r := sr.r
	switch method {
	case "notifications/progress":
		sr.progress(server, params)
		return
	case "notifications/tools/list_changed", "notifications/cancelled":
		return
	case "notifications/message":
		level, _ := rawjson.String(params, "level")
		r.mu.Lock()
		l, set := r.levels[sr.session]
		r.mu.Unlock()
		if set && levelRank(level) < levelRank(l.level) {
			return
		}
	}
	t := sr.target(server, "")
	if t.scope == "" {
		switch method {
		case "notifications/message":
			params = withLogger(server, params)
		case "notifications/resources/updated":
			if uri, ok := rawjson.String(params, "uri"); ok {
				if own := r.ClientURI(server, uri); own != uri {
					params, _ = rawjson.Replace(params, []byte(strconv.Quote(own)), "uri")
				}
			}
		}
	}
	deliver(t, Notification{Server: server, Method: method, Params: params})
}

// progress is Router.progress for the session's own requests.
func (sr *SessionRouter) progress(server string, params json.RawMessage) {
	token, ok := rawjson.String(params, "progressToken")
	if !ok {
		return
	}
	r := sr.r
	r.mu.Lock()
	f := r.tokens[token]
	r.mu.Unlock()
	if f == nil || f.session != sr.session || f.server != server {
		return
	}
	r.progress(server, params)
}

// Connected sets the session's log level, if it asked for one, on its new
// connection.
func (sr *SessionRouter) Connected(server string) {
	r := sr.r
	r.mu.Lock()
	l, set := r.levels[sr.session]
	r.mu.Unlock()
	if !set || sr.conn == nil {
		return
	}
	if caps, ok := r.servers.Capabilities(server); !ok || caps.Logging == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := sr.conn.Request(ctx, "logging/setLevel", json.RawMessage(`{"level":`+strconv.Quote(l.level)+`}`)); err != nil {
		r.logger.Warn("setting the log level of a session connection failed", "server", server, "session", sr.session, "error", err)
	}
}
