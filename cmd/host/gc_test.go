package main

import "testing"

// Memory goes back to the system once per busy spell: at the first check
// that finds the process idle (start-up counts as busy), not again while it
// stays idle, and again after the next burst of work.
func TestIdleTrimmerReleasesOncePerBusySpell(t *testing.T) {
	var allocated uint64
	releases := 0
	tr := &idleTrimmer{allocated: func() uint64 { return allocated }, release: func() { releases++ }}
	steps := []struct {
		name  string
		alloc uint64
		want  int
	}{
		{"start-up allocates", 50 << 20, 0},
		{"first idle check", 1000, 1},
		{"still idle", 1000, 1},
		{"still idle, a trickle", idleAllocBytes, 1},
		{"a burst of calls", 8 << 20, 1},
		{"idle again", 0, 2},
		{"idle", 0, 2},
	}
	for _, s := range steps {
		allocated += s.alloc
		tr.check()
		if releases != s.want {
			t.Fatalf("%s: %d releases, want %d", s.name, releases, s.want)
		}
	}
}
