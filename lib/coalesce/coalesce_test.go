package coalesce_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/lib/coalesce"
)

// A burst added before the reader reads is delivered once per value.
func TestBurstIsCoalesced(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := coalesce.New[string]()
	for range 3 {
		for _, v := range []string{"a", "b", "c"} {
			q.Add(v)
		}
	}
	out := make(chan string)
	go q.Deliver(ctx, out)
	var got []string
	for range 3 {
		got = append(got, <-out)
	}
	sort.Strings(got)
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
	select {
	case v := <-out:
		t.Errorf("delivered %q again", v)
	case <-time.After(50 * time.Millisecond):
	}
}

// Producers never block on a reader that does not read, and every value
// they add while it is behind reaches it.
func TestSlowReaderLosesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := coalesce.New[int]()
	out := make(chan int)
	go q.Deliver(ctx, out)
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			for i := range 100 {
				q.Add(p*100 + i)
			}
		})
	}
	wg.Wait() // no reader yet: Add must not have blocked
	seen := map[int]bool{}
	for len(seen) < 400 {
		select {
		case v := <-out:
			seen[v] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of 400 values delivered", len(seen))
		}
	}
}

// The channel closes when ctx ends.
func TestDeliverClosesAtTheEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := coalesce.New[string]()
	out := make(chan string)
	done := make(chan struct{})
	go func() { q.Deliver(ctx, out); close(done) }()
	q.Add("x")
	cancel()
	for range out {
	}
	<-done
}
