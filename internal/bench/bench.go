// Package bench measures plughost's overheads against a direct MCP client, so
// `plughost bench` and `go test -bench` reproduce the figures in
// docs/benchmarks.md. Measurements alternate between the compared setups in
// small rounds, so machine noise hits both alike and the ratio stays honest.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
)

// Options say what to run.
type Options struct {
	// Command and Args start the MCP server measured (stdio).
	Command string
	Args    []string
	// Tool and ToolArgs are the call measured; it should do next to nothing.
	Tool     string
	ToolArgs map[string]any
	// PluginDirs locate the transport plugins.
	PluginDirs []string
	// Environ is passed to the host (and so to the server).
	Environ []string
	// Calls is the number of calls per setup.
	Calls int
	// Servers is the server count of the start-up measurement.
	Servers int
	// HTTPServer is a command line serving the same tools over streamable
	// HTTP, printing "listening <url>" on stdout (for HTTPCallLatency).
	HTTPServer []string
}

// Latency is a latency distribution summary.
type Latency struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P90 time.Duration `json:"p90_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

func summarize(samples []time.Duration) Latency {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) time.Duration { return samples[int(q*float64(len(samples)-1))] }
	return Latency{N: len(samples), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: at(1)}
}

// CallResult compares per-call latency through the host with a direct client.
type CallResult struct {
	// Direct is a direct mcp-go stdio client to the server.
	Direct Latency `json:"direct"`
	// Host is plughost with the direct-pipes fast path (the default).
	Host Latency `json:"host"`
	// Relay is plughost with every message relayed through the plugin's
	// gRPC stream (RelayOnly).
	Relay Latency `json:"relay"`
	// RatioP50 and RatioP99 are Host / Direct; RelayRatioP50 and
	// RelayRatioP99 are Relay / Direct.
	RatioP50      float64 `json:"ratio_p50"`
	RatioP99      float64 `json:"ratio_p99"`
	RelayRatioP50 float64 `json:"relay_ratio_p50"`
	RelayRatioP99 float64 `json:"relay_ratio_p99"`
	// HostPath and RelayPath are how the two hosts' messages travelled
	// (supervisor.Status.Path): what was measured, not just what was asked.
	HostPath  string `json:"host_path"`
	RelayPath string `json:"relay_path"`
}

// caller makes one call; setups are compared through it.
type caller func() error

// CallLatency measures o.Tool through a direct mcp-go stdio client, through
// the host with direct pipes, and through the host relaying every message,
// alternating between the three in rounds.
func CallLatency(ctx context.Context, o Options) (CallResult, error) {
	direct, err := directClient(ctx, o)
	if err != nil {
		return CallResult{}, err
	}
	defer direct.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = o.Tool, o.ToolArgs
	viaDirect := func() error { return checked(direct.CallTool(ctx, req)) }

	fast, err := hostCaller(ctx, o, false)
	if err != nil {
		return CallResult{}, err
	}
	defer fast.close()
	relay, err := hostCaller(ctx, o, true)
	if err != nil {
		return CallResult{}, err
	}
	defer relay.close()

	samples, err := alternate(o.Calls, viaDirect, fast.call, relay.call)
	if err != nil {
		return CallResult{}, err
	}
	r := CallResult{Direct: summarize(samples[0]), Host: summarize(samples[1]), Relay: summarize(samples[2]),
		HostPath: fast.path, RelayPath: relay.path}
	r.RatioP50 = float64(r.Host.P50) / float64(r.Direct.P50)
	r.RatioP99 = float64(r.Host.P99) / float64(r.Direct.P99)
	r.RelayRatioP50 = float64(r.Relay.P50) / float64(r.Direct.P50)
	r.RelayRatioP99 = float64(r.Relay.P99) / float64(r.Direct.P99)
	return r, nil
}

// alternate warms every setup up, then runs them in turn, 50 calls at a time,
// until each has n samples.
func alternate(n int, setups ...caller) ([][]time.Duration, error) {
	for i := 0; i < 200; i++ {
		for _, f := range setups {
			if err := f(); err != nil {
				return nil, fmt.Errorf("warm-up call: %w", err)
			}
		}
	}
	const round = 50
	out := make([][]time.Duration, len(setups))
	for len(out[0]) < n {
		for s, f := range setups {
			for i := 0; i < round; i++ {
				t0 := time.Now()
				if err := f(); err != nil {
					return nil, err
				}
				out[s] = append(out[s], time.Since(t0))
			}
		}
	}
	return out, nil
}

type hostSetup struct {
	call  caller
	close func() error
	path  string // how messages travel (supervisor.Status.Path)
}

// checked turns a tool's own failure into an error: a benchmark of failing
// calls measures nothing.
func checked(res *mcp.CallToolResult, err error) error {
	if err == nil && res.IsError {
		err = fmt.Errorf("the measured tool call failed: %+v", res.Content)
	}
	return err
}

// checkedHost is checked for a call through a host.Session.
func checkedHost(res host.ToolResult, err error) error {
	if err == nil && res.IsError {
		err = fmt.Errorf("the measured tool call failed: %s", res.Text())
	}
	return err
}

func hostCaller(ctx context.Context, o Options, relayOnly bool) (hostSetup, error) {
	h, err := startHost(ctx, o, 1, relayOnly)
	if err != nil {
		return hostSetup{}, err
	}
	sess := h.NewSession()
	name := "mcp_s0_" + o.Tool
	args, _ := json.Marshal(o.ToolArgs)
	st, _ := h.Status("s0")
	return hostSetup{
		call:  func() error { return checkedHost(sess.Call(ctx, name, args)) },
		close: h.Close,
		path:  st.Path,
	}, nil
}

func directClient(ctx context.Context, o Options) (*client.Client, error) {
	return initializedClient(ctx, transport.NewStdio(o.Command, o.Environ, o.Args...))
}

// initializedClient starts an mcp-go client on tr and runs initialize.
func initializedClient(ctx context.Context, tr transport.Interface) (*client.Client, error) {
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start direct client: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "plughost-bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize direct client: %w", err)
	}
	return c, nil
}

// startHost starts a host with n copies of the server, named s0…s<n-1>.
func startHost(ctx context.Context, o Options, n int, relayOnly bool) (*host.Host, error) {
	servers := map[string]any{}
	for i := 0; i < n; i++ {
		servers[fmt.Sprintf("s%d", i)] = map[string]any{"enabled": true, "command": o.Command, "args": o.Args}
	}
	return launchHost(ctx, o, servers, relayOnly)
}

// launchHost starts a host on the given server entries and waits until all
// are connected.
func launchHost(ctx context.Context, o Options, servers map[string]any, relayOnly bool) (*host.Host, error) {
	// Trust off: the throwaway servers s0, s1 … of one measurement offer
	// other tools than those of the last (another -args), and pins kept in
	// the shared home would hold them back. What trust costs is measured
	// on its own (docs/security.md).
	raw, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{"enabled": true, "servers": servers,
		"trust": map[string]any{"mode": "off"}}}})
	l, err := config.Load(config.LoadOptions{UserFile: "bench.json", UserData: raw,
		SystemDir: filepath.Join(os.TempDir(), "plughost-bench-no-system-layers"), Home: os.TempDir()})
	if err != nil {
		return nil, err
	}
	// ReturnMemoryAfterLargeResults as the plughost binary sets it: the
	// benchmarks measure what the binary does.
	h, err := host.NewFromLoaded(l, host.Options{Environ: o.Environ, PluginDirs: o.PluginDirs, Version: "bench",
		RelayOnly: relayOnly, ReturnMemoryAfterLargeResults: true})
	if err != nil {
		return nil, err
	}
	h.Start(ctx)
	if err := waitConnected(ctx, h, len(servers)); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func waitConnected(ctx context.Context, h *host.Host, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		ch := h.Changed()
		up := 0
		for _, st := range h.Statuses() {
			if st.State == "connected" {
				up++
			}
		}
		if up == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d servers connected: %v", up, n, h.Statuses())
		}
	}
}

// StartupResult compares start-up of one server with many.
type StartupResult struct {
	One  time.Duration `json:"one_ns"`
	Many time.Duration `json:"many_ns"`
	N    int           `json:"n"`
	// PluginRSSKiB and ServerRSSKiB are the mean resident memory of one
	// plugin process and of one server process with N running.
	PluginRSSKiB int `json:"plugin_rss_kib"`
	ServerRSSKiB int `json:"server_rss_kib"`
}

// Startup measures the time from Start to all-connected for one server and
// for o.Servers servers (best of three each), and the RSS of the processes.
func Startup(ctx context.Context, o Options) (StartupResult, error) {
	r := StartupResult{N: o.Servers}
	for i := 0; i < 3; i++ {
		for _, n := range []int{1, o.Servers} {
			t0 := time.Now()
			h, err := startHost(ctx, o, n, false)
			if err != nil {
				return r, err
			}
			took := time.Since(t0)
			if n == o.Servers && i == 0 {
				r.PluginRSSKiB, r.ServerRSSKiB = meanRSS(h)
			}
			h.Close()
			best := &r.One
			if n == o.Servers {
				best = &r.Many
			}
			if *best == 0 || took < *best {
				*best = took
			}
		}
	}
	return r, nil
}

func meanRSS(h *host.Host) (plugin, server int) {
	var p, s, n int
	for _, st := range h.Statuses() {
		p += rssKiB(st.PluginPID)
		s += rssKiB(st.ServerPID)
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return p / n, s / n
}

// rssKiB reads VmRSS of a process from /proc (Linux); 0 if unknown.
func rssKiB(pid int) int {
	if pid <= 0 {
		return 0
	}
	return procStatusKiB(pid, "VmRSS:")
}
