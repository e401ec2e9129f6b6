package syncbuf

import (
	"fmt"
	"sync"
	"testing"
)

// Concurrent writers lose nothing and interleave whole writes (the race
// detector checks the locking).
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(&b, "%d-%d\n", i, j)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := len(b.Lines()); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}
