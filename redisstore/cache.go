package redisstore

import (
	"slices"
	"sync"
	"time"

	"github.com/plughost/plughost/host"
)

// cacheMax bounds how many sessions' values a store remembers.
const cacheMax = 8192

// ownWrites is how many of its own recent writes per session an entry
// remembers, so their events are not taken for another writer's.
const ownWrites = 4

// sessionCache remembers, per session, the value this store last read or
// wrote, decoded, and whether it is known to be current. Every write by any
// replica publishes the session's id and its new value on the event
// channel; the store's own subscription hands them to changed, which makes
// another writer's value the entry's. So while the subscription works, an
// entry is the session's value in Redis as of the last event, and Load
// and an Update that changes nothing need no round trip. A stale entry still serves as the expected value of the next
// compare-and-swap, which checks it. Nothing is trusted while the
// subscription is down, and everything read before it came back is
// distrusted; an entry is trusted for at most fresh after its last round
// trip, which also renews the key's TTL in time. Bounded: when full, an
// arbitrary entry makes room. Safe for concurrent use.
type sessionCache struct {
	mu    sync.Mutex
	m     map[string]*cacheEntry
	max   int
	fresh time.Duration
	now   func() time.Time
	// live is true while the invalidating subscription works; epoch
	// changes whenever it was lost or came back.
	live  bool
	epoch uint64
	// events counts the session events taken (for tests).
	events uint64
}

// cacheEntry is one session's remembered value.
type cacheEntry struct {
	raw string // the stored value: write id, then the JSON
	rec host.SessionRecord
	ok  bool // raw and rec hold a value (else only the generation counts)
	// gen counts the other writers' changes reported: a read or write that
	// began at another gen may have missed one.
	gen   uint64
	epoch uint64    // the cache's epoch when raw was read or written
	stale bool      // an event contradicted raw, or it was read unsure
	at    time.Time // the last round trip that returned or wrote raw
	own   []string  // write ids of this store's latest writes
	// turn is the session's turn count as last seen (a read, a
	// compare-and-swap, CountTurn): the record returned carries it.
	turn uint64
}

func newSessionCache(max int, fresh time.Duration, now func() time.Time) *sessionCache {
	return &sessionCache{m: make(map[string]*cacheEntry), max: max, fresh: fresh, now: now}
}

// ticket marks the start of a read or write of a session: a value put with
// it is current only if no other writer's change was reported meanwhile.
type ticket struct {
	e     *cacheEntry
	gen   uint64
	epoch uint64
}

// begin returns the value remembered for a session (ok), whether it is
// known current, and a ticket for the round trip the caller makes next.
// Before a write, own names the write id it will store.
func (c *sessionCache) begin(id, own string) (rec host.SessionRecord, raw string, ok, current bool, t ticket) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[id]
	if e == nil {
		c.makeRoom()
		e = &cacheEntry{}
		c.m[id] = e
	}
	if own != "" {
		e.own = append(e.own, own)
		if len(e.own) > ownWrites {
			e.own = slices.Delete(e.own, 0, len(e.own)-ownWrites)
		}
	}
	t = ticket{e: e, gen: e.gen, epoch: c.epoch}
	if !e.ok {
		return host.SessionRecord{}, "", false, false, t
	}
	current = c.live && !e.stale && e.epoch == c.epoch && c.now().Sub(e.at) < c.fresh
	rec = e.rec.Clone()
	rec.Turn = e.turn
	return rec, e.raw, true, current, t
}

// put records raw (decoded rec), just read from or written to Redis by the
// round trip t began: current unless another writer's change was reported
// since, or the subscription was lost or came back. sure is false for a
// value Redis returned as a compare-and-swap's loser, which is current but
// whose TTL the script did not renew. rec.Turn is the turn count Redis
// returned with raw.
func (c *sessionCache) put(id string, t ticket, raw string, rec host.SessionRecord, sure bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[id]
	if e == nil {
		c.makeRoom()
		e = &cacheEntry{gen: t.gen}
		c.m[id] = e
	}
	e.raw, e.rec, e.ok = raw, rec.Clone(), true
	e.stale = !sure || e != t.e || e.gen != t.gen || c.epoch != t.epoch
	e.epoch, e.at = c.epoch, c.now()
	e.turn = rec.Turn
}

// sawTurn records a session's turn count, just returned by CountTurn
// (concurrent counts may return out of order: the highest counts).
func (c *sessionCache) sawTurn(id string, turn uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil {
		e.turn = max(e.turn, turn)
	}
}

// drop forgets a session (it ended, or a round trip failed).
func (c *sessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil {
		e.gen++ // a read in flight must not bring it back as current
		e.ok = false
	}
}

// changed takes an event: session id was written with value (write id,
// then the JSON; "" when the event did not carry it). Another writer's
// value, decoded by decode, becomes the copy, current as of the event: the
// events of one session arrive in the order Redis ran the writes. A round
// trip in flight meanwhile no longer counts as current.
func (c *sessionCache) changed(id, value string, decode func(string) (host.SessionRecord, bool)) {
	c.mu.Lock()
	c.events++
	e := c.m[id]
	if e == nil {
		c.mu.Unlock()
		return // not read here: nothing to distrust, no read in flight
	}
	writeID := writeIDOf(value)
	if writeID != "" && (e.ok && writeIDOf(e.raw) == writeID || slices.Contains(e.own, writeID)) {
		c.mu.Unlock()
		return // this value, or one of this store's own writes
	}
	e.gen++
	e.stale = true
	gen := e.gen
	c.mu.Unlock()
	if writeID == "" {
		return
	}
	rec, ok := decode(value) // outside the lock: the copy is stale meanwhile
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[id] != e || e.gen != gen {
		return // dropped, or a later event came first
	}
	e.raw, e.rec, e.ok, e.stale, e.epoch, e.at = value, rec, true, false, c.epoch, c.now() // the write renewed the TTL
}

// eventCount returns how many session events the cache took.
func (c *sessionCache) eventCount() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events
}

// setLive records that the invalidating subscription works (true) or was
// lost (false); either way what was read before can no longer be trusted.
func (c *sessionCache) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.epoch++
}

// distrust stops trusting what was read so far, until each session's next
// round trip: a command failed, so Redis may have restarted (and lost what
// it held) before the subscription noticed.
func (c *sessionCache) distrust() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
}

// makeRoom evicts an arbitrary entry when the cache is full. Callers hold
// c.mu.
func (c *sessionCache) makeRoom() {
	if len(c.m) < c.max {
		return
	}
	for k := range c.m { // map order is arbitrary: evict one
		delete(c.m, k)
		return
	}
}
