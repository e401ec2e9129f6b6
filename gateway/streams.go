package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/plughost/plughost/host"
)

// stream is a channel for server→client messages outside any request: the
// GET event stream of an HTTP session, or stdout of the stdio session
// (list_changed, resource updates, log messages, a server's requests that
// came outside a request of the client's). Its queue is bounded; a message
// that finds it full is dropped with a warning.
type stream struct {
	session string
	queue   chan []byte
	done    chan struct{} // closed when the gateway ends the stream
}

// streamQueue is how many messages wait for a slow stream.
const streamQueue = 256

// attach registers a stream for a session; the newest stream of a session
// carries its messages (a message goes out on one stream only). Messages
// held for the session while it had no stream go out on it first, in the
// order they came.
func (g *Gateway) attach(session string) *stream {
	st := &stream{session: session, queue: make(chan []byte, streamQueue), done: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams[session] = append(g.streams[session], st)
	g.pruneHeld()
	kept := g.held[:0]
	for _, h := range g.held {
		if h.session != session {
			kept = append(kept, h)
			continue
		}
		g.heldBytes -= len(h.msg)
		select {
		case st.queue <- h.msg:
		default:
			g.logger.Warn("a session's event stream is full; dropping a message held for it", "session", session)
		}
	}
	clear(g.held[len(kept):]) // let the delivered messages go
	g.held = kept
	return st
}

// Holding messages for a session with no stream. A client opens its GET
// stream after initialize, in the background (the SDKs do), so a message
// for the session can come before the stream does: typically progress a
// server wrote after its answer (mcp-go's stdio server writes notifications
// from a goroutine of its own), which no longer has the request's channel.
// Such a message is held, in order, for the session's next stream, within
// bounds: for holdFor at most, and holdCount messages and holdBytes bytes
// over all sessions (the oldest go first). A client that never opens a
// stream loses them, as before.
const (
	holdFor   = 10 * time.Second
	holdCount = 1024
	holdBytes = 4 << 20
)

// heldMessage is a message waiting for its session's stream.
type heldMessage struct {
	session string
	msg     []byte
	at      time.Time
}

// pushOrHold queues msg on the session's newest stream, or holds it for the
// session's next stream when it has none; false when it was held (or
// dropped: too large to hold).
func (g *Gateway) pushOrHold(session string, msg []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pushLocked(session, msg) {
		return true
	}
	if len(msg) > holdBytes {
		g.logger.Warn("a message for a session with no event stream is too large to hold; dropping it", "session", session, "bytes", len(msg))
		return false
	}
	g.held = append(g.held, heldMessage{session: session, msg: msg, at: g.now()})
	g.heldBytes += len(msg)
	g.pruneHeld()
	return false
}

// pruneHeld drops the held messages that waited too long or exceed the
// bounds, oldest first. Callers hold g.mu.
func (g *Gateway) pruneHeld() {
	cutoff := g.now().Add(-holdFor)
	n := 0
	for n < len(g.held) && (g.held[n].at.Before(cutoff) || len(g.held)-n > holdCount || g.heldBytes > holdBytes) {
		g.heldBytes -= len(g.held[n].msg)
		n++
	}
	if n > 0 {
		clear(g.held[:n])
		g.held = g.held[n:]
	}
}

// dropHeld forgets what is held for session ("": every session). Callers
// hold g.mu.
func (g *Gateway) dropHeld(session string) {
	kept := g.held[:0]
	for _, h := range g.held {
		if session == "" || h.session == session {
			g.heldBytes -= len(h.msg)
			continue
		}
		kept = append(kept, h)
	}
	clear(g.held[len(kept):])
	g.held = kept
}

// detach forgets a stream (its reader stopped) and returns how many
// streams the session has left.
func (g *Gateway) detach(st *stream) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	list := g.streams[st.session]
	for i, s := range list {
		if s == st {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(g.streams, st.session)
	} else {
		g.streams[st.session] = list
	}
	return len(list)
}

// push queues msg on the session's newest stream; false when it has none.
func (g *Gateway) push(session string, msg []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pushLocked(session, msg)
}

// pushLocked is push for callers holding g.mu.
func (g *Gateway) pushLocked(session string, msg []byte) bool {
	list := g.streams[session]
	if len(list) == 0 {
		return false
	}
	select {
	case list[len(list)-1].queue <- msg:
	default:
		g.logger.Warn("a session's event stream is full; dropping a message", "session", session)
	}
	return true
}

func (g *Gateway) hasStream(session string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.streams[session]) > 0
}

// endStreams closes every stream of a session (it ended), or of every
// session when session is "", and forgets what was held for them.
func (g *Gateway) endStreams(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dropHeld(session)
	for id, list := range g.streams {
		if session != "" && id != session {
			continue
		}
		for _, st := range list {
			close(st.done)
		}
		delete(g.streams, id)
	}
}

// Shutdown ends every server→client stream, so an HTTP server can drain:
// requests in flight still finish and answer.
func (g *Gateway) Shutdown() { g.endStreams("") }

// announce tells the session's client, through out or else its stream,
// that its tool list changed, if it did since the client last learned it.
// Nothing is recorded when the client cannot be told here and now: the
// next chance tells it — maybe another replica, which holds the client's
// stream and hears of the change from the store.
func (g *Gateway) announce(ctx context.Context, s *host.Session, out sink) {
	if n, ok := out.(interface{ canNotify() bool }); ok && !n.canNotify() {
		out = nil
	}
	if out == nil && !g.hasStream(s.ID()) {
		return
	}
	changed, err := s.TakeListChange(ctx)
	if errors.Is(err, host.ErrSessionNotFound) {
		g.endStreams(s.ID()) // it ended or expired, maybe while events were lost
		return
	}
	if err != nil {
		g.logger.Warn("checking a session's tool list", "session", s.ID(), "error", err)
		return
	}
	if !changed {
		return
	}
	if out != nil && out.notify(listChanged) {
		return
	}
	g.push(s.ID(), listChanged)
}

// Run delivers notifications/tools/list_changed to the sessions with a
// stream in this process whenever their lists change — the servers' tools
// changed, or the session's state changed (here or in another process
// sharing the store) — until ctx ends. With a store shared by replicas
// (Peers), it also exchanges catalog changes with the other replicas and
// takes the client responses they forward.
// ServeStdio runs it itself; run it beside HTTPHandler.
func (g *Gateway) Run(ctx context.Context) {
	changes := g.h.Sessions().Watch(ctx)
	hostChanged := g.h.Changed()
	var peerCatalogs <-chan uint64
	cs := g.peers()
	if cs != nil {
		peerCatalogs = cs.peers.Catalogs(ctx)
		cs.peers.Responses(ctx, g.peerResponse)
	}
	if g.rs != nil {
		g.rs.relay.Receive(ctx, func(msg []byte) { g.relayed(ctx, msg) })
		go g.pumpStreams(ctx)
	}
	g.announceAll(ctx)
	g.publishCatalog(ctx, cs, false)
	for {
		select {
		case <-hostChanged:
			hostChanged = g.h.Changed()
			g.announceAll(ctx)
			g.publishCatalog(ctx, cs, false)
		case fp := <-peerCatalogs:
			g.peerCatalog(ctx, cs, fp)
		case c, ok := <-changes:
			switch {
			case !ok:
				return
			case c.Resync: // changes were missed: check every session here
				g.announceAll(ctx)
			case c.Ended:
				g.endStreams(c.ID)
				g.h.Session(c.ID).Release()
				if g.rs != nil {
					g.rs.forget(c.ID)
				}
			case g.hasStream(c.ID):
				g.announce(ctx, g.h.Session(c.ID), nil)
			}
		case <-ctx.Done():
			return
		}
	}
}

// announceAll checks every session with a stream here.
func (g *Gateway) announceAll(ctx context.Context) {
	for _, id := range g.streamSessions() {
		g.announce(ctx, g.h.Session(id), nil)
	}
}

// streamSessions returns the sessions with a stream here.
func (g *Gateway) streamSessions() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := make([]string, 0, len(g.streams))
	for id := range g.streams {
		ids = append(ids, id)
	}
	return ids
}
