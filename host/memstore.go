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
	watchers  map[*memWatcher]struct{}
}

type memSession struct {
	st      SessionState
	touched time.Time
}

// NewMemorySessionStore returns an empty in-memory store.
func NewMemorySessionStore(opts MemorySessionStoreOptions) *MemorySessionStore {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &MemorySessionStore{opts: opts, sessions: map[string]*memSession{}, watchers: map[*memWatcher]struct{}{}}
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, id string, st SessionState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.sweep(now)
	if s, ok := m.sessions[id]; ok && !m.expired(s, now) {
		return fmt.Errorf("session %q: %w", id, ErrSessionExists)
	}
	st.Format, st.Rev = SessionStateFormat, 1
	if st.Created.IsZero() {
		st.Created = now
	}
	m.sessions[id] = &memSession{st: st.clone(), touched: now}
	return nil
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.live(id)
	if err != nil {
		return SessionState{}, err
	}
	return s.st.clone(), nil
}

// Update implements SessionStore.
func (m *MemorySessionStore) Update(_ context.Context, id string, fn func(*SessionState) error) (SessionState, error) {
	m.mu.Lock()
	s, err := m.live(id)
	if err != nil {
		m.mu.Unlock()
		return SessionState{}, err
	}
	next := s.st.clone()
	if err := fn(&next); err != nil {
		cur := s.st.clone()
		m.mu.Unlock()
		if errors.Is(err, ErrSessionUnchanged) {
			return cur, nil
		}
		return SessionState{}, err
	}
	next.Format, next.Rev = SessionStateFormat, s.st.Rev+1
	s.st = next.clone()
	m.mu.Unlock()
	m.notify(id, false)
	return next, nil
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
		w.add(id, true)
	}
}

// notify reports a change of id to every watcher.
func (m *MemorySessionStore) notify(id string, ended bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for w := range m.watchers {
		w.add(id, ended)
	}
}

// Watch implements SessionStore. Reports are coalesced per session while
// the reader is behind, so a slow reader never blocks an update.
func (m *MemorySessionStore) Watch(ctx context.Context) <-chan SessionChange {
	w := &memWatcher{pending: map[string]bool{}, wake: make(chan struct{}, 1)}
	m.mu.Lock()
	m.watchers[w] = struct{}{}
	m.mu.Unlock()
	out := make(chan SessionChange)
	go func() {
		defer close(out)
		defer func() {
			m.mu.Lock()
			delete(m.watchers, w)
			m.mu.Unlock()
		}()
		for {
			select {
			case <-w.wake:
			case <-ctx.Done():
				return
			}
			for id, ended := range w.take() {
				select {
				case out <- SessionChange{ID: id, Ended: ended}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// memWatcher collects the sessions changed since its reader last looked.
type memWatcher struct {
	mu      sync.Mutex
	pending map[string]bool // id → ended
	wake    chan struct{}
}

func (w *memWatcher) add(id string, ended bool) {
	w.mu.Lock()
	w.pending[id] = w.pending[id] || ended
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *memWatcher) take() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.pending
	w.pending = map[string]bool{}
	return p
}
