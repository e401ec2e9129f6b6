package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/internal/bench"
)

func newBenchCPUCommand(g *globals) *cobra.Command {
	var o bench.CallCPUOptions
	var asJSON, floor bool
	cmd := &cobra.Command{
		Use:   "cpu",
		Short: "CPU per call: the gateway's processes against the same server answering over HTTP directly",
		Long: `bench cpu runs, side by side, ` + "`plughost serve`" + ` serving the built-in demo server
behind the stdio plugin (in-memory session store, bearer token) and the same demo server
serving streamable HTTP itself. At each --sessions level it sends the same echo calls to
each from the same raw HTTP clients (one session each, every answer checked against its
request), alternating --rounds rounds of --calls calls, and reads from /proc, around every
round:
  - the CPU time of plughost's own processes (serve and the transport plugin) and of the
    server, as CPU-seconds per 1,000 calls;
  - their write system calls per call (syscw of /proc/<pid>/io).
With --floor a third setup runs beside them: a bare relay (net/http, one decode and one
write each way, the server on a pipe; no session, token, routing, shaping, log or
metric) — the least any Go gateway over the same pieces spends per call.
Then it opens --idle-sessions sessions on the gateway and on the direct server, each
from a client with a connection of its own, kept open, with one call each, and reports
what the process holding them grew by per session (resident memory; for serve also the
heap in use after a garbage collection).
It prints, per level, plughost's CPU per call against the direct server's, the whole
gateway tree's (plughost and its server) against the direct server's, and the calls/s
ratio (median of the rounds' ratios). With --cpuprofile DIR it then writes a CPU and an allocation profile of
the serve process under the load of the last level (go tool pprof DIR/serve.pprof,
DIR/serve-allocs.pprof).
Linux only (/proc). The load's clients run in this process, on the same cores.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if len(o.Sessions) == 0 {
				return fmt.Errorf("--sessions: give at least one concurrency level, e.g. --sessions 1,50")
			}
			for _, n := range o.Sessions {
				if n < 1 {
					return fmt.Errorf("--sessions %d: each level needs at least one session", n)
				}
			}
			o.Plughost, o.Environ = exe, os.Environ()
			o.Server = []string{exe, "demo-server"}
			o.HTTPServer = []string{exe, "demo-server", "--listen", "127.0.0.1:0"}
			if floor {
				o.RelayFloor = []string{exe, "bench", "relay-floor", "--listen", "127.0.0.1:0", "--", exe, "demo-server"}
			}
			r, err := bench.CallCPU(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			printCPUBench(g.stdout, o, r)
			for _, l := range r.Levels {
				for _, s := range []*bench.CPUSetupRuns{&l.Gateway, &l.Direct, l.Floor, l.Baseline} {
					if s == nil {
						continue
					}
					if s.Lost+s.Mismatched > 0 {
						return fmt.Errorf("%d sessions: %d calls lost and %d mismatched", l.Sessions, s.Lost, s.Mismatched)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().IntSliceVar(&o.Sessions, "sessions", []int{1, 50}, "concurrency levels (concurrent sessions)")
	cmd.Flags().IntVar(&o.Calls, "calls", 10000, "calls per round and setup, spread over the sessions")
	cmd.Flags().IntVar(&o.Rounds, "rounds", 4, "rounds per setup and level, alternating")
	cmd.Flags().IntVar(&o.IdleSessions, "idle-sessions", 500, "sessions of the session memory measurement, each with a connection of its own (0 skips it)")
	cmd.Flags().StringVar(&o.ProfileDir, "cpuprofile", "", "also write a CPU and an allocation profile of the serve process under load into this folder (serve.pprof, serve-allocs.pprof)")
	cmd.Flags().IntVar(&o.ProfileSeconds, "profile-seconds", 10, "length of the --cpuprofile profile")
	cmd.Flags().BoolVar(&floor, "floor", true, "also measure the bare relay floor")
	cmd.Flags().StringVar(&o.Baseline, "baseline", "", "another plughost binary (plugins beside it) whose gateway runs alternately with this one's: before/after ratios from one run")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// newRelayFloorCommand is bench cpu's floor setup, run as a process of its
// own so /proc counts its CPU apart.
func newRelayFloorCommand() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:    "relay-floor -- SERVER-COMMAND [ARGS...]",
		Short:  "Serve a stdio MCP server over HTTP through a bare relay (bench cpu's floor)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return bench.ServeFloorRelay(cmd.Context(), args, listen, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to serve on")
	return cmd
}

func printCPUBench(w io.Writer, o bench.CallCPUOptions, r bench.CallCPUResult) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "CPU per call: gateway (serve + stdio plugin + demo server) vs the demo server over HTTP, %d alternating rounds of %d calls\n", max(o.Rounds, 1), o.Calls)
	fmt.Fprintf(w, "CPU-seconds per 1,000 calls (= ms per call); writes: write syscalls per call\n")
	for _, l := range r.Levels {
		g, d := l.Gateway, l.Direct
		fmt.Fprintf(w, "%d sessions\n", l.Sessions)
		fmt.Fprintf(w, "  gateway:     %6.0f calls/s  p50 %s  p99 %s   plughost %.3f s  server %.3f s   writes plughost %.2f  server %.2f   lost %d  mismatched %d\n",
			g.Throughput, ms(g.Latency.P50), ms(g.Latency.P99), g.CPU.Plughost, g.CPU.Servers, g.PlughostWrites, g.ServerWrites, g.Lost, g.Mismatched)
		fmt.Fprintf(w, "               serve allocates %.0f objects, %.1f KB per call\n", g.Allocs, g.AllocBytes/1000)
		fmt.Fprintf(w, "  direct HTTP: %6.0f calls/s  p50 %s  p99 %s                    server %.3f s   writes                 server %.2f   lost %d  mismatched %d\n",
			d.Throughput, ms(d.Latency.P50), ms(d.Latency.P99), d.CPU.Servers, d.ServerWrites, d.Lost, d.Mismatched)
		if f := l.Floor; f != nil {
			fmt.Fprintf(w, "  relay floor: %6.0f calls/s  p50 %s  p99 %s   relay    %.3f s  server %.3f s   writes relay    %.2f  server %.2f   lost %d  mismatched %d\n",
				f.Throughput, ms(f.Latency.P50), ms(f.Latency.P99), f.CPU.Plughost, f.CPU.Servers, f.PlughostWrites, f.ServerWrites, f.Lost, f.Mismatched)
			fmt.Fprintf(w, "  relay floor / direct server CPU %.2f   floor tree / direct server CPU %.2f\n", l.FloorVsServer, l.FloorTreeVsServer)
		}
		if b := l.Baseline; b != nil {
			fmt.Fprintf(w, "  baseline:    %6.0f calls/s  p50 %s  p99 %s   plughost %.3f s  server %.3f s   writes plughost %.2f  server %.2f   lost %d  mismatched %d\n",
				b.Throughput, ms(b.Latency.P50), ms(b.Latency.P99), b.CPU.Plughost, b.CPU.Servers, b.PlughostWrites, b.ServerWrites, b.Lost, b.Mismatched)
			fmt.Fprintf(w, "               serve allocates %.0f objects, %.1f KB per call\n", b.Allocs, b.AllocBytes/1000)
			fmt.Fprintf(w, "  plughost CPU / baseline's %.2f   calls/s / baseline's %.2f\n", l.VsBaseline, l.ThroughputVsBaseline)
		}
		fmt.Fprintf(w, "  plughost / direct server CPU %.2f   whole gateway tree / direct server CPU %.2f   calls/s gateway / direct %.2f\n",
			l.PlughostVsServer, l.TreeVsServer, l.Throughput)
		fmt.Fprintf(w, "  rounds, calls/s: gateway %s   direct %s\n", roundList(g.Rounds), roundList(d.Rounds))
	}
	if m := r.Sessions; m != nil {
		kib := func(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }
		fmt.Fprintf(w, "open idle sessions, %d, each with its own connection and one call: per session\n", m.Sessions)
		fmt.Fprintf(w, "  gateway (serve): resident %s, heap in use after 3 GCs %s, goroutine stacks %s   direct server: resident %s\n",
			kib(m.GatewayRSS), kib(m.GatewayLiveHeap), kib(m.GatewayStacks), kib(m.DirectRSS))
		if m.FloorRSS != 0 {
			fmt.Fprintf(w, "  relay floor (net/http, no session): resident %s\n", kib(m.FloorRSS))
		}
	}
}

// roundList prints calls/s figures as "1,234 1,300 …".
func roundList(rounds []float64) string {
	out := ""
	for i, x := range rounds {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%.0f", x)
	}
	return out
}
