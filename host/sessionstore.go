package host

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/plughost/plughost/host/discovery"
)

// SessionRecordFormat is the version of SessionRecord's JSON form. A store
// holding state of another format treats it as absent rather than misread
// it.
const SessionRecordFormat = 1

// SessionRecord is everything the host keeps about one session, as a plain
// value that encodes to JSON: any process that can read the store can serve
// the session. It never holds a copy of the catalog, only what the session
// unlocked and a few facts about its client.
type SessionRecord struct {
	// Format is SessionRecordFormat when the state was written.
	Format int `json:"v"`
	// Rev is the store's revision of the state: every update that changes
	// it raises Rev, so a store can refuse an update built on an older one
	// (optimistic concurrency). Stores set it; callers only read it.
	Rev uint64 `json:"rev"`
	// Created is when the session began.
	Created time.Time `json:"created"`
	// Discovery is what the session unlocked, for how many turns, as of
	// its turn DiscoveryTurn: read it with Unlocks, write it with
	// SetUnlocks, which count the turns ended since.
	Discovery discovery.Unlocks `json:"discovery"`
	// DiscoveryTurn is the session's turn count when Discovery was
	// written.
	DiscoveryTurn uint64 `json:"turn,omitempty"`
	// Turn is how many turns the session ended (SessionStore.CountTurn)
	// as the store knew when it returned the record: the store keeps the
	// count beside the record, so ending a turn changes no record and
	// sends no change report. The Update function that writes sees the
	// current count; Load and an Update that changes nothing may see
	// another process's counts late, until that process rewrites the
	// record because an unlock ran out (Session.EndTurn).
	Turn uint64 `json:"-"`
	// Listed identifies the tool list the session's client last learned
	// of (its tools/list, or a list_changed it was sent), so a front end
	// tells the client exactly when its list changed (Session.TakeListChange).
	Listed uint64 `json:"listed,omitempty"`
	// Protocol is the MCP protocol version negotiated with the client.
	Protocol string `json:"protocol,omitempty"`
	// ClientInfo is what the client said about itself at initialize
	// (clientInfo and capabilities), as JSON.
	ClientInfo json.RawMessage `json:"client,omitempty"`
	// ClientName is the configured client (tools.mcp.gateway.clients)
	// whose token opened the session, or "" for the administrator's token
	// and an embedding agent's sessions. It never changes.
	ClientName string `json:"client_name,omitempty"`
	// Scope is the server the session is scoped to (the gateway's
	// /servers/<name>/mcp: that server alone, under its own names), or ""
	// for every server under plughost's names. It never changes.
	Scope string `json:"scope,omitempty"`
	// LogLevel is the level the client last set (logging/setLevel), ""
	// when it set none; every replica serving the session applies it.
	LogLevel string `json:"log_level,omitempty"`
	// Stream is the replica holding the client's event stream (GET /mcp),
	// when replicas share the store and one holds it (see ReplicaStore).
	Stream string `json:"stream,omitempty"`
	// TaskReplicas are the replicas on which the session may hold tasks
	// (those that took a task-augmented call of it), oldest first, when
	// replicas share the store: tasks/list asks each of them.
	TaskReplicas []string `json:"task_replicas,omitempty"`
}

// Unlocks returns what the session has unlocked now: Discovery, with the
// turns ended since it was written counted off.
func (st SessionRecord) Unlocks() discovery.Unlocks {
	if st.Turn <= st.DiscoveryTurn {
		return st.Discovery
	}
	return st.Discovery.Advance(st.Turn - st.DiscoveryTurn)
}

// SetUnlocks records u as what the session has unlocked now.
func (st *SessionRecord) SetUnlocks(u discovery.Unlocks) {
	st.Discovery, st.DiscoveryTurn = u, max(st.Turn, st.DiscoveryTurn)
}

// Clone returns a copy sharing nothing a transition could modify.
func (st SessionRecord) Clone() SessionRecord {
	if st.Discovery.Unlocked != nil {
		st.Discovery.Unlocked = maps.Clone(st.Discovery.Unlocked)
	}
	st.TaskReplicas = slices.Clone(st.TaskReplicas)
	return st
}

// Errors of a SessionStore.
var (
	// ErrSessionNotFound: no session has that id, or it expired.
	ErrSessionNotFound = errors.New("session not found (it ended or expired)")
	// ErrSessionExists: Create was given an id already in use.
	ErrSessionExists = errors.New("session id already in use")
	// ErrSessionUnchanged is returned by an Update function that changed
	// nothing: the store then writes nothing and Update returns the current
	// state without error.
	ErrSessionUnchanged = errors.New("session unchanged")
	// ErrStoreUnavailable: the store could not be reached or did not answer
	// in time (a Redis that is down or slow). Nothing was changed by the
	// failed operation; front ends answer "try again" (HTTP 503) and name
	// the store.
	ErrStoreUnavailable = errors.New("session store unavailable")
)

// SessionStore keeps the state of every session. The host declares it and
// ships an in-memory one (NewMemorySessionStore); another store (Redis, …)
// is one more implementation, which lets several processes serve the same
// sessions. Implementations must be safe for concurrent use.
type SessionStore interface {
	// Create stores the state of a new session. It fails with
	// ErrSessionExists when id is in use.
	Create(ctx context.Context, id string, st SessionRecord) error
	// Load returns a session's state, or ErrSessionNotFound. Loading counts
	// as activity for idle expiry. A store shared by several processes may
	// answer from a copy it keeps current by the others' change events: for
	// the moment such an event takes to arrive, Load may return the state
	// before another process's change (never a state that was not stored).
	Load(ctx context.Context, id string) (SessionRecord, error)
	// Update changes one session atomically: fn gets the current state and
	// edits it; the result is stored with a higher Rev, unless fn returns
	// an error (nothing is stored; ErrSessionUnchanged means "no change"
	// and is not returned). fn may run more than once when another process
	// changed the session meanwhile, so it must have no side effects.
	// ErrSessionNotFound when the session does not exist. Unlike Load,
	// Update always applies fn to the latest state (an fn that changes
	// nothing may see a copy as Load does).
	Update(ctx context.Context, id string, fn func(*SessionRecord) error) (SessionRecord, error)
	// CountTurn ends one turn of a session: it adds one to the session's
	// turn count (SessionRecord.Turn) and returns the new count, or
	// ErrSessionNotFound. It changes no record: no Rev, no change report.
	// Counting counts as activity for idle expiry.
	CountTurn(ctx context.Context, id string) (uint64, error)
	// Delete ends a session; deleting a missing one is no error.
	Delete(ctx context.Context, id string) error
	// Watch reports changed and ended sessions (by any process sharing the
	// store) until ctx ends; the channel is then closed. Changes of one
	// session may be coalesced into one report.
	Watch(ctx context.Context) <-chan SessionChange
}

// SessionChange says that a session changed or ended.
type SessionChange struct {
	// ID is the session's id ("" with Resync).
	ID string
	// Ended is true when the session was deleted or expired.
	Ended bool
	// Resync says that changes may have been missed (a shared store lost
	// its link to the other processes for a while): every session the
	// reader cares about should be checked again.
	Resync bool
}

// RemoteSessionStore is a SessionStore kept outside the process (Redis),
// which can be unreachable: front ends report its health (/readyz) and
// name it in their errors.
type RemoteSessionStore interface {
	SessionStore
	// Ping reports whether the store answers now (an error wrapping
	// ErrStoreUnavailable when it does not).
	Ping(ctx context.Context) error
	// Check reports whether the store takes writes now — an error
	// wrapping ErrStoreUnavailable when it does not answer or refuses
	// them (a Redis out of memory, or read-only) — and a warning about a
	// setup that puts sessions at risk without stopping the store (a
	// Redis that evicts keys when full), or "".
	Check(ctx context.Context) (warning string, err error)
	// String names the store for people, secrets masked, e.g.
	// "redis at redis://:****@redis:6379/0".
	String() string
}

// StoreReadiness is the session store in Readiness.
type StoreReadiness struct {
	// Name names the store, its password masked ("redis at redis://…").
	Name string `json:"name"`
	// Up is true when it answered.
	Up bool `json:"up"`
	// Error says why it did not.
	Error string `json:"error,omitempty"`
	// Warning names a risk that does not make the store unready (Redis
	// evicting sessions when full) and its fix.
	Warning string `json:"warning,omitempty"`
}

// storeCheckTimeout bounds the store check of one CheckReadiness.
const storeCheckTimeout = 2 * time.Second

// CheckReadiness is Readiness plus, for a session store kept outside the
// process, whether it takes writes now (CheckStore): a replica whose store
// does not cannot serve any session, so it is not ready (/readyz).
func (h *Host) CheckReadiness(ctx context.Context) Readiness {
	r := h.Readiness()
	if r.Store = h.CheckStore(ctx); r.Store != nil && !r.Store.Up {
		r.Ready = false
	}
	return r
}

// CheckStore checks the session store kept outside the process
// (RemoteSessionStore.Check, bounded by a few seconds); nil for the
// in-memory store. Errors and warnings are masked.
func (h *Host) CheckStore(ctx context.Context) *StoreReadiness {
	remote, ok := h.sessions.(RemoteSessionStore)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeCheckTimeout)
	defer cancel()
	r := &StoreReadiness{Name: remote.String(), Up: true}
	warning, err := remote.Check(ctx)
	if err != nil {
		r.Up, r.Error = false, h.masker.Mask(err.Error())
	}
	r.Warning = h.masker.Mask(warning)
	return r
}
