package trust

import (
	"context"
	"sync"

	"github.com/plughost/plughost/lib/coalesce"
)

// MemoryStore keeps the records in the process, for tests and for programs
// that embed the host and keep no state. Its Changes delivers the changes
// made through it (there is no other writer). Safe for concurrent use.
type MemoryStore struct {
	mu       sync.Mutex
	records  map[string]Record
	watchers map[*coalesce.Queue[string]]struct{}
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{records: map[string]Record{}, watchers: map[*coalesce.Queue[string]]struct{}{}}
}

// Load implements Store.
func (m *MemoryStore) Load(_ context.Context, server string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[server]
	if !ok {
		return Record{}, false, nil
	}
	return rec.clone(), true, nil
}

// Pin implements Store.
func (m *MemoryStore) Pin(_ context.Context, server string, pins map[string]Pin) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[server] = m.records[server].Merge(pins)
	for w := range m.watchers {
		w.Add(server)
	}
	return nil
}

// Changes implements Store: it delivers every server pinned through m.
func (m *MemoryStore) Changes(ctx context.Context) <-chan string {
	q := coalesce.New[string]()
	m.mu.Lock()
	m.watchers[q] = struct{}{}
	m.mu.Unlock()
	out := make(chan string)
	go func() {
		q.Deliver(ctx, out)
		m.mu.Lock()
		delete(m.watchers, q)
		m.mu.Unlock()
	}()
	return out
}
