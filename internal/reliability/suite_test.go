//go:build linux

package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestCheckFromManyGoroutines: the misbehaving case checks from a side
// goroutine while its own checks run, so check must record and print under
// the suite's lock; the race detector (make test) fails this otherwise, and
// every check must be both recorded and printed whole on a line of its own.
func TestCheckFromManyGoroutines(t *testing.T) {
	var out bytes.Buffer
	s := newSuite(t.TempDir(), "", t.TempDir(), false, &out)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				s.check("group", fmt.Sprintf("check-%d-%d", w, i), "expected", "observed", true)
			}
		}()
	}
	wg.Wait()
	if got := len(s.Results()); got != workers*each {
		t.Fatalf("recorded %d checks, want %d", got, workers*each)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2*workers*each {
		t.Fatalf("printed %d lines, want %d (two per check)", len(lines), 2*workers*each)
	}
	for i := 0; i < len(lines); i += 2 {
		if !strings.HasPrefix(lines[i], "ok   check-") || !strings.Contains(lines[i+1], "observed: observed") {
			t.Fatalf("check printed out of one piece at line %d: %q / %q", i, lines[i], lines[i+1])
		}
	}
}
