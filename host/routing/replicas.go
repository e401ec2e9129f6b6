package routing

import "strings"

// Replicas sharing sessions (docs/replicas.md). A task lives on the
// upstream connection that created it, so on the replica running that
// connection; its id, as clients know it, names that replica, so a
// tasks/get reaching another replica can be sent on to the one holding
// the task without asking the store. A session's event stream may be held
// by another replica: a message for a session with no handlers here goes
// to the handlers the front end gives for it (SetElsewhere), which pass it
// on to wherever the stream is.

// taskReplicaPrefix starts a task id naming its replica:
// "plughost-<replica>/<id as the session would know it alone>".
const taskReplicaPrefix = "plughost-"

// SetReplica makes the router's task ids name replica (see TaskReplica);
// "" (one replica) leaves them as the session would know them alone. Call
// it before the router routes anything.
func (r *Router) SetReplica(replica string) {
	r.mu.Lock()
	r.replica = replica
	r.mu.Unlock()
}

// Replica returns the replica set by SetReplica ("" for one replica).
func (r *Router) Replica() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replica
}

// SetElsewhere sets where a message for a session with no handlers here
// goes: fn returns the session's scope and the handlers reaching its
// client elsewhere, ok false when there are none (the message is dropped,
// as without fn).
func (r *Router) SetElsewhere(fn func(session string) (scope string, h *ClientHandlers, ok bool)) {
	r.mu.Lock()
	r.elsewhere = fn
	r.mu.Unlock()
}

// ClientTaskIDFor is a server's task id as a session of scope knows it:
// the server's own on a server's endpoint, ClientTaskID on the aggregate
// one, either after "plughost-<replica>/" when replicas share sessions.
func (r *Router) ClientTaskIDFor(scope, server, id string) string {
	if scope == "" {
		id = ClientTaskID(server, id)
	}
	r.mu.Lock()
	replica := r.replica
	r.mu.Unlock()
	if replica == "" {
		return id
	}
	return taskReplicaPrefix + replica + "/" + id
}

// ServerTaskIDFor reverses ClientTaskIDFor; ok is false for an id this
// replica did not make.
func (r *Router) ServerTaskIDFor(scope, clientID string) (server, id string, ok bool) {
	r.mu.Lock()
	replica := r.replica
	r.mu.Unlock()
	if replica != "" {
		if clientID, ok = strings.CutPrefix(clientID, taskReplicaPrefix+replica+"/"); !ok {
			return "", "", false
		}
	}
	if scope != "" {
		return scope, clientID, true
	}
	return ServerTaskID(clientID)
}

// TaskReplica returns the replica a client's task id names, ok false when
// it names none (a task id of a single replica's).
func TaskReplica(clientID string) (replica string, ok bool) {
	rest, ok := strings.CutPrefix(clientID, taskReplicaPrefix)
	if !ok {
		return "", false
	}
	replica, _, ok = strings.Cut(rest, "/")
	return replica, ok && replica != ""
}
