package gateway

import (
	"context"
	"strings"

	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/supervisor"
)

// Peers links the gateways of replicas that share a session store. The
// store's own change reports already reach every replica (a search on one
// replica is announced by the replica holding the client's stream); what
// they do not carry is that a replica's tool catalog changed, since each
// replica runs its own upstream servers. When the host's session store
// implements Peers (redisstore.Store does), Run publishes this replica's
// catalog fingerprint whenever it changes, and when another replica's
// differs from this one's, tells every client attached here that its list
// changed, so it lists again (and gets the list of whichever replica
// answers). And a client may POST its response to a request a replica sent
// it (sampling, elicitation, roots) to any replica: one that did not send
// it forwards it, and the one that did takes it. See docs/replicas.md for
// the consistency model.
type Peers interface {
	// PublishCatalog tells the other replicas that this one's catalog now
	// has fingerprint fp.
	PublishCatalog(ctx context.Context, fp uint64) error
	// Catalogs reports the fingerprints the other replicas publish until
	// ctx ends; 0 means some may have been missed.
	Catalogs(ctx context.Context) <-chan uint64
	// ForwardResponse hands a client's response (msg, as the client sent
	// it) to the other replicas: the request it answers was sent by one of
	// them, during a request of the session held there.
	ForwardResponse(ctx context.Context, session string, msg []byte) error
	// Responses calls deliver with each response another replica forwards,
	// until ctx ends (it returns at once; deliver runs on a goroutine of
	// the store's).
	Responses(ctx context.Context, deliver func(session string, msg []byte))
}

// catalogSync is Run's record of what it published and announced.
type catalogSync struct {
	peers     Peers
	published uint64 // this replica's fingerprint as last published
	announced uint64 // the last peer fingerprint announced to clients here
}

// peers returns the store's Peers, or nil when it has none.
func (g *Gateway) peers() *catalogSync {
	p, ok := g.h.Sessions().(Peers)
	if !ok {
		return nil
	}
	return &catalogSync{peers: p}
}

// catalogFingerprint identifies the tools of a snapshot, definitions
// included (a sum of spread per-definition hashes, order-free).
func catalogFingerprint(snap *registry.Snapshot) uint64 {
	var sum uint64
	for _, t := range snap.Sorted() {
		h := t.Hash ^ t.Hash>>31
		h *= 0x94d049bb133111eb
		sum += h ^ h>>29
	}
	return sum | 1 // never 0, which Catalogs reserves
}

// settled reports whether no server is connecting: a replica still
// starting would publish each partial catalog.
func (g *Gateway) settled() bool {
	for _, st := range g.h.Statuses() {
		if st.State == supervisor.StateConnecting {
			return false
		}
	}
	return true
}

// publishCatalog publishes this replica's catalog when it changed since it
// was last published and the replica has settled.
func (g *Gateway) publishCatalog(ctx context.Context, cs *catalogSync, force bool) {
	if cs == nil || !g.settled() {
		return
	}
	fp := catalogFingerprint(g.h.Registry())
	if fp == cs.published && !force {
		return
	}
	if err := cs.peers.PublishCatalog(ctx, fp); err != nil {
		g.logger.Warn("telling the other replicas that the tool catalog changed", "error", err)
		return
	}
	cs.published = fp
}

// peerCatalog handles another replica's fingerprint: one that differs from
// this replica's and was not announced yet is announced to every client
// attached here. 0 (events may have been missed) republishes this
// replica's own, so peers compare again.
func (g *Gateway) peerCatalog(ctx context.Context, cs *catalogSync, fp uint64) {
	if fp == 0 {
		g.publishCatalog(ctx, cs, true)
		return
	}
	if fp == catalogFingerprint(g.h.Registry()) || fp == cs.announced {
		return
	}
	cs.announced = fp
	for _, id := range g.streamSessions() {
		g.push(id, listChanged)
	}
}

// forwardResponse hands a client's response that no request here waits for
// to the other replicas, when it answers a request one of them sent (its id
// is a gateway's, not this one's). It reports whether it was forwarded.
func (g *Gateway) forwardResponse(ctx context.Context, session string, msg message, raw []byte) bool {
	p, ok := g.h.Sessions().(Peers)
	id := string(msg.ID)
	if !ok || !strings.HasPrefix(id, `"plughost-`) || strings.HasPrefix(id, `"`+g.askID) {
		return false
	}
	if err := p.ForwardResponse(ctx, session, raw); err != nil {
		g.logger.Warn("forwarding a client's response to the replica that asked", "session", session, "id", id, "error", err)
		return false
	}
	return true
}

// peerResponse takes a response another replica forwarded: it answers a
// request of this gateway's, or (another replica's, or one that ended)
// nothing.
func (g *Gateway) peerResponse(session string, raw []byte) {
	msg, k, perr := parseMessage(raw)
	if perr != nil || k != kindResponse || !strings.HasPrefix(string(msg.ID), `"`+g.askID) {
		return
	}
	if !g.answered(session, msg) {
		g.logger.Debug("a forwarded response matches no request of the gateway", "session", session, "id", string(msg.ID))
	}
}
