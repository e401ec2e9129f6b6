// Package coalesce hands values from any number of producers to one reader
// through a channel without ever blocking a producer: while the reader is
// behind, each pending value is kept once, so a burst costs one entry per
// distinct value and nothing is dropped. Stores use it to report which
// keys changed.
package coalesce

import (
	"context"
	"sync"
)

// Queue is a set of pending values for one reader. Safe for concurrent use.
type Queue[T comparable] struct {
	mu      sync.Mutex
	pending map[T]struct{}
	wake    chan struct{}
}

// New returns an empty queue.
func New[T comparable]() *Queue[T] {
	return &Queue[T]{pending: map[T]struct{}{}, wake: make(chan struct{}, 1)}
}

// Add queues v unless it is pending already; it never blocks.
func (q *Queue[T]) Add(v T) {
	q.mu.Lock()
	q.pending[v] = struct{}{}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // a wake-up is pending: it takes v too
	}
}

// Deliver sends the queued values to out, in no particular order, until
// ctx ends, then closes out. Values added while ctx is live are delivered
// unless ctx ends first.
func (q *Queue[T]) Deliver(ctx context.Context, out chan<- T) {
	defer close(out)
	for {
		select {
		case <-q.wake:
		case <-ctx.Done():
			return
		}
		for v := range q.take() {
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}
}

// take empties the queue and returns what it held.
func (q *Queue[T]) take() map[T]struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	p := q.pending
	q.pending = map[T]struct{}{}
	return p
}
