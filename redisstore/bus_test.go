package redisstore

import (
	"sync"
	"testing"
)

// Once remove returns, no callback of the listener runs: a reader may
// close what its callbacks send on (run calls them from a snapshot taken
// before the removal).
func TestNoCallbackAfterRemove(t *testing.T) {
	b := newBus()
	for range 200 {
		out := make(chan string, 1)
		l := &listener{handle: func(p string) {
			select {
			case out <- p:
			default:
			}
		}}
		b.add(l)
		listeners := b.snapshot()
		var wg sync.WaitGroup
		wg.Go(func() {
			for range 20 {
				for _, l := range listeners {
					l.call(func() { l.handle("event") })
				}
			}
		})
		b.remove(l)
		close(out) // a send after this would panic
		wg.Wait()
	}
}
