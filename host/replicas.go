package host

import (
	"context"

	"github.com/plughost/plughost/host/routing"
)

// ReplicaStore is a SessionStore shared by replicas that tells them apart
// (redisstore.Store is one). The host then makes the ids of tasks name the
// replica whose upstream connection holds them (TaskReplica), so a front
// end can send a task's requests on to it.
type ReplicaStore interface {
	SessionStore
	// Replica returns this process's id among the replicas: made of
	// [0-9a-z], unique while it runs.
	Replica() string
}

// TaskReplica returns the replica holding the task a client's task id
// names, ok false when it names none (a single replica's task id).
func TaskReplica(clientTaskID string) (replica string, ok bool) {
	return routing.TaskReplica(clientTaskID)
}

// SetElsewhere sets how a message of a server reaches the client of a
// session that has no handlers in this process (SetHandlers) because its
// stream is held by another replica: fn returns the session's scope and
// handlers that pass messages on to that replica, ok false for none. Set it
// once, before serving.
func (h *Host) SetElsewhere(fn func(session string) (scope string, c ClientHandlers, ok bool)) {
	h.router.SetElsewhere(func(session string) (string, *ClientHandlers, bool) {
		scope, c, ok := fn(session)
		return scope, &c, ok
	})
}

// AdoptLogLevel applies the log level st records for the session (set
// through another replica) in this process, when it differs from the one
// this process applies; the servers' levels follow as after SetLogLevel.
func (s *Session) AdoptLogLevel(ctx context.Context, st SessionRecord) {
	if st.LogLevel == "" || s.h.router.Level(s.id) == st.LogLevel {
		return
	}
	if err := s.applyLogLevel(ctx, st.Scope, st.LogLevel); err != nil {
		s.h.logger.Warn("applying a session's log level set through another replica", "session", s.id, "error", err)
	}
}

// recordLogLevel keeps the session's level in its record, for the other
// replicas (AdoptLogLevel).
func (s *Session) recordLogLevel(ctx context.Context, level string) error {
	_, err := s.update(ctx, func(st *SessionRecord) error {
		if st.LogLevel == level {
			return ErrSessionUnchanged
		}
		st.LogLevel = level
		return nil
	})
	return err
}

// DropSubscription ends the session's subscription to the resource uri
// (as its client knows it) held in this process, if there is one: a
// resources/unsubscribe answered by another replica. A subscription on a
// session's own connection (isolation "session") is left to that
// connection, which ends with the session.
func (s *Session) DropSubscription(ctx context.Context, uri string) {
	scope, rule, err := s.access(ctx)
	if err != nil {
		return
	}
	server, own := scope, uri
	if scope == "" {
		if server, own, err = s.h.resolveURI(ctx, uri, rule); err != nil {
			return
		}
	}
	if s.h.isolated(server) {
		return
	}
	if err := s.h.router.Unsubscribe(ctx, s.id, server, own); err != nil {
		s.h.logger.Warn("ending a subscription another replica was asked to end", "session", s.id, "server", server, "uri", own, "error", err)
	}
}
