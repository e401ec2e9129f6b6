package redisstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testwait"
)

// Counts asked for while one is in flight wait for it and go together, in
// one batch; each gets its own result; a waiter whose context ends stops
// waiting.
func TestTurnCountsShareABatch(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var batches [][]string
	b := &turnBatch{send: func(_ context.Context, counts []*turnCount) {
		mu.Lock()
		first := len(batches) == 0
		var ids []string
		for _, c := range counts {
			ids = append(ids, c.id)
		}
		batches = append(batches, ids)
		mu.Unlock()
		if first {
			<-release
		}
		for i, c := range counts {
			c.n = int64(100*len(batches) + i)
			if c.id == "gone" {
				c.n = -1
			}
			close(c.done)
		}
	}}
	results := make(chan int64, 6)
	go func() { n, _ := b.count(context.Background(), "first"); results <- n }()
	testwait.Eventually(t, 5*time.Second, "the first count in flight", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(batches) == 1
	})
	for _, id := range []string{"a", "b", "gone", "c"} {
		go func() { n, _ := b.count(context.Background(), id); results <- n }()
	}
	ctx, cancel := context.WithCancel(context.Background())
	abandoned := make(chan error, 1)
	go func() { _, err := b.count(ctx, "abandoned"); abandoned <- err }()
	testwait.Eventually(t, 5*time.Second, "five counts queued", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue) == 5
	})
	cancel()
	if err := <-abandoned; !errors.Is(err, context.Canceled) {
		t.Errorf("an abandoned wait returned %v, want context.Canceled", err)
	}
	close(release)
	got := map[int64]bool{}
	for range 5 {
		got[<-results] = true
	}
	mu.Lock()
	if len(batches) != 2 || len(batches[0]) != 1 || len(batches[1]) != 5 {
		t.Fatalf("batches %v; want the first count alone, then the five queued meanwhile together", batches)
	}
	if !got[100] || len(got) != 5 || !got[-1] {
		t.Errorf("results %v; want the first count's 100, four of the second batch and -1 for the gone session", got)
	}
	mu.Unlock()
	testwait.Eventually(t, 5*time.Second, "idle after the batches", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return !b.sending && len(b.queue) == 0
	})
}
