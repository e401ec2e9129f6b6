package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/plughost/plughost/internal/cluster"
	"github.com/plughost/plughost/internal/listenurl"
	"github.com/plughost/plughost/internal/proctree"
)

// CallCPUOptions say what `plughost bench cpu` runs.
type CallCPUOptions struct {
	// Plughost is the plughost binary the gateway runs (its plugins beside
	// it).
	Plughost string
	// Server is the argv of the stdio server the gateway serves; it must
	// offer echo(text).
	Server []string
	// HTTPServer is the argv of the same server serving streamable HTTP
	// itself, printing "listening <url>" first: the direct setup.
	HTTPServer []string
	// RelayFloor is the argv of ServeFloorRelay serving Server (it prints
	// "listening <url>"): the third setup, the least a Go gateway must
	// do per call; none when empty.
	RelayFloor []string
	// Baseline, when set, is another plughost binary (its plugins beside
	// it) whose gateway runs as one more setup, alternating with the
	// others: before/after figures from one run.
	Baseline string
	// Environ is the processes' environment.
	Environ []string
	// Sessions are the concurrency levels, e.g. 1 and 50.
	Sessions []int
	// Calls is the number of calls per round and setup, spread over the
	// sessions; Rounds is the number of alternating rounds.
	Calls, Rounds int
	// IdleSessions, when above 0, is the number of sessions of the session
	// memory measurement (CallCPUResult.Sessions); Settle is how long they
	// stay open before resident memory is read (DefaultSettle if 0).
	IdleSessions int
	Settle       time.Duration
	// ProfileDir, when set, also takes a CPU profile and an allocation
	// profile of the serve process, each over ProfileSeconds at the last
	// concurrency level, into <ProfileDir>/serve.pprof and
	// serve-allocs.pprof.
	ProfileDir     string
	ProfileSeconds int
}

// CallCPUResult is the outcome of CallCPU: one entry per concurrency level.
type CallCPUResult struct {
	Levels []CPULevel `json:"levels"`
	// Sessions is what open sessions cost, if measured.
	Sessions *IdleSessionCost `json:"session_memory,omitempty"`
}

// IdleSessionCost is what idle sessions cost, each opened by a client of its
// own over a connection of its own kept open, with one call made: the
// growth of the process's resident memory, per session, in the gateway's
// serve process and in the server serving HTTP directly, and the growth of
// serve's heap in use after a garbage collection.
type IdleSessionCost struct {
	Sessions        int     `json:"sessions"`
	GatewayRSS      float64 `json:"gateway_rss_bytes_per_session"`
	GatewayLiveHeap float64 `json:"gateway_live_heap_bytes_per_session"`
	GatewayStacks   float64 `json:"gateway_stack_bytes_per_session"`
	DirectRSS       float64 `json:"direct_rss_bytes_per_session"`
	// FloorRSS is the relay floor's, if it ran: what net/http alone keeps
	// per open connection.
	FloorRSS float64 `json:"relay_floor_rss_bytes_per_session,omitempty"`
}

// CPULevel compares, at one concurrency level, the gateway (plughost serve
// with the stdio plugin and the server) with the same clients calling the
// server over HTTP directly.
type CPULevel struct {
	Sessions int          `json:"sessions"`
	Gateway  CPUSetupRuns `json:"gateway"`
	Direct   CPUSetupRuns `json:"direct_http"`
	// Floor is the relay floor (CallCPUOptions.RelayFloor), if run; its
	// relay process counts as plughost's.
	Floor *CPUSetupRuns `json:"relay_floor,omitempty"`
	// Baseline is the gateway of CallCPUOptions.Baseline, if run.
	Baseline *CPUSetupRuns `json:"baseline,omitempty"`
	// VsBaseline is plughost's CPU per call over the baseline's, and
	// ThroughputVsBaseline the median of the rounds' calls/s ratios.
	VsBaseline           float64 `json:"plughost_vs_baseline,omitempty"`
	ThroughputVsBaseline float64 `json:"throughput_vs_baseline,omitempty"`
	// PlughostVsServer is the CPU of plughost's own processes per call
	// through the gateway over the direct server's CPU per call.
	PlughostVsServer float64 `json:"plughost_vs_direct_server"`
	// TreeVsServer is the same with the gateway's server added: the whole
	// process tree a gateway call costs against the direct server.
	TreeVsServer float64 `json:"tree_vs_direct_server"`
	// Throughput is the median of the rounds' gateway / direct calls/s.
	Throughput float64 `json:"throughput_vs_direct"`
	// FloorVsServer and FloorTreeVsServer are PlughostVsServer and
	// TreeVsServer of the relay floor.
	FloorVsServer     float64 `json:"relay_floor_vs_direct_server,omitempty"`
	FloorTreeVsServer float64 `json:"relay_floor_tree_vs_direct_server,omitempty"`
}

// CPUSetupRuns is one setup's rounds: the median round's load figures, each
// round's calls/s, and the CPU and write system calls of its processes
// over every round.
type CPUSetupRuns struct {
	LoadStats
	Rounds []float64 `json:"rounds"`
	// CPU is the CPU-seconds per 1,000 calls of plughost's processes (serve
	// and plugins) and of the MCP server.
	CPU CPUPer1000 `json:"cpu_per_1000_calls"`
	// PlughostWrites and ServerWrites are write system calls per call.
	PlughostWrites float64 `json:"plughost_writes_per_call"`
	ServerWrites   float64 `json:"server_writes_per_call"`
	// Allocs and AllocBytes are the heap allocations per call of the serve
	// process (gateway setups only; read from its runtime around each
	// round).
	Allocs     float64 `json:"serve_allocs_per_call,omitempty"`
	AllocBytes float64 `json:"serve_alloc_bytes_per_call,omitempty"`

	runs           []LoadStats
	spent          treeSample
	allocs, abytes int64
}

// cpuSetup is one running setup of CallCPU: the endpoint its clients load,
// the root of its process tree, and its tool.
type cpuSetup struct {
	name  string // gateway, direct, floor or baseline
	c     *cluster.Cluster
	root  int
	owned bool // root is plughost serve (else the server itself)
	tool  string
	// figures picks where the setup's figures go in a level.
	figures func(*CPULevel) *CPUSetupRuns
}

// CallCPU runs a gateway (`plughost serve` with o.Server behind the stdio
// plugin) and o.HTTPServer side by side, and at each concurrency level
// sends the same echo calls to each in alternating rounds, from the same
// raw HTTP clients, every answer checked. It reads the CPU time and the
// write system calls of each setup's processes from /proc around every
// round.
func CallCPU(ctx context.Context, o CallCPUOptions) (CallCPUResult, error) {
	var r CallCPUResult
	dir, err := os.MkdirTemp("", "plughost-bench-cpu-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	gw, err := startCPUGateway(ctx, o, o.Plughost, filepath.Join(dir, "gateway"))
	if err != nil {
		return r, fmt.Errorf("gateway: %w", err)
	}
	defer gw.Close()
	url, pid, stop, err := startListening(ctx, o.HTTPServer, o.Environ)
	if err != nil {
		return r, fmt.Errorf("direct HTTP server: %w", err)
	}
	defer stop()
	setups := []cpuSetup{
		{name: "gateway", c: gw, root: gw.Replicas[0].PID(), owned: true, tool: "mcp_demo_echo",
			figures: func(l *CPULevel) *CPUSetupRuns { return &l.Gateway }},
		{name: "direct", c: cluster.Attach("", url), root: pid, tool: "echo",
			figures: func(l *CPULevel) *CPUSetupRuns { return &l.Direct }},
	}
	if len(o.RelayFloor) > 0 {
		url, pid, stop, err := startListening(ctx, o.RelayFloor, o.Environ)
		if err != nil {
			return r, fmt.Errorf("relay floor: %w", err)
		}
		defer stop()
		setups = append(setups, cpuSetup{name: "floor", c: cluster.Attach("", url), root: pid, owned: true, tool: "echo",
			figures: func(l *CPULevel) *CPUSetupRuns { l.Floor = &CPUSetupRuns{}; return l.Floor }})
	}
	if o.Baseline != "" {
		base, err := startCPUGateway(ctx, o, o.Baseline, filepath.Join(dir, "baseline"))
		if err != nil {
			return r, fmt.Errorf("baseline gateway: %w", err)
		}
		defer base.Close()
		setups = append(setups, cpuSetup{name: "baseline", c: base, root: base.Replicas[0].PID(), owned: true, tool: "mcp_demo_echo",
			figures: func(l *CPULevel) *CPUSetupRuns { l.Baseline = &CPUSetupRuns{}; return l.Baseline }})
	}
	for n, sessions := range o.Sessions {
		level, err := cpuLevel(ctx, o, setups, sessions, uint64(n)*1_000_000)
		if err != nil {
			return r, err
		}
		r.Levels = append(r.Levels, level)
	}
	if o.IdleSessions > 0 {
		settle := o.Settle
		if settle == 0 {
			settle = DefaultSettle
		}
		m, err := sessionMemory(ctx, setups, o.IdleSessions, settle, o.ProfileDir)
		if err != nil {
			return r, fmt.Errorf("session memory: %w", err)
		}
		r.Sessions = &m
	}
	if o.ProfileDir != "" && len(o.Sessions) > 0 {
		clients, err := openSessions(ctx, setups[0].c, o.Sessions[len(o.Sessions)-1], 99_000_000)
		if err != nil {
			return r, err
		}
		if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
			return r, err
		}
		load := func() { clusterLoad(ctx, clients, setups[0].tool, max(o.Calls/len(clients)/10, 1)) }
		for kind, file := range map[string]string{"profile": "serve.pprof", "allocs": "serve-allocs.pprof"} {
			if err := profileUnderLoad(ctx, gw, kind, load, o.ProfileSeconds, filepath.Join(o.ProfileDir, file)); err != nil {
				return r, fmt.Errorf("profile: %w", err)
			}
		}
	}
	return r, nil
}

// cpuLevel opens sessions sessions on each setup, then runs o.Rounds
// rounds of the load on each in turn, the order swapped every round.
func cpuLevel(ctx context.Context, o CallCPUOptions, setups []cpuSetup, sessions int, seed uint64) (CPULevel, error) {
	level := CPULevel{Sessions: sessions}
	runs := make([]*CPUSetupRuns, len(setups))
	for i, s := range setups {
		runs[i] = s.figures(&level)
	}
	clients := make([][]*cluster.Client, len(setups))
	for i, s := range setups {
		var err error
		if clients[i], err = openSessions(ctx, s.c, sessions, seed+uint64(i)*10_000); err != nil {
			return level, err
		}
	}
	perSession := max(o.Calls/max(sessions, 1), 1)
	for round := range max(o.Rounds, 1) {
		for k := range setups {
			i := k
			if round%2 == 1 {
				i = len(setups) - 1 - k
			}
			s := setups[i]
			memBefore, err := s.runtime(ctx)
			if err != nil {
				return level, err
			}
			before := sampleTree(s.root, s.owned)
			run := clusterLoad(ctx, clients[i], s.tool, perSession)
			runs[i].spent = runs[i].spent.plus(sampleTree(s.root, s.owned).minus(before))
			runs[i].runs = append(runs[i].runs, run)
			memAfter, err := s.runtime(ctx)
			if err != nil {
				return level, err
			}
			runs[i].allocs += memAfter.Allocs - memBefore.Allocs
			runs[i].abytes += memAfter.AllocBytes - memBefore.AllocBytes
		}
	}
	for _, r := range runs {
		r.finish()
	}
	level.Throughput = medianRatio(level.Gateway.Rounds, level.Direct.Rounds)
	if d := level.Direct.CPU.Servers; d > 0 {
		level.PlughostVsServer = level.Gateway.CPU.Plughost / d
		level.TreeVsServer = (level.Gateway.CPU.Plughost + level.Gateway.CPU.Servers) / d
		if f := level.Floor; f != nil {
			level.FloorVsServer = f.CPU.Plughost / d
			level.FloorTreeVsServer = (f.CPU.Plughost + f.CPU.Servers) / d
		}
	}
	if b := level.Baseline; b != nil && b.CPU.Plughost > 0 {
		level.VsBaseline = level.Gateway.CPU.Plughost / b.CPU.Plughost
		level.ThroughputVsBaseline = medianRatio(level.Gateway.Rounds, b.Rounds)
	}
	return level, nil
}

// finish computes the figures of the rounds run.
func (r *CPUSetupRuns) finish() {
	calls := 0
	for _, run := range r.runs {
		r.Rounds = append(r.Rounds, run.Throughput)
		calls += run.OK
	}
	r.LoadStats = median(r.runs)
	r.CPU = per1000(cpuSample{}, cpuSample{plughost: r.spent.plughost, servers: r.spent.servers}, calls)
	r.PlughostWrites = float64(r.spent.plughostWrites) / float64(max(calls, 1))
	r.ServerWrites = float64(r.spent.serverWrites) / float64(max(calls, 1))
	r.Allocs = float64(r.allocs) / float64(max(calls, 1))
	r.AllocBytes = float64(r.abytes) / float64(max(calls, 1))
}

// openSessions opens n initialized sessions on c.
func openSessions(ctx context.Context, c *cluster.Cluster, n int, seed uint64) ([]*cluster.Client, error) {
	out := make([]*cluster.Client, n)
	for i := range out {
		out[i] = c.NewClient(seed + uint64(i))
		if err := out[i].Initialize(ctx); err != nil {
			return nil, fmt.Errorf("session %d: %w", i, err)
		}
	}
	return out, nil
}

// sessionGCs is how many garbage collections sessionMemory has serve run
// before it reads serve's runtime memory: enough for the stacks the
// sessions' calls grew to shrink back, as they do in a running process.
const sessionGCs = 3

// DefaultSettle is how long the session memory measurement waits with the
// sessions open before it reads resident memory: past two of serve's idle
// checks (cmd/host's run every 2 s), so serve has given back what it freed.
const DefaultSettle = 12 * time.Second

// sessionMemory opens n sessions on the gateway, the direct server and
// the relay floor (if it runs), each with a connection of its own and one
// call, and measures what the process holding them grew by. With
// profileDir it writes serve's heap and goroutine profiles with the
// sessions open to <profileDir>/serve-sessions-{heap,goroutine}.pprof.
func sessionMemory(ctx context.Context, setups []cpuSetup, n int, settle time.Duration, profileDir string) (IdleSessionCost, error) {
	m := IdleSessionCost{Sessions: n}
	per := func(before, after int64) float64 { return float64(after-before) / float64(n) }
	for i, s := range setups {
		if s.name == "baseline" {
			continue
		}
		var memBefore cluster.RuntimeMemory
		if s.name == "gateway" {
			var err error
			if memBefore, err = s.c.LiveMemory(ctx, 0, sessionGCs); err != nil {
				return m, err
			}
		}
		time.Sleep(settle) // after the load rounds: serve gives back what they freed
		rssBefore := proctree.RSS(s.root)
		clients := make([]*cluster.Client, n)
		for j := range clients {
			cl := s.c.NewClient(uint64(50_000_000 + i*1_000_000 + j))
			cl.OwnConnection()
			defer cl.Close()
			if err := cl.Initialize(ctx); err != nil {
				return m, fmt.Errorf("session %d: %w", j, err)
			}
			if _, _, err := cl.CallTool(ctx, s.tool, map[string]any{"text": "hello"}); err != nil {
				return m, fmt.Errorf("session %d: %w", j, err)
			}
			clients[j] = cl
		}
		time.Sleep(settle) // idle connections; serve gives back what it freed

		switch s.name {
		case "gateway":
			memAfter, err := s.c.LiveMemory(ctx, 0, sessionGCs)
			if err != nil {
				return m, err
			}
			m.GatewayLiveHeap = per(memBefore.Heap, memAfter.Heap)
			m.GatewayStacks = per(memBefore.Stacks, memAfter.Stacks)
			m.GatewayRSS = per(rssBefore, proctree.RSS(s.root))
			for _, kind := range []string{"heap", "goroutine"} {
				if profileDir == "" {
					break
				}
				profile, err := s.c.Profile(ctx, 0, kind, 0)
				if err == nil {
					err = os.MkdirAll(profileDir, 0o700)
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(profileDir, "serve-sessions-"+kind+".pprof"), profile, 0o600)
				}
				if err != nil {
					return m, fmt.Errorf("%s profile: %w", kind, err)
				}
			}
		case "direct":
			m.DirectRSS = per(rssBefore, proctree.RSS(s.root))
		case "floor":
			m.FloorRSS = per(rssBefore, proctree.RSS(s.root))
		}
	}
	return m, nil
}

// startListening runs argv, a server that prints "listening <url>" first,
// and returns that URL, its pid and what stops it.
func startListening(ctx context.Context, argv, environ []string) (url string, pid int, stop func(), err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = environ
	if url, stop, err = listenurl.Start(cmd, 30*time.Second); err != nil {
		return "", 0, nil, err
	}
	return url, cmd.Process.Pid, stop, nil
}

// runtime reads the setup's serve process's runtime counters (zero for a
// setup that is not a plughost gateway).
func (s cpuSetup) runtime(ctx context.Context) (cluster.RuntimeMemory, error) {
	if s.name != "gateway" && s.name != "baseline" {
		return cluster.RuntimeMemory{}, nil
	}
	return s.c.LiveMemory(ctx, 0, 0)
}

// startCPUGateway runs plughost's serve with o.Server behind the stdio
// plugin, in-memory sessions, in dir.
func startCPUGateway(ctx context.Context, o CallCPUOptions, plughost, dir string) (*cluster.Cluster, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return cluster.Start(ctx, cluster.Options{
		Plughost: plughost, Replicas: 1, Memory: true, Dir: dir, Environ: o.Environ, Debug: true,
		MCP: map[string]any{
			"enabled": true,
			"servers": map[string]any{"demo": map[string]any{"enabled": true, "command": o.Server[0], "args": o.Server[1:]}},
		},
	})
}
