package bench

import (
	"math"
	"testing"
	"time"
)

// Per 1,000 calls and the saturation estimate follow from the samples.
func TestCPUFigures(t *testing.T) {
	before := cpuSample{plughost: time.Second, servers: time.Second, redis: time.Second}
	after := cpuSample{plughost: 3 * time.Second, servers: 2 * time.Second, redis: 1500 * time.Millisecond}
	c := per1000(before, after, 10_000) // 2 s, 1 s and 0.5 s over 10,000 calls
	if c.Plughost != 0.2 || c.Servers != 0.1 || c.Redis != 0.05 {
		t.Fatalf("per 1,000 calls: %+v, want plughost 0.2, servers 0.1, redis 0.05", c)
	}
	s := saturation(c)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(s.RedisCallsPerCore, 20_000) || !near(s.ReplicaCallsPerCore, 1000/0.3) || !near(s.ReplicaCores, 6) {
		t.Errorf("saturation %+v: want Redis 20,000 calls/s per core, a replica core %.0f calls/s, 6 replica cores", s, 1000/0.3)
	}
	if s := saturation(CPUPer1000{Plughost: 0.2}); s.RedisCallsPerCore != 0 || s.ReplicaCores != 0 {
		t.Errorf("no Redis: %+v, want no Redis figures", s)
	}
}
