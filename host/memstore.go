package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// MemorySessionStoreOptions configure NewMemorySessionStore.
type MemorySessionStoreOptions struct {
	// IdleTimeout ends a session no Create, Load or Update touched for that
	// long; 0 keeps sessions until they are deleted.
	IdleTimeout time.Duration
	// Now tells the time; nil means time.Now (tests pass a fake clock).
	Now func() time.Time
}

// MemorySessionStore is the in-memory SessionStore, the default: sessions
// live as long as the process. Expired sessions are removed when touched
// and by a sweep that runs, at most once per sweep interval, on Create and
// Len — so memory is bounded by the sessions created recently, with no
// goroutine of its own. Safe for concurrent use.
type MemorySessionStore struct {
	opts MemorySessionStoreOptions

	mu        sync.Mutex
	sessions  map[string]*memSession
	lastSweep time.Time
	watchers  map[*ChangeBuffer]struct{}
}

var _ SessionStore = (*MemorySessionStore)(nil)

type memSession struct {
	st      SessionRecord
	touched time.Time
}

// NewMemorySessionStore returns an empty in-memory store.
func NewMemorySessionStore(opts MemorySessionStoreOptions) *MemorySessionStore {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &MemorySessionStore{opts: opts, sessions: map[string]*memSession{}, watchers: map[*ChangeBuffer]struct{}{}}
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, id string, st SessionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.sweep(now)
	if s, ok := m.sessions[id]; ok && !m.expired(s, now) {
		return fmt.Errorf("session %q: %w", id, ErrSessionExists)
	}
	st.Format, st.Rev, st.Turn = SessionRecordFormat, 1, 0
	if st.Created.IsZero() {
		st.Created = now
	}
	m.sessions[id] = &memSession{st: st.Clone(), touched: now}
	return nil
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.live(id)
	if err != nil {
		return SessionRecord{}, err
	}
	return s.st.Clone(), nil
}

// Update implements SessionStore.
func (m *MemorySessionStore) Update(_ context.Context, id string, fn func(*SessionRecord) error) (SessionRecord, error) {
	m.mu.Lock()
	s, err := m.live(id)
	if err != nil {
		m.mu.Unlock()
		return SessionRecord{}, err
	}
	next := s.st.Clone()
	if err := fn(&next); err != nil {
		cur := s.st.Clone()
		m.mu.Unlock()
		if errors.Is(err, ErrSessionUnchanged) {
			return cur, nil
		}
		return SessionRecord{}, err
	}
	next.Format, next.Rev, next.Turn = SessionRecordFormat, s.st.Rev+1, s.st.Turn
	s.st = next.Clone()
	m.mu.Unlock()
	m.notify(id, false)
	return next, nil
}

// CountTurn implements SessionStore.
func (m *MemorySessionStore) CountTurn(_ context.Context, id string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.live(id)
	if err != nil {
		return 0, err
	}
	s.st.Turn++
	return s.st.Turn, nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	_, ok := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if ok {
		m.notify(id, true)
	}
	return nil
}

// Len returns the number of live sessions.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.opts.Now())
	return len(m.sessions)
}

// live returns a session that has not expired, touching it. Callers hold
// m.mu.
func (m *MemorySessionStore) live(id string) (*memSession, error) {
	now := m.opts.Now()
	s, ok := m.sessions[id]
	if ok && m.expired(s, now) {
		m.remove(id)
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("session %q: %w", id, ErrSessionNotFound)
	}
	s.touched = now
	return s, nil
}

func (m *MemorySessionStore) expired(s *memSession, now time.Time) bool {
	return m.opts.IdleTimeout > 0 && now.Sub(s.touched) > m.opts.IdleTimeout
}

// sweepEvery is the longest time between two sweeps of expired sessions.
const sweepEvery = time.Minute

// sweep removes expired sessions, at most once per interval. Callers hold
// m.mu.
func (m *MemorySessionStore) sweep(now time.Time) {
	if m.opts.IdleTimeout <= 0 || now.Sub(m.lastSweep) < min(sweepEvery, m.opts.IdleTimeout) {
		return
	}
	m.lastSweep = now
	for id, s := range m.sessions {
		if m.expired(s, now) {
			m.remove(id)
		}
	}
}

// remove deletes an expired session and reports it. Callers hold m.mu.
func (m *MemorySessionStore) remove(id string) {
	delete(m.sessions, id)
	for w := range m.watchers {
		w.Add(SessionChange{ID: id, Ended: true})
	}
}

// notify reports a change of id to every watcher.
func (m *MemorySessionStore) notify(id string, ended bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for w := range m.watchers {
		w.Add(SessionChange{ID: id, Ended: ended})
	}
}

// Watch implements SessionStore. Reports are coalesced per session while
// the reader is behind, so a slow reader never blocks an update.
func (m *MemorySessionStore) Watch(ctx context.Context) <-chan SessionChange {
	w := NewChangeBuffer()
	m.mu.Lock()
	m.watchers[w] = struct{}{}
	m.mu.Unlock()
	out := make(chan SessionChange)
	go func() {
		defer func() {
			m.mu.Lock()
			delete(m.watchers, w)
			m.mu.Unlock()
		}()
		w.Deliver(ctx, out)
	}()
	return out
}
