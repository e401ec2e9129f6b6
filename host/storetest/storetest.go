// Package storetest is the behaviour every host.SessionStore must have, as
// a test suite a store's own tests run (the in-memory store's and Redis's).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/discovery"
)

// Open returns two handles on one fresh store whose sessions expire after
// idle: two processes sharing it (a store kept in the process returns the
// same value twice).
type Open func(t *testing.T, idle time.Duration) (a, b host.SessionStore)

// settle bounds how long a handle may go on returning a state the other
// handle has since changed: a store shared by several processes may serve
// reads from a copy it keeps current by events from the others
// (host.SessionStore.Load), which take a moment to arrive. Updates never
// wait: they apply to the latest state.
const settle = 5 * time.Second

// loadUntil loads session id through store until want accepts the result
// (or settle passed) and returns the last result.
func loadUntil(store host.SessionStore, id string, want func(host.SessionRecord, error) bool) (host.SessionRecord, error) {
	deadline := time.Now().Add(settle)
	for {
		st, err := store.Load(context.Background(), id)
		if want(st, err) || time.Now().After(deadline) {
			return st, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Run runs the suite.
func Run(t *testing.T, open Open) {
	t.Run("CreateLoadUpdate", func(t *testing.T) { createLoadUpdate(t, open) })
	t.Run("ConcurrentUpdatesLoseNothing", func(t *testing.T) { concurrent(t, open) })
	t.Run("UpdatesSeeTheOtherHandlesWrites", func(t *testing.T) { otherWrites(t, open) })
	t.Run("WatchAcrossHandles", func(t *testing.T) { watch(t, open) })
	t.Run("IdleExpiry", func(t *testing.T) { expiry(t, open) })
	t.Run("TurnsAreCountedBesideTheRecord", func(t *testing.T) { turns(t, open) })
	t.Run("TaskReplicas", func(t *testing.T) { taskReplicas(t, open) })
}

// CountTurn counts each turn once, whichever handle counts it, without
// changing the record; an update applies its function at the current
// count, so what it unlocks lasts its full TTL from then, even through a
// handle that last saw an older count.
func turns(t *testing.T, open Open) {
	ctx := context.Background()
	a, b := open(t, time.Minute)
	if _, err := a.CountTurn(ctx, "nope"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("a turn of a missing session: %v, want ErrSessionNotFound", err)
	}
	if err := a.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Load(ctx, "s"); err != nil || st.Turn != 0 {
		t.Fatalf("a new session: turn %d, %v; want 0", st.Turn, err)
	}
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for i := range 6 {
		store := []host.SessionStore{a, b}[i%2]
		wg.Go(func() {
			n, err := store.CountTurn(ctx, "s")
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			seen[n] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	for n := range uint64(6) {
		if !seen[n+1] {
			t.Errorf("6 concurrent turns returned counts %v, want 1 to 6 once each", seen)
			break
		}
	}
	for range 3 { // b's copy of the count falls behind
		if _, err := a.CountTurn(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
	st, err := b.Update(ctx, "s", func(st *host.SessionRecord) error {
		st.SetUnlocks(st.Unlocks().Unlock(5, "t"))
		return nil
	})
	if err != nil || st.Turn != 9 || st.DiscoveryTurn != 9 || st.Rev != 2 {
		t.Fatalf("unlock after 9 turns: turn %d, written at turn %d, rev %d, %v; want 9, 9, 2", st.Turn, st.DiscoveryTurn, st.Rev, err)
	}
	// left returns the turns t has left and the rev, as an update that
	// writes sees them (the last time its function runs); an update that
	// changes nothing, like Load, may see another handle's count late.
	left := func(store host.SessionStore) (int, uint64) {
		var got host.SessionRecord
		if _, err := store.Update(ctx, "s", func(st *host.SessionRecord) error { got = *st; st.Listed++; return nil }); err != nil {
			t.Fatal(err)
		}
		return got.Unlocks().Unlocked["t"], got.Rev
	}
	for range 4 {
		if _, err := b.CountTurn(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
	if n, rev := left(a); n != 1 || rev != 2 {
		t.Errorf("4 turns after a 5-turn unlock: %d turns left at rev %d, want 1 at rev 2 (counting writes no record)", n, rev)
	}
	if _, err := a.CountTurn(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if n, _ := left(b); n != 0 {
		t.Errorf("5 turns after a 5-turn unlock: %d turns left, want 0", n)
	}
	if err := b.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CountTurn(ctx, "s"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("a turn of a deleted session: %v, want ErrSessionNotFound", err)
	}
}

// Replicas taking a session's first task at once each add themselves to
// its TaskReplicas (as host does): none is lost, and changing a loaded
// copy's list changes nothing stored.
func taskReplicas(t *testing.T, open Open) {
	ctx := context.Background()
	a, b := open(t, time.Minute)
	if err := a.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	const replicas = 6
	var wg sync.WaitGroup
	for r := range replicas {
		store := a
		if r%2 == 1 {
			store = b
		}
		wg.Go(func() {
			self := fmt.Sprintf("r%d", r)
			_, err := store.Update(ctx, "s", func(st *host.SessionRecord) error {
				if slices.Contains(st.TaskReplicas, self) {
					return host.ErrSessionUnchanged
				}
				st.TaskReplicas = append(st.TaskReplicas, self)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, err := loadUntil(a, "s", func(st host.SessionRecord, _ error) bool { return len(st.TaskReplicas) == replicas })
	if err != nil || len(st.TaskReplicas) != replicas {
		t.Fatalf("after %d replicas added themselves: %v %v", replicas, st.TaskReplicas, err)
	}
	st.TaskReplicas[0] = "changed"
	for _, store := range []host.SessionStore{a, b} {
		if again, _ := store.Load(ctx, "s"); slices.Contains(again.TaskReplicas, "changed") {
			t.Errorf("changing a loaded copy's TaskReplicas changed the store's: %v", again.TaskReplicas)
		}
	}
}

func createLoadUpdate(t *testing.T, open Open) {
	ctx := context.Background()
	a, b := open(t, time.Minute)
	if _, err := a.Load(ctx, "nope"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("load of a missing session: %v, want ErrSessionNotFound", err)
	}
	if _, err := a.Update(ctx, "nope", func(*host.SessionRecord) error { return nil }); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("update of a missing session: %v, want ErrSessionNotFound", err)
	}
	if err := a.Create(ctx, "s", host.SessionRecord{Protocol: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Create(ctx, "s", host.SessionRecord{}); !errors.Is(err, host.ErrSessionExists) {
		t.Errorf("second create of one id: %v, want ErrSessionExists", err)
	}
	st, err := b.Load(ctx, "s")
	if err != nil || st.Rev != 1 || st.Format != host.SessionRecordFormat || st.Protocol != "2025-11-25" || st.Created.IsZero() {
		t.Fatalf("load after create: %+v %v", st, err)
	}
	st, err = b.Update(ctx, "s", func(st *host.SessionRecord) error {
		st.Listed, st.Discovery = 7, st.Discovery.Unlock(3, "mcp_a_x")
		return nil
	})
	if err != nil || st.Rev != 2 || st.Listed != 7 || !st.Discovery.IsUnlocked("mcp_a_x") || st.Protocol != "2025-11-25" {
		t.Fatalf("update: %+v %v", st, err)
	}
	if got, _ := loadUntil(a, "s", func(st host.SessionRecord, _ error) bool { return st.Rev == 2 }); got.Rev != 2 || got.Discovery.Unlocked["mcp_a_x"] != 3 {
		t.Errorf("the other handle loads %+v after the update", got)
	}
	if st, err := a.Update(ctx, "s", func(*host.SessionRecord) error { return host.ErrSessionUnchanged }); err != nil || st.Rev != 2 || st.Listed != 7 {
		t.Errorf("unchanged update: %+v %v", st, err)
	}
	boom := errors.New("boom")
	if _, err := a.Update(ctx, "s", func(st *host.SessionRecord) error { st.Listed = 9; return boom }); !errors.Is(err, boom) {
		t.Errorf("failing update: %v, want boom", err)
	}
	if st, _ := b.Load(ctx, "s"); st.Listed != 7 || st.Rev != 2 {
		t.Errorf("a failed update was stored: %+v", st)
	}
	if err := a.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := loadUntil(b, "s", func(_ host.SessionRecord, err error) bool { return err != nil }); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("load after delete: %v", err)
	}
	if err := b.Delete(ctx, "s"); err != nil {
		t.Errorf("deleting a missing session: %v", err)
	}
}

// Many writers on both handles update one session at once, each adding an
// unlock and ending turns: every unlock is kept and Rev counts every write.
func concurrent(t *testing.T, open Open) {
	ctx := context.Background()
	a, b := open(t, time.Minute)
	if err := a.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		store := a
		if w%2 == 1 {
			store = b
		}
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("mcp_w%d_t%d", w, i)
				_, err := store.Update(ctx, "s", func(st *host.SessionRecord) error {
					st.Discovery = st.Discovery.Unlock(1000, name)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent update: %v", err)
	}
	st, err := loadUntil(a, "s", func(st host.SessionRecord, _ error) bool { return st.Rev == writers*each+1 })
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Discovery.Unlocked); n != writers*each || st.Rev != writers*each+1 {
		t.Errorf("after %d concurrent unlocks: %d unlocked, rev %d (want rev %d): updates were lost", writers*each, n, st.Rev, writers*each+1)
	}
	// Turns too: n concurrent NextTurns take n turns off.
	var turns sync.WaitGroup
	for w := range 10 {
		store := a
		if w%2 == 1 {
			store = b
		}
		turns.Go(func() {
			if _, err := store.Update(ctx, "s", func(st *host.SessionRecord) error { st.Discovery = st.Discovery.NextTurn(); return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	turns.Wait()
	if st, _ := loadUntil(b, "s", func(st host.SessionRecord, _ error) bool { return st.Discovery.Unlocked["mcp_w0_t0"] == 990 }); st.Discovery.Unlocked["mcp_w0_t0"] != 990 {
		t.Errorf("after 10 concurrent turns a 1000-turn unlock has %d left, want 990", st.Discovery.Unlocked["mcp_w0_t0"])
	}
}

// An update applies its function to the current state, whatever the
// handle read or wrote before: a change that is already there is not
// written again, and a change the other handle undid is made again.
func otherWrites(t *testing.T, open Open) {
	ctx := context.Background()
	a, b := open(t, time.Minute)
	if err := a.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(ctx, "s"); err != nil { // b has seen rev 1
		t.Fatal(err)
	}
	setListed := func(v uint64) func(*host.SessionRecord) error {
		return func(st *host.SessionRecord) error {
			if st.Listed == v {
				return host.ErrSessionUnchanged
			}
			st.Listed = v
			return nil
		}
	}
	if st, err := a.Update(ctx, "s", setListed(5)); err != nil || st.Rev != 2 {
		t.Fatalf("a sets 5: %+v %v", st, err)
	}
	if st, err := b.Update(ctx, "s", setListed(5)); err != nil || st.Rev != 2 || st.Listed != 5 {
		t.Errorf("b sets 5, which a already did: %+v %v, want rev 2 unchanged", st, err)
	}
	if st, err := a.Update(ctx, "s", setListed(0)); err != nil || st.Rev != 3 {
		t.Fatalf("a sets 0: %+v %v", st, err)
	}
	// An update that finds nothing to change may, like Load, see b's copy
	// from before a's write (host.SessionStore.Update): once b has seen
	// the undo, it makes its change again.
	if st, err := loadUntil(b, "s", func(st host.SessionRecord, _ error) bool { return st.Rev == 3 }); err != nil || st.Listed != 0 {
		t.Fatalf("b loads %+v %v, want a's undo (rev 3, listed 0)", st, err)
	}
	if st, err := b.Update(ctx, "s", setListed(5)); err != nil || st.Rev != 4 || st.Listed != 5 {
		t.Errorf("b sets 5 after a undid it: %+v %v, want rev 4 with 5", st, err)
	}
	if st, err := loadUntil(a, "s", func(st host.SessionRecord, _ error) bool { return st.Listed == 5 }); err != nil || st.Listed != 5 {
		t.Errorf("a loads %+v %v, want 5", st, err)
	}
}

// Changes made through one handle are reported to a watcher of the other.
func watch(t *testing.T, open Open) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := open(t, time.Minute)
	changes := b.Watch(ctx)
	if err := a.Create(ctx, "w", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	// A watch may start listening after it returns: write until it reports.
	deadline := time.After(10 * time.Second)
	seen := false
	for i := 0; !seen; i++ {
		if _, err := a.Update(ctx, "w", func(st *host.SessionRecord) error { st.Listed = uint64(i + 1); return nil }); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-changes:
			if c != (host.SessionChange{ID: "w"}) {
				t.Fatalf("change: %+v, want {ID: w}", c)
			}
			seen = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no change reported within 10s")
		}
	}
	if err := a.Delete(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case c := <-changes:
			if c.ID == "w" && c.Ended {
				cancel()
				for range changes { // closed when ctx ends
				}
				return
			}
		case <-deadline:
			t.Fatal("no end reported within 10s")
		}
	}
}

// A session untouched for the idle time is gone; a read renews it.
func expiry(t *testing.T, open Open) {
	ctx := context.Background()
	const idle = time.Second
	a, b := open(t, idle)
	if err := a.Create(ctx, "old", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, "kept", host.SessionRecord{Discovery: discovery.Unlocks{Unlocked: map[string]int{"x": 1}}}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		time.Sleep(idle / 4)
		if _, err := b.Load(ctx, "kept"); err != nil {
			t.Fatalf("a session read every %v expired: %v", idle/4, err)
		}
	}
	time.Sleep(idle / 2)
	if _, err := b.Load(ctx, "old"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("a session untouched for %v: %v, want ErrSessionNotFound", 3*idle/2, err)
	}
	if st, err := a.Load(ctx, "kept"); err != nil || !st.Discovery.IsUnlocked("x") {
		t.Errorf("the session read all along: %+v %v", st, err)
	}
}
