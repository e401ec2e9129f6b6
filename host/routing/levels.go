package routing

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/plughost/plughost/lib/rawjson"
)

// LogLevels returns MCP's log levels (RFC 5424), most verbose first.
func LogLevels() []string {
	return []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
}

// IsLogLevel reports whether level is one of MCP's log levels.
func IsLogLevel(level string) bool { return levelRank(level) >= 0 }

func levelRank(level string) int { return slices.Index(LogLevels(), level) }

// SetLevel records that session, of scope, gets the servers' log messages
// at level and above. Every server of the scope that offers logging is set
// to the most verbose level any session asked for (the connection is
// shared); each session still gets only what it asked for. A server that
// fails is logged and skipped.
func (r *Router) SetLevel(ctx context.Context, session, scope, level string) {
	r.mu.Lock()
	r.levels[session] = sessionLevel{level: level, scope: scope}
	r.mu.Unlock()
	r.applyLevels(ctx, "")
}

// Level returns the log level session asked for in this process, "" for
// none.
func (r *Router) Level(session string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.levels[session].level
}

// applyLevels sets each server with logging to the most verbose level the
// sessions of its scope asked for, where it differs from what was set; on
// server reconnected (if not "") nothing is set yet.
func (r *Router) applyLevels(ctx context.Context, reconnected string) {
	var wg sync.WaitGroup
	for _, server := range r.servers.Names() {
		if caps, ok := r.servers.Capabilities(server); ok && caps.Logging != nil {
			wg.Go(func() { r.applyLevel(ctx, server, server == reconnected) })
		} else if server == reconnected {
			r.mu.Lock()
			delete(r.applied, server)
			r.mu.Unlock()
		}
	}
	wg.Wait()
}

// applyLevel sets server to the most verbose level the sessions of its
// scope asked for, if that is not what was last set. Calls for one server
// take turns, and each reads the wanted level only once it has its turn:
// two calls racing (a session's setLevel and a reconnect) would otherwise
// let the older level reach the server last and stay. fresh says the
// server holds no level yet (a new connection): what was set on its
// previous connection is forgotten in the same turn, so the level is
// never seen as neither set nor being set.
func (r *Router) applyLevel(ctx context.Context, server string, fresh bool) {
	release, ok := r.takeLevelTurn(ctx, server)
	if !ok {
		if fresh {
			r.mu.Lock()
			delete(r.applied, server)
			r.mu.Unlock()
		}
		return
	}
	defer release()
	r.mu.Lock()
	if fresh {
		delete(r.applied, server)
	}
	want := ""
	for _, l := range r.levels {
		if (l.scope == "" || l.scope == server) && (want == "" || levelRank(l.level) < levelRank(want)) {
			want = l.level
		}
	}
	if want == "" || r.applied[server] == want || !r.runs(server) {
		r.mu.Unlock()
		return
	}
	r.applied[server] = want
	r.mu.Unlock()
	srv, ok := r.servers.Server(server)
	if !ok {
		return
	}
	params := json.RawMessage(`{"level":` + strconv.Quote(want) + `}`)
	if _, err := srv.Request(ctx, "logging/setLevel", params); err != nil {
		r.logger.Warn("setting the log level failed", "server", server, "level", want, "error", err)
		r.mu.Lock()
		if r.applied[server] == want {
			delete(r.applied, server)
		}
		r.mu.Unlock()
	}
}

// levelTurn is the turn that setting one server's log level takes: a token
// (a channel of capacity one) and how many applyLevel calls hold or wait
// for it. It stays in Router.levelTurns only while that count is above
// zero, so the map never keeps a server that stopped, and a server removed
// and added again while a turn of its old self is still held shares that
// turn: two turns never run at once for one name.
type levelTurn struct {
	token chan struct{}
	users int // under Router.mu
}

// takeLevelTurn waits for server's turn; release gives it back. ok is false
// when ctx ended first.
func (r *Router) takeLevelTurn(ctx context.Context, server string) (release func(), ok bool) {
	r.mu.Lock()
	t := r.levelTurns[server]
	if t == nil {
		t = &levelTurn{token: make(chan struct{}, 1)}
		r.levelTurns[server] = t
	}
	t.users++
	r.mu.Unlock()
	select {
	case t.token <- struct{}{}:
		return func() {
			<-t.token
			r.leaveLevelTurn(server, t)
		}, true
	case <-ctx.Done():
		r.leaveLevelTurn(server, t)
		return nil, false
	}
}

// leaveLevelTurn counts one user of t out, dropping t once nobody holds or
// waits for it.
func (r *Router) leaveLevelTurn(server string, t *levelTurn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.users--; t.users == 0 {
		delete(r.levelTurns, server)
	}
}

// logMessage routes notifications/message: to the session that caused it
// (when it asked for no level, or its level admits the message), else to
// every session taking messages whose level admits it. Sessions of the
// aggregate endpoint see the server named in "logger".
func (r *Router) logMessage(server string, params json.RawMessage) {
	level, _ := rawjson.String(params, "level")
	rank := levelRank(level)
	var ts []target
	if t, ok, _ := r.cause(server, "", params); ok {
		r.mu.Lock()
		l, set := r.levels[t.session]
		r.mu.Unlock()
		if !set || rank >= levelRank(l.level) {
			ts = append(ts, t)
		}
	} else {
		r.mu.Lock()
		for _, c := range r.clients {
			l, set := r.levels[c.id]
			if set && (c.scope == "" || c.scope == server) && rank >= levelRank(l.level) {
				ts = append(ts, target{session: c.id, scope: c.scope, handlers: &c.handlers})
			}
		}
		r.mu.Unlock()
	}
	var named json.RawMessage
	for _, t := range ts {
		out := params
		if t.scope == "" {
			if named == nil {
				named = withLogger(server, params)
			}
			out = named
		}
		deliver(t, Notification{Server: server, Method: "notifications/message", Params: out})
	}
}

// withLogger names the server in a log message's "logger": the server's
// name, or "<server>/<logger>" when the server named a logger.
func withLogger(server string, params json.RawMessage) json.RawMessage {
	name := server
	if own, ok := rawjson.String(params, "logger"); ok && own != "" {
		name += "/" + own
	}
	q := []byte(strconv.Quote(name))
	if out, ok := rawjson.Replace(params, q, "logger"); ok {
		return out
	}
	if len(params) < 2 || params[0] != '{' {
		return params
	}
	out := append([]byte(`{"logger":`), q...)
	if rest := params[1:]; len(rawjson.View(rest)) > 0 && !isEmptyObject(params) {
		out = append(out, ',')
		return append(out, rest...)
	}
	return append(out, '}')
}

func isEmptyObject(b []byte) bool {
	empty := true
	rawjson.ScanMembers(rawjson.View(b), func(string, int, int) bool { empty = false; return false })
	return empty
}
