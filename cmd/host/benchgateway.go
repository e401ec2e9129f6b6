package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/internal/bench"
)

// gatewayBenchReport is everything `bench gateway` measured, for --json.
type gatewayBenchReport struct {
	Load   bench.GatewayResult  `json:"load"`
	Scale  *bench.ScaleResult   `json:"scale,omitempty"`
	Memory []bench.MemoryResult `json:"memory,omitempty"`
}

func newBenchGatewayCommand(g *globals) *cobra.Command {
	var sessions, perSession, calls, scaleServers, scaleTools, rounds, memSessions int
	var memCatalogs []int
	var asJSON bool
	var cpuProfile string
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Load-test the MCP gateway: concurrent sessions, throughput, latency, overhead, catalog size, session memory",
		Long: `bench gateway serves the built-in demo server through the MCP gateway over real HTTP
(bearer token, one plugin process, one server process), then, in one run:
  - runs --sessions concurrent client sessions of --per-session echo calls each, checking
    every response against its request: throughput, p50/p99 latency, lost and mismatched;
  - alternating with it, round by round (--rounds), sends the same load straight to the
    server: over one mcp-go stdio client, and from one mcp-go streamable-HTTP client per
    session to the demo server serving HTTP itself (what the clients get without
    plughost); each figure is the median round;
  - measures one client's per-call latency calling the server directly (mcp-go stdio) and
    through the gateway, alternating in rounds (--calls each): p50, p99 and their ratio;
  - compares the gateway's throughput over 1 server (7 tools) with --scale-servers servers
    holding --scale-tools tools in all, alternating --rounds runs of the same load;
  - opens --memory-sessions sessions (initialize, a search with discovery on, tools/list,
    a call) on an in-process catalog of each --memory-catalog size, with discovery on and
    off, and reports the heap they hold.
The process uses serve's GC setting (GOGC 400 unless GOGC is set).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneGC() // measure the gateway as serve runs it
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			o := bench.GatewayOptions{
				Options: bench.Options{
					Command: exe, Args: []string{"demo-server"}, Tool: "echo",
					PluginDirs: plugindir.DefaultDirs(exe, home), Environ: os.Environ(), Calls: calls,
					HTTPServer: []string{exe, "demo-server", "--listen", "127.0.0.1:0"},
				},
				Sessions: sessions, CallsPerSession: perSession, EchoArg: "text", Rounds: rounds,
			}
			var rep gatewayBenchReport
			stopProfile, err := startCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			rep.Load, err = bench.GatewayLoad(cmd.Context(), o)
			if perr := stopProfile(); err == nil {
				err = perr
			}
			if err != nil {
				return err
			}
			if scaleServers > 0 {
				sc, err := bench.Scale(cmd.Context(), o, bench.ScaleOptions{
					Servers: scaleServers, Tools: scaleTools, ToolsFlag: "--tools", OwnTools: 7, Rounds: rounds})
				if err != nil {
					return fmt.Errorf("catalog-size comparison: %w", err)
				}
				rep.Scale = &sc
			}
			for _, catalog := range memCatalogs {
				for _, discovery := range []bool{true, false} {
					if memSessions <= 0 {
						break
					}
					m, err := bench.SessionMemory(cmd.Context(), catalog, memSessions, discovery)
					if err != nil {
						return fmt.Errorf("session memory: %w", err)
					}
					rep.Memory = append(rep.Memory, m)
				}
			}
			if asJSON {
				return writeJSON(g.stdout, rep)
			}
			printGatewayBench(g.stdout, rep)
			if r := rep.Load; r.Lost+r.Mismatched > 0 {
				return fmt.Errorf("%d calls lost and %d mismatched", r.Lost, r.Mismatched)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&sessions, "sessions", 50, "concurrent client sessions")
	cmd.Flags().IntVar(&perSession, "per-session", 200, "calls per session")
	cmd.Flags().IntVar(&calls, "calls", 2000, "calls per setup in the overhead comparison")
	cmd.Flags().IntVar(&scaleServers, "scale-servers", 20, "servers of the large catalog (0 skips the comparison)")
	cmd.Flags().IntVar(&scaleTools, "scale-tools", 1000, "tools of the large catalog, in all")
	cmd.Flags().IntVar(&rounds, "rounds", 3, "load runs per setup, alternating (load and catalog-size comparison)")
	cmd.Flags().IntVar(&memSessions, "memory-sessions", 1000, "sessions opened per memory measurement (0 skips it)")
	cmd.Flags().IntSliceVar(&memCatalogs, "memory-catalog", []int{1000, 20000}, "catalog sizes of the memory measurement")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the load comparison to this file (the gateway runs in this process, beside the load's clients: read it with go tool pprof -focus 'plughost/(gateway|host|frontdoor)')")
	return cmd
}

func printGatewayBench(w io.Writer, rep gatewayBenchReport) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
	r := rep.Load
	fmt.Fprintf(w, "gateway load: %d sessions × %d echo calls over streamable HTTP, median of %d alternating rounds (gateway/this: median of the rounds' ratios)\n", r.Sessions, r.CallsPerSession, len(r.Rounds))
	fmt.Fprintf(w, "  %d calls in %s: %.0f calls/s   p50 %s  p90 %s  p99 %s\n",
		r.Calls, r.Elapsed.Round(time.Millisecond), r.Throughput, ms(r.Latency.P50), ms(r.Latency.P90), ms(r.Latency.P99))
	fmt.Fprintf(w, "  answered with their own request: %d   lost: %d   mismatched: %d\n", r.OK, r.Lost, r.Mismatched)
	d := r.DirectLoad
	fmt.Fprintf(w, "  same load straight to the server, one stdio client: %.0f calls/s   p50 %s  p99 %s   lost: %d   mismatched: %d   gateway/this %.2f\n",
		d.Throughput, ms(d.Latency.P50), ms(d.Latency.P99), d.Lost, d.Mismatched, r.VsStdio)
	if h := r.DirectHTTPLoad; h != nil {
		fmt.Fprintf(w, "  same load and clients straight to the server over HTTP: %.0f calls/s   p50 %s  p99 %s   lost: %d   mismatched: %d   gateway/this %.2f\n",
			h.Throughput, ms(h.Latency.P50), ms(h.Latency.P99), h.Lost, h.Mismatched, r.VsHTTP)
	}
	for i, rd := range r.Rounds {
		fmt.Fprintf(w, "  round %d: gateway %.0f, stdio %.0f, HTTP %.0f calls/s\n", i+1, rd.Gateway, rd.DirectStdio, rd.DirectHTTP)
	}
	fmt.Fprintf(w, "per-call latency, one client, %d calls each (alternating rounds)\n", r.Direct.N)
	fmt.Fprintf(w, "  direct mcp-go stdio client  p50 %8s  p99 %8s\n", us(r.Direct.P50), us(r.Direct.P99))
	fmt.Fprintf(w, "  through the gateway (HTTP)  p50 %8s  p99 %8s   ratio p50 %.2f  p99 %.2f\n", us(r.Gateway.P50), us(r.Gateway.P99), r.RatioP50, r.RatioP99)
	if sc := rep.Scale; sc != nil {
		fmt.Fprintf(w, "catalog size, same load, %d alternating runs each (median; ratio: median of the rounds' ratios)\n", len(sc.SmallRuns))
		fmt.Fprintf(w, "  1 server, %d tools:        %.0f calls/s   p99 %s   runs %.0f\n", sc.SmallTools, sc.Small.Throughput, ms(sc.Small.Latency.P99), sc.SmallRuns)
		fmt.Fprintf(w, "  %d servers, %d tools:   %.0f calls/s   p99 %s   runs %.0f   ratio %.2f\n", sc.Servers, sc.Tools, sc.Large.Throughput, ms(sc.Large.Latency.P99), sc.LargeRuns, sc.Ratio)
	}
	if len(rep.Memory) > 0 {
		fmt.Fprintf(w, "session memory (live heap the open sessions hold)\n")
		for _, m := range rep.Memory {
			mode := "discovery off"
			if m.Discovery {
				mode = fmt.Sprintf("discovery on, %d unlocked each", m.Unlocked)
			}
			fmt.Fprintf(w, "  %6d tools, %d sessions, %-30s %7.1f MB   %6.1f KB per session\n",
				m.Catalog, m.Sessions, mode+":", float64(m.HeapBytes)/1e6, float64(m.PerSession)/1e3)
		}
	}
}

// startCPUProfile starts a CPU profile of this process into path ("": none)
// and returns what stops it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
		return nil
	}, nil
}
