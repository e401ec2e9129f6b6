package gateway

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/rawjson"
)

// Messages between replicas (Relay) are one line of text: a kind letter,
// then space-separated fields (ids, never holding a space), then the
// JSON-RPC message, if any, as the client gets it.
const (
	relayStream    = 's' // s <session> <msg>: for the session's stream
	relayStreamEnd = 'S' // S <session> <msg>: the same, already sent on once
	relayLevel     = 'l' // l <session>: the session's log level changed
	relayUnsub     = 'u' // u <from> <session> <uri>: the session unsubscribed (to every replica)
	relayRequest   = 'q' // q <from> <relay id> <session> <msg>: run a request, answer from
	relayMessage   = 'm' // m <relay id> <msg>: a message of the request, for its channel
	relayResponse  = 'r' // r <relay id> <msg>: the request's response
	relayBeat      = 'b' // b <relay id>: the request still runs
	relayCancel    = 'x' // x <from> <relay id>: the asker gave up on the request
	relayTasks     = 't' // t <from> <relay id> <session>: list the session's tasks held here, answer from
)

// relayEnvelope encodes a message between replicas.
func relayEnvelope(kind byte, fields []string, msg []byte) []byte {
	n := 1 + len(msg) + 1
	for _, f := range fields {
		n += len(f) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, kind)
	for _, f := range fields {
		b = append(b, ' ')
		b = append(b, f...)
	}
	if msg != nil {
		b = append(b, ' ')
		b = append(b, msg...)
	}
	return b
}

// relayFields splits a message between replicas into n fields and the
// rest; ok is false when it has fewer.
func relayFields(b []byte, n int) (fields []string, rest []byte, ok bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	rest = b[1:] // from here on, rest is empty or starts with a space
	for range n {
		if len(rest) == 0 {
			return nil, nil, false
		}
		f, _, _ := bytes.Cut(rest[1:], []byte{' '})
		fields = append(fields, string(f))
		rest = rest[1+len(f):]
	}
	if len(rest) > 0 {
		rest = rest[1:]
	}
	return fields, rest, true
}

// relayed handles a message another replica sent this one.
func (g *Gateway) relayed(ctx context.Context, b []byte) {
	if len(b) == 0 {
		return
	}
	switch b[0] {
	case relayStream, relayStreamEnd:
		if f, msg, ok := relayFields(b, 1); ok {
			g.streamArrived(ctx, f[0], msg, b[0] == relayStream)
		}
	case relayLevel:
		if f, _, ok := relayFields(b, 1); ok {
			go g.levelChanged(ctx, f[0])
		}
	case relayUnsub:
		if f, uri, ok := relayFields(b, 2); ok && f[0] != g.rs.replica {
			go g.h.Session(f[1]).DropSubscription(ctx, string(uri))
		}
	case relayRequest:
		if f, msg, ok := relayFields(b, 3); ok {
			go g.serveRelayed(ctx, f[0], f[1], f[2], msg)
		}
	case relayTasks:
		if f, _, ok := relayFields(b, 3); ok {
			go g.serveTasks(ctx, f[0], f[1], f[2])
		}
	case relayMessage, relayResponse, relayBeat:
		if f, msg, ok := relayFields(b, 1); ok {
			g.relayAnswered(f[0], b[0], msg)
		}
	case relayCancel:
		if f, _, ok := relayFields(b, 2); ok {
			g.relayCancelled(f[0], f[1])
		}
	}
}

// forwardStream sends msg to the session's stream held by another replica,
// through the gateway's queue (the router's path must not wait on Redis);
// Run drains it.
func (g *Gateway) forwardStream(session string, msg []byte) {
	select {
	case g.rs.queue <- streamMessage{session, msg}:
	default:
		g.logger.Warn("too many messages wait to be sent to other replicas' streams; dropping one", "session", session)
	}
}

// pumpStreams drains the queue of forwardStream until ctx ends.
func (g *Gateway) pumpStreams(ctx context.Context) {
	for {
		select {
		case m := <-g.rs.queue:
			g.toStream(ctx, m.session, m.msg, true)
		case <-ctx.Done():
			return
		}
	}
}

// relayTimeout bounds one publish to another replica.
const relayTimeout = 2 * time.Second

// toStream delivers msg on the session's stream: here when it is here, on
// the replica holding it (per the session's record) otherwise, else it is
// held here for the session's next stream. again allows reading the record
// once more when what was remembered proved stale.
func (g *Gateway) toStream(ctx context.Context, session string, msg []byte, again bool) {
	if g.push(session, msg) {
		return
	}
	p := g.rs.place(session)
	if p.stream == placeUnread || (p.stream == "" && again) {
		g.readPlace(ctx, session)
		p, again = g.rs.place(session), false
	}
	if p.stream != "" && p.stream != placeUnread && p.stream != g.rs.replica {
		sctx, cancel := context.WithTimeout(ctx, relayTimeout)
		delivered, err := g.rs.relay.Send(sctx, p.stream, relayEnvelope(relayStream, []string{session}, msg))
		cancel()
		switch {
		case delivered:
			return
		case err != nil:
			g.logger.Warn("sending a message to the replica holding the session's stream", "session", session, "replica", p.stream, "error", err)
		case again:
			g.readPlace(ctx, session) // the replica is gone: maybe the stream moved
			g.toStream(ctx, session, msg, false)
			return
		default:
			g.logger.Debug("the replica holding the session's stream is gone; holding the message here", "session", session, "replica", p.stream)
		}
	}
	streamChannel{g, session}.hold(msg)
}

// readPlace reads where the session's stream is from its record.
func (g *Gateway) readPlace(ctx context.Context, session string) {
	st, err := g.h.Sessions().Load(ctx, session)
	switch {
	case errors.Is(err, host.ErrSessionNotFound):
		g.rs.forget(session)
	case err != nil:
		g.logger.Warn("reading where a session's stream is", "session", session, "error", err)
	default:
		g.rs.note(session, st)
	}
}

// streamArrived takes a message another replica sent for a session's
// stream: it goes out on the stream here, or, when the stream moved on
// (the sender read an old record), to where the record now says, once.
func (g *Gateway) streamArrived(ctx context.Context, session string, msg []byte, first bool) {
	msg = bytes.Clone(msg)
	if g.push(session, msg) {
		return
	}
	if !first {
		streamChannel{g, session}.hold(msg)
		return
	}
	go func() {
		g.readPlace(ctx, session)
		p := g.rs.place(session)
		if p.stream != "" && p.stream != placeUnread && p.stream != g.rs.replica {
			sctx, cancel := context.WithTimeout(ctx, relayTimeout)
			defer cancel()
			if ok, _ := g.rs.relay.Send(sctx, p.stream, relayEnvelope(relayStreamEnd, []string{session}, msg)); ok {
				return
			}
		}
		streamChannel{g, session}.hold(msg)
	}()
}

// claimStream records in the session that this replica holds its stream,
// unless the record says so already.
func (g *Gateway) claimStream(ctx context.Context, session string) {
	if g.rs.place(session).stream == g.rs.replica {
		return
	}
	g.setStream(ctx, session, func(cur string) (string, bool) { return g.rs.replica, cur != g.rs.replica })
}

// releaseStream records that no replica holds the session's stream, if the
// record still names this one (the client may have opened one elsewhere).
func (g *Gateway) releaseStream(session string) {
	ctx, cancel := context.WithTimeout(context.Background(), relayTimeout)
	defer cancel()
	g.setStream(ctx, session, func(cur string) (string, bool) { return "", cur == g.rs.replica })
}

// setStream changes the record's Stream as change says.
func (g *Gateway) setStream(ctx context.Context, session string, change func(cur string) (string, bool)) {
	st, err := g.h.Sessions().Update(ctx, session, func(st *host.SessionRecord) error {
		next, ok := change(st.Stream)
		if !ok {
			return host.ErrSessionUnchanged
		}
		st.Stream = next
		return nil
	})
	if err != nil {
		if !errors.Is(err, host.ErrSessionNotFound) {
			g.logger.Warn("recording which replica holds the session's stream", "session", session, "error", err)
		}
		return
	}
	g.rs.note(session, st)
}

// elsewhere gives the router handlers for a session with none here: what
// they send goes to the session's stream, wherever it is.
func (g *Gateway) elsewhere(session string) (string, host.ClientHandlers, bool) {
	return g.rs.place(session).scope, g.handlers(session, streamChannel{g, session}), true
}

// levelChanged applies a session's log level another replica recorded.
func (g *Gateway) levelChanged(ctx context.Context, session string) {
	sess, st, err := g.h.OpenSession(ctx, session)
	if err != nil {
		return
	}
	g.rs.note(session, st)
	sess.AdoptLogLevel(ctx, st)
}

// tellLevel tells the replica holding the session's stream that its log
// level changed, so that the servers' messages outside its requests there
// follow it.
func (g *Gateway) tellLevel(ctx context.Context, session string) {
	p := g.rs.place(session)
	if p.stream == "" || p.stream == placeUnread || p.stream == g.rs.replica {
		return
	}
	if _, err := g.rs.relay.Send(ctx, p.stream, relayEnvelope(relayLevel, []string{session}, nil)); err != nil {
		g.logger.Warn("telling the replica holding the session's stream of its new log level", "session", session, "replica", p.stream, "error", err)
	}
}

// tellUnsubscribed tells every other replica that the session unsubscribed
// from the resource params names: the subscription may be held by another.
func (g *Gateway) tellUnsubscribed(ctx context.Context, session string, params []byte) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return
	}
	if _, err := g.rs.relay.Send(ctx, "", relayEnvelope(relayUnsub, []string{g.rs.replica, session}, []byte(uri))); err != nil {
		g.logger.Warn("telling the other replicas that a session unsubscribed", "session", session, "uri", uri, "error", err)
	}
}
