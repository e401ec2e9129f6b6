package main

import (
	"os"
	"runtime/debug"
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
