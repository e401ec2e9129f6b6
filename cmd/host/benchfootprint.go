package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/internal/bench"
)

func newBenchFootprintCommand(g *globals) *cobra.Command {
	var o bench.FootprintOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "footprint",
		Short: "Start-up and idle memory of serve with many stdio servers: serve, its plugins, its servers",
		Long: `bench footprint starts ` + "`plughost serve`" + ` with --servers stdio servers (the built-in demo
server, discovery off), --runs times, and measures:
  - start-up: from starting serve to a tools/list holding the tools of every server
    (best and median of the runs);
  - idle memory, --settle after start-up: RSS and PSS (/proc/<pid>/smaps_rollup) of serve,
    of its transport plugin processes (their count and sums) and of the MCP servers (sums);
    the run with the median PSS of serve + plugins is shown.
PSS counts each shared page in part, so the PSS of many processes of one executable adds
up to what they hold together; RSS counts shared pages in every process.
With --baseline PATH, that other plughost binary is measured the same way, alternately
(the order swapped every run), and the ratios are printed. Both run the same servers.
Linux only (/proc).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if o.Servers < 1 {
				return fmt.Errorf("--servers %d: give at least one server", o.Servers)
			}
			o.Plughost, o.Environ = exe, os.Environ()
			o.Server = []string{exe, "demo-server"}
			r, err := bench.Footprint(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			printFootprint(g.stdout, r)
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Servers, "servers", 20, "stdio servers serve runs")
	cmd.Flags().IntVar(&o.Runs, "runs", 3, "starts per binary")
	cmd.Flags().DurationVar(&o.Settle, "settle", 5*time.Second, "idle time after start-up before memory is read")
	cmd.Flags().StringVar(&o.Baseline, "baseline", "", "another plughost binary to measure alternately (before/after)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printFootprint(w io.Writer, r bench.FootprintResult) {
	fmt.Fprintf(w, "plughost serve with %d idle stdio servers (MiB)\n", r.Servers)
	printFootprintFigures(w, "this binary", r.Plughost)
	if r.Baseline == nil {
		return
	}
	printFootprintFigures(w, "baseline", *r.Baseline)
	x := r.Ratios
	fmt.Fprintf(w, "this / baseline: start-up (median) %.2f   serve+plugins RSS %.2f  PSS %.2f   plugins RSS %.2f  PSS %.2f\n",
		x.StartupMedian, x.OwnRSS, x.OwnPSS, x.PluginsRSS, x.PluginsPSS)
}

func printFootprintFigures(w io.Writer, label string, f bench.FootprintFigures) {
	mib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	m := f.Idle
	fmt.Fprintf(w, "%s: %s\n", label, f.Binary)
	fmt.Fprintf(w, "  start-up to every tool listed: best %s  median %s  (runs, ms: %s)\n",
		f.StartupBest.Round(time.Millisecond), f.StartupMedian.Round(time.Millisecond), roundList(f.Startups))
	fmt.Fprintf(w, "  serve + plugins  RSS %7s  PSS %6s\n", mib(m.OwnRSS()), mib(m.OwnPSS()))
	fmt.Fprintf(w, "  serve            RSS %7s  PSS %6s\n", mib(m.ServeRSS), mib(m.ServePSS))
	fmt.Fprintf(w, "  plugins (%3d)    RSS %7s  PSS %6s\n", m.Plugins, mib(m.PluginsRSS), mib(m.PluginsPSS))
	fmt.Fprintf(w, "  servers (%3d)    RSS %7s  PSS %6s\n", m.ServersN, mib(m.ServersRSS), mib(m.ServersPSS))
}
