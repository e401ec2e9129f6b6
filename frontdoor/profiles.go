package frontdoor

import (
	"net/http"
	"net/http/pprof"
)

// MountProfiles serves Go's runtime profiles (net/http/pprof) behind the
// token, for tools.mcp.gateway.debug: the index and every named profile
// (heap, goroutine, allocs, block, mutex, threadcreate) at
// /debug/pprof/<name>, a CPU profile at /debug/pprof/profile?seconds=N, an
// execution trace at /debug/pprof/trace?seconds=N, and the command line
// and symbol lookup `go tool pprof` asks for. A profile lasting longer
// than the limits' read timeout still completes: the door sets no write
// timeout.
func (d *Door) MountProfiles() {
	d.Mount("GET /debug/pprof/", http.HandlerFunc(pprof.Index))
	d.Mount("GET /debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
	d.Mount("GET /debug/pprof/profile", http.HandlerFunc(pprof.Profile))
	d.Mount("GET /debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
	d.Mount("POST /debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
	d.Mount("GET /debug/pprof/trace", http.HandlerFunc(pprof.Trace))
}
