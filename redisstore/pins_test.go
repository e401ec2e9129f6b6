package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/host/trust/trusttest"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
)

// The pins in Redis pass the suite every pin store must pass, with two
// stores (two replicas) on one real redis-server.
func TestPinsSuite(t *testing.T) {
	srv := testredis.New(t)
	n := 0
	trusttest.Run(t, func(t *testing.T) (a, b trust.Store, reopen func() trust.Store) {
		n++
		prefix := "pins" + strings.Repeat("x", n) + ":" // a fresh namespace per case
		return open(t, srv.URL(0), prefix, 0).Pins(), open(t, srv.URL(0), prefix, 0).Pins(),
			func() trust.Store { return open(t, srv.URL(0), prefix, 0).Pins() }
	})
}

// next returns the next server Changes delivers, failing after 10s.
func next(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case server := <-ch:
		return server
	case <-time.After(10 * time.Second):
		t.Fatalf("no change delivered within 10s: %s", what)
		return ""
	}
}

// Redis down: Load and Pin fail at once naming Redis and what they did,
// password masked; a watcher is told to re-load every server once Redis
// is back, since what was published meanwhile is lost.
func TestPinsRedisDownAndBack(t *testing.T) {
	srv := testredis.New(t)
	url := strings.Replace(srv.URL(0), "redis://", "redis://:hunter2secret@", 1)
	if reply, err := srv.Command("CONFIG", "SET", "requirepass", "hunter2secret"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET requirepass: %q %v", reply, err)
	}
	s := open(t, url, "pinsdown:", 0)
	pins := s.Pins()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := pins.Changes(ctx)
	if got := next(t, ch, "at the start"); got != trust.AllServers {
		t.Fatalf("first delivery %q, want %q (all) once the subscription works", got, trust.AllServers)
	}
	if err := pins.Pin(ctx, "a", map[string]trust.Pin{"x": trusttest.MakePin(t, `{"name":"x"}`, "api")}); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch, "the pin of a"); got != "a" {
		t.Fatalf("delivered %q, want a", got)
	}

	srv.Stop()
	for op, err := range map[string]error{
		"load the tool pins of server \"a\"": func() error { _, _, err := pins.Load(ctx, "a"); return err }(),
		"server \"a\"":                       pins.Pin(ctx, "a", nil),
	} {
		if !errors.Is(err, host.ErrStoreUnavailable) || !strings.Contains(err.Error(), "redis at redis://:****@127.0.0.1:") ||
			!strings.Contains(err.Error(), op) || strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("with Redis down: %v, want ErrStoreUnavailable naming the store, password masked, and %q", err, op)
		}
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if reply, err := srv.Command("CONFIG", "SET", "requirepass", "hunter2secret"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET requirepass: %q %v", reply, err)
	}
	if got := next(t, ch, "after Redis came back"); got != trust.AllServers {
		t.Errorf("after Redis came back: %q, want %q (all)", got, trust.AllServers)
	}
	testwait.Eventually(t, 10*time.Second, "the pins to load again", func() bool {
		rec, ok, err := pins.Load(ctx, "a")
		return err == nil && ok && rec.Tools["x"].By == "api"
	})
}

// The hash holds one field per server, its record as compact JSON with
// definitions readable; a field that is not a record is an error, and is
// not overwritten.
func TestPinsStoredForm(t *testing.T) {
	srv := testredis.New(t)
	pins := open(t, srv.URL(0), "form:", 0).Pins()
	ctx := context.Background()
	p := trusttest.MakePin(t, `{"name":"x","description":"<IMPORTANT>hi</IMPORTANT>"}`, "cli")
	if err := pins.Pin(ctx, "srv", map[string]trust.Pin{"x": p}); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	raw, err := rdb.HGet(ctx, "form:pins", "srv").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw, `{"tools":{"x":{"digest":"`+p.Digest+`","definition":{"description":"<IMPORTANT>hi</IMPORTANT>","name":"x"},`) {
		t.Errorf("stored record: %s", raw)
	}
	if err := rdb.HSet(ctx, "form:pins", "bad", "{not json").Err(); err != nil {
		t.Fatal(err)
	}
	_, _, loadErr := pins.Load(ctx, "bad")
	pinErr := pins.Pin(ctx, "bad", nil)
	for op, err := range map[string]error{"load": loadErr, "pin": pinErr} {
		if err == nil || !strings.Contains(err.Error(), `server "bad"`) || !strings.Contains(err.Error(), "not valid") || !strings.Contains(err.Error(), "form:pins") {
			t.Errorf("%s of a field that is not a record: %v, want an error naming it", op, err)
		}
	}
	if raw, _ := rdb.HGet(ctx, "form:pins", "bad").Result(); raw != "{not json" {
		t.Errorf("the field that was not a record was overwritten: %s", raw)
	}
}
