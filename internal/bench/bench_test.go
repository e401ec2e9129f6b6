package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/testbin"
)

var bins testbin.Set

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, &bins, testbin.Standard)) // builds nothing under -short
}

func options() Options {
	return Options{
		Command: bins.Path("testserver"), Tool: "noop", ToolArgs: map[string]any{},
		PluginDirs: []string{bins.PluginDir()}, Environ: os.Environ(), Calls: 50, Servers: 3,
		HTTPServer: []string{bins.Path("testserver"), "-serve", "http"},
	}
}

// BenchmarkCallDirect is the floor: a direct mcp-go stdio client calling noop.
func BenchmarkCallDirect(b *testing.B) {
	ctx := context.Background()
	c, err := directClient(ctx, options())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name = "noop"
	for b.Loop() {
		if _, err := c.CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallHost calls noop through plughost with direct pipes.
func BenchmarkCallHost(b *testing.B) { benchHost(b, false) }

// BenchmarkCallRelay calls noop through plughost's gRPC stream relay.
func BenchmarkCallRelay(b *testing.B) { benchHost(b, true) }

func benchHost(b *testing.B, relayOnly bool) {
	setup, err := hostCaller(context.Background(), options(), relayOnly)
	if err != nil {
		b.Fatal(err)
	}
	defer setup.close()
	for b.Loop() {
		if err := setup.call(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCallLatencyAndStartup runs the measurements once, small, so the code
// behind `plughost bench` is exercised by the suite. No timing is asserted;
// what is checked is that each figure measures what it claims: every
// measured call succeeded, the two hosts really used direct pipes and the
// relay, the delay proxy really delayed, and the start-up measurement saw
// its processes running.
func TestCallLatencyAndStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin and server processes: heavy integration test, skipped under -short")
	}
	o := options()
	r, err := CallLatency(t.Context(), o)
	if err != nil {
		t.Fatal(err) // a failed call (an error or isError) ends the measurement
	}
	for name, l := range map[string]Latency{"direct": r.Direct, "host": r.Host, "relay": r.Relay} {
		if l.N < o.Calls || l.P50 <= 0 || l.P99 < l.P50 {
			t.Errorf("%s: summary %+v of %d calls", name, l, o.Calls)
		}
	}
	if r.HostPath != "direct-pipes" || r.RelayPath != "relay" {
		t.Errorf("measured paths: host %q, relay %q; want direct-pipes and relay", r.HostPath, r.RelayPath)
	}
	bad := o
	bad.Tool, bad.ToolArgs = "echo", map[string]any{} // isError (no text): must not be measured
	if _, err := CallLatency(t.Context(), bad); err == nil {
		t.Error("CallLatency measured a tool that fails")
	}
	hr, err := HTTPCallLatency(t.Context(), o, []time.Duration{0, time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr) != 2 || hr[1].Direct.P50 < 2*time.Millisecond || hr[1].Host.P50 < 2*time.Millisecond {
		t.Errorf("http results %+v; with 1ms each way a call takes at least 2ms", hr)
	}
	st, err := Startup(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != o.Servers || st.One <= 0 || st.Many <= 0 || st.PluginRSSKiB <= 0 || st.ServerRSSKiB <= 0 {
		t.Errorf("start-up result %+v; every process measured must have been running", st)
	}
}

// BenchmarkGatewayLoad runs the gateway load test (50 sessions × 200 echo
// calls over HTTP, every response checked) once per iteration.
func BenchmarkGatewayLoad(b *testing.B) {
	o := GatewayOptions{Options: options(), Sessions: 50, CallsPerSession: 200, EchoArg: "text"}
	o.Tool = "echo"
	for b.Loop() {
		r, err := GatewayLoad(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if r.Lost+r.Mismatched > 0 || r.OK != 50*200 {
			b.Fatalf("ok %d, lost %d, mismatched %d", r.OK, r.Lost, r.Mismatched)
		}
		if d := r.DirectLoad; d.Lost+d.Mismatched > 0 || d.OK != 50*200 {
			b.Fatalf("direct load: ok %d, lost %d, mismatched %d", d.OK, d.Lost, d.Mismatched)
		}
		b.ReportMetric(r.Throughput, "calls/s")
		b.ReportMetric(float64(r.Latency.P50)/1e6, "p50-ms")
		b.ReportMetric(float64(r.Latency.P99)/1e6, "p99-ms")
		b.ReportMetric(r.RatioP50, "overhead-ratio-p50")
		b.ReportMetric(r.Throughput/r.DirectLoad.Throughput, "throughput-vs-direct")
		if r.DirectHTTPLoad != nil {
			b.ReportMetric(r.Throughput/r.DirectHTTPLoad.Throughput, "throughput-vs-direct-http")
		}
	}
}

// A session holds what it unlocked, never a copy of the catalog: its heap
// is the same with 100 tools as with 5,000, and small. (Before sessions
// were data, one session on a 20,000-tool catalog held ≈ 25 MB.)
func TestSessionMemoryIsIndependentOfCatalog(t *testing.T) {
	const sessions = 300
	per := map[int]int64{}
	for _, catalog := range []int{100, 5000} {
		m, err := SessionMemory(t.Context(), catalog, sessions, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.Unlocked < 1 {
			t.Fatalf("%d tools: sessions unlocked nothing: %+v", catalog, m)
		}
		per[catalog] = m.PerSession
	}
	if per[5000] > per[100]+4<<10 || per[5000] > 20<<10 {
		t.Errorf("bytes per session: %d with 100 tools, %d with 5,000; want about the same and under 20 KB", per[100], per[5000])
	}
}

// BenchmarkRelay compares calls whose server talks back during the call —
// 10 progress notifications, one sampling round trip — and a plain call,
// directly and through the gateway, alternating (see RelayOverhead).
func BenchmarkRelay(b *testing.B) {
	o := options()
	o.Args = []string{"-faithful"}
	o.Calls = 500
	for b.Loop() {
		r, err := RelayOverhead(context.Background(), o, 10)
		if err != nil {
			b.Fatal(err)
		}
		for name, c := range map[string]Comparison{"progress": r.Progress, "sampling": r.Sampling, "plain": r.Plain} {
			b.ReportMetric(float64(c.Direct.P50)/1e3, name+"-direct-p50-us")
			b.ReportMetric(float64(c.Gateway.P50)/1e3, name+"-gateway-p50-us")
			b.ReportMetric(c.RatioP50, name+"-ratio-p50")
			b.ReportMetric(c.RatioP99, name+"-ratio-p99")
		}
	}
}

// TestRelayOverhead runs the relay measurement once, small, so its code is
// exercised by the suite (no timing is asserted).
func TestRelayOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin and server processes: heavy integration test, skipped under -short")
	}
	o := options()
	o.Args = []string{"-faithful"}
	o.Calls = 20
	r, err := RelayOverhead(t.Context(), o, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Progress.Gateway.N != 50 || r.Sampling.Direct.N != 50 {
		t.Errorf("samples: %+v", r)
	}
}

// TestReload runs the reload measurement small: each edit of s00 is applied
// and restarts s00 with a new process, and no other server is restarted.
func TestReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin and server processes: heavy integration test, skipped under -short")
	}
	o := ReloadOptions{Options: options(), Rounds: 2}
	o.Servers = 4
	r, err := Reload(t.Context(), o)
	if err != nil {
		t.Fatal(err) // an edit not applied, or s00 not back with a new process
	}
	if r.OthersRestarted != 0 {
		t.Errorf("%d restarts of servers that were not edited", r.OthersRestarted)
	}
	if r.Applied.N != 2 || r.Reconnected.N != 2 || r.Reconnected.P50 < r.Applied.P50 {
		t.Errorf("result %+v: want 2 rounds, reconnection after application", r)
	}
}

// BenchmarkSessionIsolation opens 100 sessions, one after the other, on a
// server with isolation "session" (each its own stdio process), then
// closes them: the figures of docs/benchmarks.md, "Session isolation".
// Run it with -benchtime 1x.
func BenchmarkSessionIsolation(b *testing.B) {
	for b.Loop() {
		r, err := SessionIsolation(context.Background(), options(), 100)
		if err != nil {
			b.Fatal(err)
		}
		if r.Left > 0 {
			b.Fatalf("%d processes still running after the sessions closed", r.Left)
		}
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(r.FirstCall.P50), "first-call-p50-ms")
		b.ReportMetric(ms(r.FirstCall.P99), "first-call-p99-ms")
		b.ReportMetric(ms(r.NextCall.P50), "next-call-p50-ms")
		b.ReportMetric(ms(r.Total), "total-100-ms")
		b.ReportMetric(float64(r.PerSessionRSS)/(1<<20), "rss-MiB/session")
		b.ReportMetric(float64(r.Processes), "processes")
		b.ReportMetric(ms(r.Closed), "closed-ms")
	}
}

// TestSessionIsolationMeasures runs the isolation measurement small: every
// session's processes are counted and gone after it closed.
func TestSessionIsolationMeasures(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin and server processes: heavy integration test, skipped under -short")
	}
	r, err := SessionIsolation(t.Context(), options(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Processes < 3 || r.RSSBytes <= 0 || r.FirstCall.N != 3 || r.Left != 0 {
		t.Errorf("%+v; want 3 sessions' processes measured and gone", r)
	}
}
