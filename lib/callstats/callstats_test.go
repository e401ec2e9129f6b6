package callstats_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/lib/callstats"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func near(got, want float64) bool { return math.Abs(got-want) <= want*0.13 }

func TestSummaryAndSeries(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0).Truncate(time.Minute)}
	r := callstats.New(c.now)
	for i := 1; i <= 100; i++ { // 1ms … 100ms
		r.Record("a", time.Duration(i)*time.Millisecond, i%10 == 0)
	}
	s := r.Summary("a")
	if s.Calls != 100 || s.Errors != 10 || !near(s.P50ms, 50) || !near(s.P99ms, 99) {
		t.Errorf("summary %+v; want 100 calls, 10 errors, p50≈50, p99≈99", s)
	}
	if z := r.Summary("b"); z != (callstats.Summary{}) {
		t.Errorf("a server without calls: %+v", z)
	}
	c.add(2 * time.Minute)
	r.Record("a", 3*time.Second, false)
	st := r.Stats("a")
	if len(st.Series) != callstats.Minutes || st.Calls != 101 {
		t.Fatalf("stats: %d points, %d calls", len(st.Series), st.Calls)
	}
	last, first := st.Series[len(st.Series)-1], st.Series[len(st.Series)-3]
	if last.T != c.now().Unix() || last.Calls != 1 || !near(last.P50ms, 3000) || first.Calls != 100 || st.Series[len(st.Series)-2].Calls != 0 {
		t.Errorf("series tail: %+v %+v %+v", first, st.Series[len(st.Series)-2], last)
	}
	// Past the window the old minute drops out of the summary, and past
	// the ring out of the series; the ring slot is reused.
	c.add(callstats.WindowMinutes * time.Minute)
	if s := r.Summary("a"); s.Calls != 0 {
		t.Errorf("summary after the window: %+v", s)
	}
	c.add(callstats.Minutes * time.Minute)
	r.Record("a", time.Millisecond, false)
	if st := r.Stats("a"); st.Calls != 1 {
		t.Errorf("after the ring wrapped: %d calls", st.Calls)
	}
	r.Retain(nil)
	if r.Summary("a").Calls != 0 || r.Total() != 102 {
		t.Errorf("after Retain: %+v, total %d", r.Summary("a"), r.Total())
	}
}

func BenchmarkRecord(b *testing.B) {
	r := callstats.New(nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		d := time.Duration(0)
		for pb.Next() {
			d += 37 * time.Microsecond
			r.Record("server", d%(2*time.Second), false)
		}
	})
}

func BenchmarkStats(b *testing.B) {
	r := callstats.New(nil)
	for i := range 10000 {
		r.Record("server", time.Duration(i)*time.Microsecond, false)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Stats("server")
	}
}

func BenchmarkRecordOneGoroutine(b *testing.B) {
	r := callstats.New(nil)
	b.ReportAllocs()
	d := time.Duration(0)
	for b.Loop() {
		d += 37 * time.Microsecond
		r.Record("server", d%(2*time.Second), false)
	}
}
