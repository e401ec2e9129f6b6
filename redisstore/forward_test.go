package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/redisstore"
)

var (
	_ gateway.Relay     = (*redisstore.Store)(nil)
	_ host.ReplicaStore = (*redisstore.Store)(nil)
)

// receive collects what a store receives.
func receive(ctx context.Context, s *redisstore.Store) <-chan string {
	got := make(chan string, 64)
	s.Receive(ctx, func(msg []byte) { got <- string(msg) })
	return got
}

// nextMsg returns the next message other than "ping", failing after 10s.
func nextMsg(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-ch:
			if m != "ping" {
				return m
			}
		case <-timeout:
			t.Fatalf("nothing received within 10s: %s", what)
			return ""
		}
	}
}

// A message sent to a replica reaches it alone; one sent to every replica
// reaches each; the sender learns when the replica named is not there.
func TestSendReachesOneReplica(t *testing.T) {
	srv := testredis.New(t)
	a, b := open(t, srv.URL(0), "relay:", 0), open(t, srv.URL(0), "relay:", 0)
	if a.Replica() == b.Replica() || a.Replica() == "" {
		t.Fatalf("replica ids %q and %q; want two distinct ids", a.Replica(), b.Replica())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gotA, gotB := receive(ctx, a), receive(ctx, b)
	for _, s := range []*redisstore.Store{a, b} {
		if !testwait.Until(10*time.Second, func() bool { ok, _ := s.Send(ctx, s.Replica(), []byte("ping")); return ok }) {
			t.Fatalf("replica %s did not subscribe within 10s", s.Replica())
		}
	}
	if ok, err := a.Send(ctx, b.Replica(), []byte("for b")); !ok || err != nil {
		t.Fatalf("Send to b: delivered %v, %v", ok, err)
	}
	if m := nextMsg(t, gotB, "a message for b"); m != "for b" {
		t.Errorf("b received %q; want %q", m, "for b")
	}
	if ok, err := b.Send(ctx, "", []byte("for all")); !ok || err != nil {
		t.Fatalf("Send to every replica: delivered %v, %v", ok, err)
	}
	if m := nextMsg(t, gotA, "a message for every replica, on a"); m != "for all" { // and not "for b"
		t.Errorf("a received %q; want %q (and nothing meant for b)", m, "for all")
	}
	if m := nextMsg(t, gotB, "a message for every replica, on b"); m != "for all" {
		t.Errorf("b received %q; want %q", m, "for all")
	}
	if ok, err := a.Send(ctx, "gone0", []byte("x")); ok || err != nil {
		t.Errorf("Send to a replica that is not there: delivered %v, %v; want false, nil", ok, err)
	}
	b.Close()
	if !testwait.Until(10*time.Second, func() bool { ok, _ := a.Send(ctx, b.Replica(), []byte("ping")); return !ok }) {
		t.Errorf("Send to a closed replica is still delivered after 10s")
	}
}
