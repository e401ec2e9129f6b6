package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/storetest"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// The store is also the replicas' channel the gateway uses; redisstore does
// not import gateway, so the assertion lives here.
var _ gateway.Peers = (*redisstore.Store)(nil)

// open returns a store on srv's database db with a prefix of its own.
func open(t *testing.T, url string, prefix string, idle time.Duration) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(redisstore.Options{URL: secret.URL(url), Prefix: prefix, IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The Redis store passes the suite every store must pass, with two stores
// (two replicas) on one real redis-server.
func TestSuite(t *testing.T) {
	srv := testredis.New(t)
	n := 0
	storetest.Run(t, func(t *testing.T, idle time.Duration) (host.SessionStore, host.SessionStore) {
		n++
		prefix := "suite" + strings.Repeat("x", n) + ":" // a fresh namespace per case
		return open(t, srv.URL(0), prefix, idle), open(t, srv.URL(0), prefix, idle)
	})
}

// Redis down: every operation fails at once with ErrStoreUnavailable naming
// the store (password masked), nothing is half-written, and the store works
// again by itself when Redis is back; a watcher gets a Resync.
func TestRedisDownAndBack(t *testing.T) {
	srv := testredis.New(t)
	url := strings.Replace(srv.URL(0), "redis://", "redis://:hunter2secret@", 1)
	if reply, err := srv.Command("CONFIG", "SET", "requirepass", "hunter2secret"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET requirepass: %q %v", reply, err)
	}
	s := open(t, url, "down:", time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := s.Watch(ctx)
	if err := s.Create(ctx, "a", host.SessionRecord{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "a", func(st *host.SessionRecord) error { st.Listed = 1; return nil }); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	began := time.Now()
	// Ping first: until a command fails (or the subscription notices),
	// Load may answer from the copy the store knew current.
	for _, o := range []struct {
		name string
		op   func() error
	}{
		{"ping", func() error { return s.Ping(ctx) }},
		{"load", func() error { _, err := s.Load(ctx, "a"); return err }},
		{"create", func() error { return s.Create(ctx, "b", host.SessionRecord{}) }},
		{"update", func() error {
			_, err := s.Update(ctx, "a", func(st *host.SessionRecord) error { st.Listed = 2; return nil })
			return err
		}},
		{"delete", func() error { return s.Delete(ctx, "a") }},
	} {
		name, err := o.name, o.op()
		if !errors.Is(err, host.ErrStoreUnavailable) || !strings.Contains(err.Error(), "redis at redis://:****@127.0.0.1:") ||
			!strings.Contains(err.Error(), "tools.mcp.gateway.store") || strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("%s with Redis down: %v, want ErrStoreUnavailable naming the store, password masked", name, err)
		}
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("five operations against a dead Redis took %v", took)
	}
	t.Logf("five operations against a dead Redis took %v", time.Since(began))

	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The password is configuration, not data: set it again.
	if reply, err := srv.Command("CONFIG", "SET", "requirepass", "hunter2secret"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET requirepass: %q %v", reply, err)
	}
	testwait.Eventually(t, 10*time.Second, "the store to recover after Redis came back", func() bool { return s.Ping(ctx) == nil })
	t.Logf("recovered %v after the restart", time.Since(began))
	st, err := s.Load(ctx, "a")
	if err != nil || st.Listed != 1 || st.Rev != 2 {
		t.Errorf("the session after the outage: %+v %v, want the state written before it (listed 1, rev 2)", st, err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.Resync {
				t.Logf("resync %v after the restart", time.Since(began))
				return
			}
		case <-timeout:
			t.Fatal("no Resync reported within 10s of Redis coming back")
		}
	}
}

// An error Redis sent (out of memory, a wrong password) is quoted as Redis
// said it, with the store it came from — not reported as Redis not
// answering, which sends the operator looking at the network.
func TestRedisErrorsQuoted(t *testing.T) {
	srv := testredis.New(t)
	ctx := context.Background()

	s := open(t, srv.URL(0), "oom:", time.Minute)
	if reply, err := srv.Command("CONFIG", "SET", "maxmemory", "1"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET maxmemory: %q %v", reply, err)
	}
	err := s.Create(ctx, "a", host.SessionRecord{})
	if !errors.Is(err, host.ErrStoreUnavailable) || strings.Contains(err.Error(), "did not answer") ||
		!strings.Contains(err.Error(), `redis at redis://127.0.0.1:`) || !strings.Contains(err.Error(), `answered create session with an error: "OOM command not allowed`) {
		t.Errorf("create with Redis out of memory: %v", err)
	}
	if reply, err := srv.Command("CONFIG", "SET", "maxmemory", "0"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET maxmemory 0: %q %v", reply, err)
	}

	if reply, err := srv.Command("CONFIG", "SET", "requirepass", "the-right-one"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET requirepass: %q %v", reply, err)
	}
	wrong := open(t, strings.Replace(srv.URL(0), "redis://", "redis://:wrong-pass-123@", 1), "auth:", time.Minute)
	err = wrong.Ping(ctx)
	if !errors.Is(err, host.ErrStoreUnavailable) || strings.Contains(err.Error(), "did not answer") ||
		!strings.Contains(err.Error(), `redis at redis://:****@127.0.0.1:`) || !strings.Contains(err.Error(), `answered ping with an error: "WRONGPASS`) ||
		strings.Contains(err.Error(), "wrong-pass-123") {
		t.Errorf("ping with a wrong password: %v", err)
	}
}
