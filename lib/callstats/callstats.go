// Package callstats counts tool calls per server: calls, errors and latency
// percentiles over the last minutes, for the dashboard and GET
// /api/servers. Memory is fixed per server: a ring of one-minute buckets,
// each with a small log-scale latency histogram (about 6% relative error
// on a percentile), so recording is cheap (a lock, a few adds) and nothing
// grows with traffic.
package callstats

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Minutes is how many one-minute buckets a server keeps (the series).
const Minutes = 30

// WindowMinutes is the window of a Summary.
const WindowMinutes = 15

// bins is the size of a latency histogram: 4 bins per power of two of
// microseconds, up to 2^31 µs (about 36 minutes).
const bins = 128

// Recorder holds the counts of every server. The zero value is not usable;
// call New. It is safe for concurrent use.
type Recorder struct {
	now   func() time.Time
	total atomic.Uint64

	mu      sync.RWMutex
	servers map[string]*series
}

// New returns an empty recorder reading the clock now (time.Now if nil).
func New(now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{now: now, servers: map[string]*series{}}
}

type series struct {
	mu      sync.Mutex
	buckets [Minutes]bucket // bucket of minute m at m % Minutes
}

type bucket struct {
	minute int64 // unix minute the counts belong to
	calls  uint32
	errors uint32
	hist   [bins]uint32
}

// Record counts one call to server that took d; failed counts it as an
// error too (a failed call or a result with isError).
func (r *Recorder) Record(server string, d time.Duration, failed bool) {
	r.total.Add(1)
	minute := r.now().Unix() / 60
	r.mu.RLock()
	s := r.servers[server]
	r.mu.RUnlock()
	if s == nil {
		r.mu.Lock()
		if s = r.servers[server]; s == nil {
			s = &series{}
			r.servers[server] = s
		}
		r.mu.Unlock()
	}
	s.mu.Lock()
	b := &s.buckets[minute%Minutes]
	if b.minute != minute {
		*b = bucket{minute: minute}
	}
	b.calls++
	if failed {
		b.errors++
	}
	b.hist[binOf(d)]++
	s.mu.Unlock()
}

// Total returns how many calls were recorded since New: a front end polls
// it to see whether anything changed.
func (r *Recorder) Total() uint64 { return r.total.Load() }

// Retain forgets every server not in names (servers removed from the
// config).
func (r *Recorder) Retain(names []string) {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for n := range r.servers {
		if !keep[n] {
			delete(r.servers, n)
		}
	}
}

// Summary is a server's calls over the last WindowMinutes minutes.
type Summary struct {
	// Calls and Errors count the calls, and the failed ones.
	Calls  int `json:"calls"`
	Errors int `json:"errors"`
	// P50ms and P99ms are latency percentiles in milliseconds (0 without
	// calls).
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
}

// Point is one minute of a Series.
type Point struct {
	// T is the minute's start, in Unix seconds.
	T int64 `json:"t"`
	Summary
}

// Stats is a server's Summary and its per-minute series.
type Stats struct {
	Summary
	// Series has one point per minute, oldest first, the last Minutes
	// minutes up to the current one (zeros for quiet minutes).
	Series []Point `json:"series"`
}

// Summary returns server's counts over the last WindowMinutes minutes.
func (r *Recorder) Summary(server string) Summary {
	var hist [bins]uint32
	var sum Summary
	now := r.now().Unix() / 60
	r.each(server, func(b *bucket) {
		if b.minute > now-WindowMinutes && b.minute <= now {
			sum.Calls += int(b.calls)
			sum.Errors += int(b.errors)
			for i, n := range b.hist {
				hist[i] += n
			}
		}
	})
	sum.P50ms, sum.P99ms = quantile(&hist, 0.50), quantile(&hist, 0.99)
	return sum
}

// Stats returns server's summary and series.
func (r *Recorder) Stats(server string) Stats {
	now := r.now().Unix() / 60
	st := Stats{Summary: r.Summary(server), Series: make([]Point, Minutes)}
	for i := range st.Series {
		st.Series[i].T = (now - Minutes + 1 + int64(i)) * 60
	}
	r.each(server, func(b *bucket) {
		i := b.minute - (now - Minutes + 1)
		if i < 0 || i >= Minutes || b.calls == 0 {
			return
		}
		st.Series[i].Summary = Summary{Calls: int(b.calls), Errors: int(b.errors),
			P50ms: quantile(&b.hist, 0.50), P99ms: quantile(&b.hist, 0.99)}
	})
	return st
}

// each calls f with a copy of every bucket of server, under its lock.
func (r *Recorder) each(server string, f func(*bucket)) {
	r.mu.RLock()
	s := r.servers[server]
	r.mu.RUnlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.buckets {
		f(&s.buckets[i])
	}
}

// binOf maps a latency to its histogram bin: 4 bins per power of two of
// microseconds (bin 4k+j covers [2^k·(1+j/4), 2^k·(1+(j+1)/4)) µs).
func binOf(d time.Duration) int {
	us := uint64(max(d.Microseconds(), 1))
	k := bits.Len64(us) - 1 // 2^k <= us < 2^(k+1)
	var j uint64
	if k >= 2 {
		j = (us >> (k - 2)) & 3
	} else {
		j = (us << (2 - k)) & 3
	}
	return min(4*k+int(j), bins-1)
}

// binMid is the middle of a bin, in milliseconds.
func binMid(i int) float64 {
	k, j := i/4, i%4
	lo := float64(uint64(1)<<k) * (1 + float64(j)/4)
	hi := float64(uint64(1)<<k) * (1 + float64(j+1)/4)
	return (lo + hi) / 2 / 1000
}

// quantile returns the q-quantile of a histogram, in milliseconds.
func quantile(h *[bins]uint32, q float64) float64 {
	var n uint64
	for _, c := range h {
		n += uint64(c)
	}
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n-1)) + 1 // 1-based rank of the quantile
	var seen uint64
	for i, c := range h {
		if seen += uint64(c); seen >= rank {
			return roundMs(binMid(i))
		}
	}
	return roundMs(binMid(bins - 1))
}

// roundMs keeps three significant decimals of a millisecond value.
func roundMs(ms float64) float64 {
	return float64(int64(ms*1000+0.5)) / 1000
}
