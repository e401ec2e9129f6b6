package redisstore

import "sync"

// recentMax bounds how many sessions' values a store remembers.
const recentMax = 8192

// recentValues remembers, per session, the value this store last read or
// wrote: the expected value of the next update's compare-and-swap, which
// then needs no read first. It is only ever a guess — the script checks
// it, and a stale one costs the round trip a read would have — so it is
// never handed to a caller unchecked. Bounded: when full, an arbitrary
// entry makes room. Safe for concurrent use.
type recentValues struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

func newRecentValues(max int) *recentValues {
	return &recentValues{m: make(map[string]string), max: max}
}

func (r *recentValues) get(id string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[id]
	return v, ok
}

func (r *recentValues) put(id, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[id]; !ok && len(r.m) >= r.max {
		for k := range r.m { // map order is arbitrary: evict one
			delete(r.m, k)
			break
		}
	}
	r.m[id] = value
}

func (r *recentValues) drop(id string) {
	r.mu.Lock()
	delete(r.m, id)
	r.mu.Unlock()
}
