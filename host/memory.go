package host

import (
	"context"
	"runtime"
	"runtime/debug"
	"time"
)

// largeResultBytes is the result size from which a call hands its memory
// back to the operating system once it is done (when
// Options.ReturnMemoryAfterLargeResults is on). Below it the garbage
// collector's own pace is fine; above it a process that served one large
// result would otherwise keep its pages until the next collection, which
// an idle gateway may not run for minutes (docs/benchmarks.md, Large
// results).
const largeResultBytes = 8 << 20

// largeConfigServers is the config size (servers) from which Apply hands
// the memory of loading and applying it back to the operating system, as
// a large call does: a reload of 40,000 servers allocates hundreds of MB
// of garbage (the file's layers, maps and copies) for ≈ 90 MB it keeps.
const largeConfigServers = 1000

// returnMemoryDelay gathers the ends of concurrent large calls into one
// return: a forced collection costs a pause, so one is enough.
const returnMemoryDelay = 100 * time.Millisecond

// afterLargeCall asks for the memory of a finished large call (or of a
// large config applied) to be returned, if the host was asked to
// (Options.ReturnMemoryAfterLargeResults); it never blocks.
func (h *Host) afterLargeCall() {
	if !h.opts.ReturnMemoryAfterLargeResults {
		return
	}
	h.returns.Add(1)
	select {
	case h.largeDone <- struct{}{}:
	default: // a return is already pending; it covers this call too
	}
}

// returnMemory runs until ctx ends: after large calls it forces a
// collection and returns freed pages to the operating system.
func (h *Host) returnMemory(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.largeDone:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(returnMemoryDelay):
		}
		h.freeOS()
	}
}

// freeOSMemory forces a collection and returns freed pages to the operating
// system. Two cycles: buffers pooled in sync.Pools (gRPC's, on the relay)
// survive the first one as its victims.
func freeOSMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}
