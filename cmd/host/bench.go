package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/internal/bench"
)

func newBenchCommand(g *globals) *cobra.Command {
	var calls, servers int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure per-call overhead and start-up against a direct MCP client",
		Long: `bench runs the built-in demo server and measures, in one run:
  - per-call latency of the echo tool through plughost (direct pipes, and the plugin
    relay) and through a direct mcp-go stdio client to the same server, alternating
    in rounds (p50, p99, ratio);
  - the same over streamable HTTP on loopback: the http plugin vs a direct mcp-go
    streamable-HTTP client;
  - start-up to all-connected of one server and of --servers servers, and the mean
    RSS of a plugin process and of a server process.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			o := bench.Options{
				Command: exe, Args: []string{"demo-server"},
				Tool: "echo", ToolArgs: map[string]any{"text": "x"},
				PluginDirs: plugindir.DefaultDirs(exe, home),
				Environ:    os.Environ(),
				Calls:      calls, Servers: servers,
			}
			lat, err := bench.CallLatency(cmd.Context(), o)
			if err != nil {
				return err
			}
			o.HTTPServer = []string{exe, "demo-server", "--listen", "127.0.0.1:0"}
			hl, err := bench.HTTPCallLatency(cmd.Context(), o, []time.Duration{0, time.Millisecond, 5 * time.Millisecond})
			if err != nil {
				return err
			}
			st, err := bench.Startup(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, map[string]any{"calls": lat, "http_calls": hl, "startup": st})
			}
			us := func(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
			fmt.Fprintf(g.stdout, "per-call latency, echo tool, %d calls each (alternating rounds)\n", lat.Host.N)
			fmt.Fprintf(g.stdout, "  direct mcp-go stdio client   p50 %8s  p99 %8s\n", us(lat.Direct.P50), us(lat.Direct.P99))
			fmt.Fprintf(g.stdout, "  plughost, direct pipes       p50 %8s  p99 %8s   ratio p50 %.2f  p99 %.2f\n", us(lat.Host.P50), us(lat.Host.P99), lat.RatioP50, lat.RatioP99)
			fmt.Fprintf(g.stdout, "  plughost, gRPC stream relay  p50 %8s  p99 %8s   ratio p50 %.2f  p99 %.2f\n", us(lat.Relay.P50), us(lat.Relay.P99), lat.RelayRatioP50, lat.RelayRatioP99)
			fmt.Fprintf(g.stdout, "per-call latency, echo over streamable HTTP to `plughost demo-server --listen` via a delay proxy\n")
			for _, r := range hl {
				fmt.Fprintf(g.stdout, "  one-way delay %-5s direct  p50 %8s  p99 %8s | http plugin p50 %8s  p99 %8s | ratio p50 %.2f  p99 %.2f (%d calls)\n",
					r.OneWayDelay, us(r.Direct.P50), us(r.Direct.P99), us(r.Host.P50), us(r.Host.P99), r.RatioP50, r.RatioP99, r.Host.N)
			}
			fmt.Fprintf(g.stdout, "start-up to all connected (best of 3)\n")
			fmt.Fprintf(g.stdout, "  1 server    %s\n  %d servers  %s\n", st.One.Round(time.Millisecond), st.N, st.Many.Round(time.Millisecond))
			fmt.Fprintf(g.stdout, "memory with %d servers: plugin RSS %d KiB, server RSS %d KiB (mean per process)\n", st.N, st.PluginRSSKiB, st.ServerRSSKiB)
			return nil
		},
	}
	cmd.AddCommand(newBenchGatewayCommand(g), newBenchMemoryCommand(g), newBenchReloadCommand(g), newBenchReplicasCommand(g), newBenchCPUCommand(g), newRelayFloorCommand())
	cmd.Flags().IntVar(&calls, "calls", 2000, "calls per setup")
	cmd.Flags().IntVar(&servers, "servers", 20, "servers in the start-up measurement")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(newBenchFootprintCommand(g))
	return cmd
}
