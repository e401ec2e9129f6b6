package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A small bench cpu run with every setup: each answers every call with its
// own text, the CPU and write syscall figures come from real processes, the
// ratios are computed from them, and the session memory and the profiles
// are there.
func TestCallCPUBench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two plughost serve processes, a relay and a server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	exe := bins.Path("plughost")
	profiles := t.TempDir()
	// CPU times come in clock ticks of 10 ms: enough calls that a relay's
	// share of them spans several, not a tick that may or may not fall.
	const calls = 240
	r, err := CallCPU(ctx, CallCPUOptions{
		Plughost: exe, Baseline: exe, Environ: os.Environ(),
		Server:     []string{exe, "demo-server"},
		HTTPServer: []string{exe, "demo-server", "--listen", "127.0.0.1:0"},
		RelayFloor: []string{exe, "bench", "relay-floor", "--listen", "127.0.0.1:0", "--", exe, "demo-server"},
		Sessions:   []int{1, 3}, Calls: calls, Rounds: 2, IdleSessions: 50, Settle: 100 * time.Millisecond,
		ProfileDir: profiles, ProfileSeconds: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Levels) != 2 {
		t.Fatalf("%d levels, want 2", len(r.Levels))
	}
	for _, l := range r.Levels {
		if l.Floor == nil || l.Baseline == nil {
			t.Fatalf("%d sessions: floor %v, baseline %v; want both", l.Sessions, l.Floor, l.Baseline)
		}
		for name, s := range map[string]*CPUSetupRuns{"gateway": &l.Gateway, "direct": &l.Direct, "floor": l.Floor, "baseline": l.Baseline} {
			want := 2 * (calls / l.Sessions) * l.Sessions
			if s.Lost+s.Mismatched > 0 {
				t.Errorf("%d sessions, %s: %d lost, %d mismatched", l.Sessions, name, s.Lost, s.Mismatched)
			}
			calls := 0
			for _, run := range s.runs {
				calls += run.OK
			}
			if calls != want {
				t.Errorf("%d sessions, %s: %d calls answered with their own text, want %d", l.Sessions, name, calls, want)
			}
			if s.CPU.Servers <= 0 || s.ServerWrites < 1 {
				t.Errorf("%d sessions, %s: server CPU %v, writes per call %v; the server answered every call", l.Sessions, name, s.CPU.Servers, s.ServerWrites)
			}
			if name != "direct" && (s.CPU.Plughost <= 0 || s.PlughostWrites < 1) {
				t.Errorf("%d sessions, %s: own CPU %v, writes per call %v; it relayed every call", l.Sessions, name, s.CPU.Plughost, s.PlughostWrites)
			}
			if (name == "gateway" || name == "baseline") && (s.Allocs < 10 || s.AllocBytes < 1000) {
				t.Errorf("%d sessions, %s: serve allocated %v objects, %v bytes per call; a call allocates", l.Sessions, name, s.Allocs, s.AllocBytes)
			}
		}
		if l.PlughostVsServer <= 0 || l.TreeVsServer <= l.PlughostVsServer || l.Throughput <= 0 || l.FloorVsServer <= 0 || l.VsBaseline <= 0 {
			t.Errorf("%d sessions: ratios %+v; want each computed", l.Sessions, l)
		}
	}
	m := r.Sessions
	// Stacks come in spans of many goroutines' and may reuse freed ones:
	// 50 sessions may add none.
	if m == nil || m.Sessions != 50 || m.GatewayLiveHeap <= 0 || m.GatewayStacks < 0 {
		t.Fatalf("session memory %+v: want the heap (and stacks) 50 open sessions hold", m)
	}
	for _, name := range []string{"serve.pprof", "serve-allocs.pprof", "serve-sessions-heap.pprof", "serve-sessions-goroutine.pprof"} {
		b, err := os.ReadFile(filepath.Join(profiles, name))
		if err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("profile %s: %d bytes, %v; want a gzipped profile", name, len(b), err)
		}
	}
}
