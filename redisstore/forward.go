package redisstore

import (
	"context"
)

// Messages between replicas (see gateway.Relay): each replica subscribes
// (on its one subscription, bus.go) to a channel of its own,
// <prefix>replica:<id>, where the others publish
// what only it can act on (a message for a client stream it holds, a
// request for a task its upstream connection runs), and to
// <prefix>replicas, where a message for every replica goes. One PUBLISH
// per message, received by the one replica it is for.

// Replica returns this store's replica id: random per Open, made of
// [0-9a-z], unique among the replicas sharing the store.
func (s *Store) Replica() string { return s.instance }

func (s *Store) replicaChannel(id string) string {
	if id == "" {
		return s.opts.Prefix + "replicas"
	}
	return s.opts.Prefix + "replica:" + id
}

// Send publishes msg to the replica with id to, or to every replica when
// to is "". delivered is false when no replica received it: the one named
// is not subscribed (it stopped, or lost Redis).
func (s *Store) Send(ctx context.Context, to string, msg []byte) (delivered bool, err error) {
	n, err := s.rdb.Publish(ctx, s.replicaChannel(to), msg).Result()
	if err != nil {
		return false, s.unavailable(ctx, "send a message to replica "+replicaName(to), err)
	}
	return n > 0, nil
}

func replicaName(id string) string {
	if id == "" {
		return "every replica"
	}
	return id
}

// Receive calls deliver with every message sent to this replica (or to
// every replica) until ctx ends or the store is closed; it returns at
// once, deliver runs on a goroutine of the store's. What is sent while the
// subscription is lost is gone: the senders' waits time out.
func (s *Store) Receive(ctx context.Context, deliver func(msg []byte)) {
	go s.listenWith(ctx, &listener{receive: deliver})
}
