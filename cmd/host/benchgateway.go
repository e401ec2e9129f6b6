package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/internal/bench"
)

func newBenchGatewayCommand(g *globals) *cobra.Command {
	var sessions, perSession, calls int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Load-test the MCP gateway: concurrent sessions, throughput, latency, overhead",
		Long: `bench gateway serves the built-in demo server through the MCP gateway over real HTTP
(bearer token, one plugin process, one server process), then:
  - runs --sessions concurrent client sessions of --per-session echo calls each, checking
    every response against its request: throughput, p50/p99 latency, lost and mismatched;
  - measures one client's per-call latency calling the server directly (mcp-go stdio) and
    through the gateway, alternating in rounds (--calls each): p50, p99 and their ratio.
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
				},
				Sessions: sessions, CallsPerSession: perSession, EchoArg: "text",
			}
			r, err := bench.GatewayLoad(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
			us := func(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
			fmt.Fprintf(g.stdout, "gateway load: %d sessions × %d echo calls over streamable HTTP\n", r.Sessions, r.CallsPerSession)
			fmt.Fprintf(g.stdout, "  %d calls in %s: %.0f calls/s   p50 %s  p90 %s  p99 %s\n",
				r.Calls, r.Elapsed.Round(time.Millisecond), r.Throughput, ms(r.Latency.P50), ms(r.Latency.P90), ms(r.Latency.P99))
			fmt.Fprintf(g.stdout, "  answered with their own request: %d   lost: %d   mismatched: %d\n", r.OK, r.Lost, r.Mismatched)
			d := r.DirectLoad
			fmt.Fprintf(g.stdout, "  same load straight to the server (one stdio client): %.0f calls/s   p50 %s  p99 %s   lost: %d   mismatched: %d\n",
				d.Throughput, ms(d.Latency.P50), ms(d.Latency.P99), d.Lost, d.Mismatched)
			fmt.Fprintf(g.stdout, "per-call latency, one client, %d calls each (alternating rounds)\n", r.Direct.N)
			fmt.Fprintf(g.stdout, "  direct mcp-go stdio client  p50 %8s  p99 %8s\n", us(r.Direct.P50), us(r.Direct.P99))
			fmt.Fprintf(g.stdout, "  through the gateway (HTTP)  p50 %8s  p99 %8s   ratio p50 %.2f  p99 %.2f\n", us(r.Gateway.P50), us(r.Gateway.P99), r.RatioP50, r.RatioP99)
			if r.Lost+r.Mismatched > 0 {
				return fmt.Errorf("%d calls lost and %d mismatched", r.Lost, r.Mismatched)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&sessions, "sessions", 50, "concurrent client sessions")
	cmd.Flags().IntVar(&perSession, "per-session", 200, "calls per session")
	cmd.Flags().IntVar(&calls, "calls", 2000, "calls per setup in the overhead comparison")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
