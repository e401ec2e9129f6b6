package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testredis"
)

// A small bench replicas run: every setup answers every call, and the
// figures it reports (CPU per call of each process kind, the saturation
// estimate, commands per call) come out of real processes.
func TestReplicasBench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts five plughost serve processes and two redis-servers")
	}
	if _, err := testredis.Binary(); err != nil {
		t.Skipf("SKIP (loud): %v; the Redis bench is untested", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	profiles := t.TempDir()
	// CPU times come in clock ticks of 10 ms: enough calls that
	// redis-server's share of them spans several, not a tick that may or
	// may not fall.
	const sessions, calls = 3, 300
	r, err := Replicas(ctx, ReplicasOptions{Plughost: bins.Path("plughost"), Server: []string{bins.Path("plughost"), "demo-server"},
		Environ: os.Environ(), Sessions: sessions, CallsPerSession: calls, Rounds: 1, Calls: 20, MemorySessions: 5,
		ProfileDir: profiles, ProfileSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Setups) != 3 {
		t.Fatalf("%d setups, want 3", len(r.Setups))
	}
	for _, s := range r.Setups {
		if s.OK != sessions*calls || s.Lost+s.Mismatched > 0 {
			t.Errorf("%s: %d ok, %d lost, %d mismatched; want %d ok", s.Name, s.OK, s.Lost, s.Mismatched, sessions*calls)
		}
		if s.CPU.Plughost <= 0 || s.CPU.Servers <= 0 {
			t.Errorf("%s: CPU per 1,000 calls %+v: plughost and servers must have spent some", s.Name, s.CPU)
		}
		if (s.Store == "redis") != (s.CPU.Redis > 0) {
			t.Errorf("%s (%s store): redis-server CPU %v", s.Name, s.Store, s.CPU.Redis)
		}
	}
	if r.Saturation.RedisCallsPerCore <= 0 || r.Saturation.ReplicaCores <= 0 {
		t.Errorf("saturation %+v: want figures from the Redis setup", r.Saturation)
	}
	// A call counts its turn with one script (EVALSHA with its EXISTS,
	// INCR and PEXPIRE); more means the session copy was not trusted.
	if r.CommandsPerCall < 4 || r.CommandsPerCall > 4.5 {
		t.Errorf("Redis commands per tools/call: %.2f, want 4 (one script)", r.CommandsPerCall)
	}
	for _, name := range []string{"memory.pprof", "redis.pprof"} {
		b, err := os.ReadFile(filepath.Join(profiles, name))
		if err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("CPU profile %s: %d bytes, %v; want a gzipped profile", name, len(b), err)
		}
	}
}
