package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serveGCPercent is the GC target of the long-running gateway. Its live heap
// is small, and at the default of 100 the collector takes a large share of
// the CPU under load: 400 measured ~20 % more calls/s for ~20 MB more peak
// RSS (docs/benchmarks.md, Gateway).
const serveGCPercent = 400

// tuneGC applies serveGCPercent unless the user chose GOGC.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}

// Idle trimming: serve's generous GC target lets the heap grow to five times
// what is live, and the runtime hands freed memory back to the system only
// slowly; after start-up (indexes, schemas) and after each burst of calls
// that memory would stay resident while nothing happens. Once a check finds
// the process idle after it was busy, it collects and returns the free
// memory at once.
const (
	// idleCheckEvery is how often the allocation rate is read.
	idleCheckEvery = 2 * time.Second
	// idleAllocBytes is the most a check may find allocated since the last
	// one for the process to count as idle.
	idleAllocBytes = 1 << 20
)

// idleTrimmer decides when to give memory back: once per busy spell, at
// the first check that finds the process idle.
type idleTrimmer struct {
	allocated func() uint64 // bytes allocated so far
	release   func()        // collect and return free memory to the system
	last      uint64
	trimmed   bool // released since the process was last busy
}

// check reads the allocations since the last check and releases memory
// when the process just went idle.
func (t *idleTrimmer) check() {
	now := t.allocated()
	busy := now-t.last > idleAllocBytes
	t.last = now
	switch {
	case busy:
		t.trimmed = false
	case !t.trimmed:
		t.release()
		t.trimmed = true
	}
}

// releaseWhenIdle runs an idleTrimmer over this process's runtime until ctx
// ends.
func releaseWhenIdle(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	t := &idleTrimmer{
		allocated: func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() },
		release:   debug.FreeOSMemory,
	}
	t.last = t.allocated()
	tick := time.NewTicker(idleCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.check()
		}
	}
}
