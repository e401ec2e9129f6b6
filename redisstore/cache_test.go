package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/lib/secret"
)

func openStore(t *testing.T, url, prefix string) *Store {
	t.Helper()
	s, err := Open(Options{URL: secret.URL(url), Prefix: prefix, IdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	testwait.Eventually(t, 10*time.Second, "the store's session events subscription", func() bool {
		s.cache.mu.Lock()
		defer s.cache.mu.Unlock()
		return s.cache.live
	})
	return s
}

// calls returns how often Redis ran each command so far (INFO commandstats).
func calls(t *testing.T, srv *testredis.Server) map[string]int {
	t.Helper()
	opts, err := redis.ParseURL(srv.URL(0))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	out, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		m[strings.TrimPrefix(name, "cmdstat_")], _ = strconv.Atoi(n)
	}
	return m
}

// delta returns the commands Redis ran between two calls readings, sorted,
// the reading's own commands (HELLO, INFO) left out.
func delta(before, after map[string]int) string {
	var out []string
	for name, n := range after {
		if d := n - before[name]; d > 0 && name != "info" && name != "hello" {
			out = append(out, fmt.Sprintf("%s×%d", name, d))
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func setListed(v uint64) func(*host.SessionRecord) error {
	return func(st *host.SessionRecord) error {
		if st.Listed == v {
			return host.ErrSessionUnchanged
		}
		st.Listed = v
		return nil
	}
}

// What a tools/call asks of the store — a load, an update that changes
// nothing, one that changes the state — costs one round trip, the
// change's script, while the store's copy is known current; the event of
// its own write does not make it doubt that copy.
func TestKnownCurrentCostsOneScript(t *testing.T) {
	srv := testredis.New(t)
	s := openStore(t, srv.URL(0), "rt:")
	ctx := context.Background()
	if err := s.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	// The first connection (after which nothing read before is trusted)
	// and the script's first run (EVALSHA, refused, then EVAL) are behind.
	if _, err := s.Update(ctx, "s", setListed(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "s", setListed(0)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		before := calls(t, srv)
		events := s.cache.eventCount()
		if _, err := s.Load(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "s", setListed(uint64(i))); err != nil { // i == 0: unchanged
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "s", setListed(uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "s", setListed(uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		if got, want := delta(before, calls(t, srv)), "evalsha×1 get×2 publish×1 set×1"; got != want {
			t.Errorf("call %d: Redis ran %q; want one script: %q (its GETs of the value and the turn count, SET and PUBLISH included)", i, got, want)
		}
		// The write's own event arrives; the copy stays trusted.
		testwait.Eventually(t, 10*time.Second, "the write's own event", func() bool { return s.cache.eventCount() > events })
		before = calls(t, srv)
		if st, err := s.Load(ctx, "s"); err != nil || st.Listed != uint64(i+1) {
			t.Fatalf("load after the write: %+v %v", st, err)
		}
		if got := delta(before, calls(t, srv)); got != "" {
			t.Errorf("call %d: a load after the store's own write ran %q", i, got)
		}
	}
}

// Another store's write reaches the copy with its event, which carries the
// value: the next load sees it without a round trip.
func TestAnotherWritersEventUpdatesTheCopy(t *testing.T) {
	srv := testredis.New(t)
	a, b := openStore(t, srv.URL(0), "w:"), openStore(t, srv.URL(0), "w:")
	ctx := context.Background()
	if err := a.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, "s", setListed(1)); err != nil { // the script loaded, a connection made
		t.Fatal(err)
	}
	events := a.cache.eventCount()
	if _, err := b.Update(ctx, "s", setListed(7)); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, "b's event at a", func() bool { return a.cache.eventCount() > events })
	before := calls(t, srv)
	if st, err := a.Load(ctx, "s"); err != nil || st.Listed != 7 {
		t.Errorf("a loads %+v %v after b's write, want listed 7", st, err)
	}
	if st, err := a.Update(ctx, "s", setListed(8)); err != nil || st.Listed != 8 {
		t.Errorf("a's update after b's write: %+v %v", st, err)
	}
	if got, want := delta(before, calls(t, srv)), "evalsha×1 get×2 publish×1 set×1"; got != want {
		t.Errorf("a's load and update after b's event ran %q; want the update's script alone: %q", got, want)
	}
	if err := b.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, "a sees the session end", func() bool {
		_, err := a.Load(ctx, "s")
		return errors.Is(err, host.ErrSessionNotFound)
	})
}

// After Redis restarted, nothing read before is trusted: a session Redis
// lost meanwhile is not found, though the store knew it current.
func TestRestartDistrustsTheCopy(t *testing.T) {
	srv := testredis.New(t)
	s := openStore(t, srv.URL(0), "r:")
	ctx := context.Background()
	if err := s.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	s.cache.mu.Lock()
	epoch := s.cache.epoch
	s.cache.mu.Unlock()
	srv.Stop()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Command("DEL", "r:session:s"); err != nil { // as if Redis had lost it
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, "the store to notice the restart", func() bool {
		s.cache.mu.Lock()
		defer s.cache.mu.Unlock()
		return s.cache.epoch != epoch
	})
	if _, err := s.Load(ctx, "s"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("load after a restart that lost the session: %v, want ErrSessionNotFound", err)
	}
}

// A turn is one script — the session's existence checked, the count raised
// and its TTL renewed — with no PUBLISH: ending a turn rewrites no record
// and sends no event. Deleting the session deletes its count.
func TestATurnIsOneScriptAndNoEvent(t *testing.T) {
	srv := testredis.New(t)
	s := openStore(t, srv.URL(0), "turn:")
	ctx := context.Background()
	if err := s.Create(ctx, "s", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CountTurn(ctx, "s"); err != nil { // the script loaded
		t.Fatal(err)
	}
	before := calls(t, srv)
	if n, err := s.CountTurn(ctx, "s"); err != nil || n != 2 {
		t.Fatalf("second turn: %d %v, want 2", n, err)
	}
	if got, want := delta(before, calls(t, srv)), "evalsha×1 exists×1 incr×1 pexpire×1"; got != want {
		t.Errorf("a turn ran %q, want %q", got, want)
	}
	if st, err := s.Load(ctx, "s"); err != nil || st.Turn != 2 || st.Rev != 1 {
		t.Errorf("after two turns: turn %d rev %d %v, want turn 2 rev 1", st.Turn, st.Rev, err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	if ttl := rdb.PTTL(ctx, "turn:turn:s").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the count's TTL is %v, want the session's idle timeout", ttl)
	}
	if err := s.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if n := rdb.Exists(ctx, "turn:turn:s").Val(); n != 0 {
		t.Error("the count outlived its deleted session")
	}
	if _, err := s.CountTurn(ctx, "s"); !errors.Is(err, host.ErrSessionNotFound) {
		t.Errorf("a turn of a deleted session: %v, want ErrSessionNotFound", err)
	}
	if n := rdb.Exists(ctx, "turn:turn:s").Val(); n != 0 {
		t.Error("a turn of a deleted session left a count behind")
	}
}
