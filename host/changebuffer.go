package host

import (
	"context"
	"sync"
)

// ChangeBuffer collects session changes for one Watch reader and coalesces
// them per session while the reader is behind, so a store never blocks on
// a slow reader and a backlog costs one entry per session. Stores use it to
// implement Watch. Safe for concurrent use.
type ChangeBuffer struct {
	mu      sync.Mutex
	pending map[string]bool // id → ended
	resync  bool
	wake    chan struct{}
}

// NewChangeBuffer returns an empty buffer.
func NewChangeBuffer() *ChangeBuffer {
	return &ChangeBuffer{pending: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Add records a change; it never blocks.
func (b *ChangeBuffer) Add(c SessionChange) {
	b.mu.Lock()
	if c.Resync {
		b.resync = true
	} else {
		b.pending[c.ID] = b.pending[c.ID] || c.Ended
	}
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Deliver sends the recorded changes to out (a Resync first, when one is
// pending) until ctx ends, then closes out.
func (b *ChangeBuffer) Deliver(ctx context.Context, out chan<- SessionChange) {
	defer close(out)
	for {
		select {
		case <-b.wake:
		case <-ctx.Done():
			return
		}
		resync, pending := b.take()
		if resync {
			select {
			case out <- SessionChange{Resync: true}:
			case <-ctx.Done():
				return
			}
		}
		for id, ended := range pending {
			select {
			case out <- SessionChange{ID: id, Ended: ended}:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (b *ChangeBuffer) take() (bool, map[string]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	resync, p := b.resync, b.pending
	b.resync, b.pending = false, map[string]bool{}
	return resync, p
}
