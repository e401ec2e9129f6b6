package gateway

import (
	"context"
	"sync"

	"github.com/plughost/plughost/host"
)

// Relay carries messages between the gateways of replicas sharing a
// session store, each to the one replica that can act on it: a message for
// a client's event stream to the replica holding the stream, a request for
// a task to the replica whose upstream connection holds the task, and that
// replica's answer back. When the host's session store implements Relay
// (redisstore.Store does), the gateway records in each session which
// replica holds its stream (host.SessionRecord.Stream) and forwards what
// it cannot deliver itself (see docs/replicas.md, "Any replica, every
// feature").
type Relay interface {
	// Replica returns this replica's id: [0-9a-z], unique among the
	// replicas sharing the store.
	Replica() string
	// Send publishes msg to the replica with id to ("" for every
	// replica); delivered is false when no replica received it (the one
	// named stopped, or lost the store).
	Send(ctx context.Context, to string, msg []byte) (delivered bool, err error)
	// Receive calls deliver with each message sent to this replica (or to
	// every replica) until ctx ends; it returns at once, and deliver runs
	// on a goroutine of the store's, so it must not block.
	Receive(ctx context.Context, deliver func(msg []byte))
}

// relayState is what a gateway with a Relay keeps. Safe for concurrent
// use.
type relayState struct {
	relay   Relay
	replica string
	queue   chan streamMessage // messages for streams held elsewhere, in order (forwardStream)

	mu     sync.Mutex
	where  map[string]sessionPlace       // per session, as its record said when last read here
	waits  map[string]*relayWait         // requests sent to other replicas, by relay id
	served map[string]context.CancelFunc // requests run for other replicas, by "<replica> <relay id>"
	seq    uint64
}

// sessionPlace is where a session's stream is, and the session's scope.
type sessionPlace struct{ stream, scope string }

// streamMessage is a message for a session's stream.
type streamMessage struct {
	session string
	msg     []byte
}

// Bounds: what waits to be forwarded, and the sessions remembered.
const (
	relayQueue  = 1024
	maxPlaces   = 100000
	placeUnread = "\x00" // a sessionPlace.stream not read yet
)

// newRelayState returns the relay state of a gateway over h, or nil when
// h's store is no Relay (one replica: nothing to forward).
func newRelayState(h *host.Host) *relayState {
	r, ok := h.Sessions().(Relay)
	if !ok {
		return nil
	}
	return &relayState{relay: r, replica: r.Replica(), queue: make(chan streamMessage, relayQueue),
		where: map[string]sessionPlace{}, waits: map[string]*relayWait{}, served: map[string]context.CancelFunc{}}
}

// place returns what is remembered of a session (stream placeUnread when
// nothing is).
func (rs *relayState) place(session string) sessionPlace {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	p, ok := rs.where[session]
	if !ok {
		p.stream = placeUnread
	}
	return p
}

// note remembers where a session's stream is, as its record says.
func (rs *relayState) note(session string, st host.SessionRecord) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.where) >= maxPlaces {
		clear(rs.where) // a cache: what is needed again is read again
	}
	rs.where[session] = sessionPlace{stream: st.Stream, scope: st.Scope}
}

// forget drops what is remembered of an ended session.
func (rs *relayState) forget(session string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.where, session)
}
