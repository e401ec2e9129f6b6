package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/internal/bench"
)

func newBenchMemoryCommand(g *globals) *cobra.Command {
	var chars int
	var concurrency []int
	var settle time.Duration
	var asJSON, noGateway bool
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Measure the peak memory of large results: library (direct pipes, relay) and gateway",
		Long: `bench memory calls the demo server's generate_text tool for --chars characters, once
and --concurrency times at once, and reports the peak RSS growth (VmHWM) of the process
holding the host over the payloads, and what is still held --settle later (the GC is not
forced). Each result travels the whole way: server → plugin or direct pipes → host →
shaping chain (artifact written to a temp workspace, bounded view) → caller. Measured:
  - this process, through the Go library, on the direct-pipes path and on the relay;
  - a ` + "`plughost stdio`" + ` child (the MCP gateway), called over MCP on its stdin/stdout.
Linux only (/proc); the library figures use this process's GC setting (GOGC).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			o := bench.MemoryOptions{
				Options: bench.Options{Command: exe, Args: []string{"demo-server"},
					PluginDirs: plugindir.DefaultDirs(exe, home), Environ: os.Environ()},
				Plughost: exe, Chars: chars, Concurrency: concurrency, Settle: settle,
			}
			if noGateway {
				o.Plughost = ""
			}
			runs, err := bench.LargeResultMemory(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, runs)
			}
			mib := func(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
			fmt.Fprintf(g.stdout, "peak RSS growth for results of %d characters (payload %.1f MiB each)\n", chars, float64(chars)/(1<<20))
			for _, r := range runs {
				fmt.Fprintf(g.stdout, "  %-40s ×%d  peak +%-10s = %.2f × payload   still held after %s: %-10s (%s)\n",
					r.Setup, r.Concurrent, mib(r.PeakGrowthKiB), r.Ratio, settle, mib(r.AfterKiB), r.Took.Round(time.Millisecond))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&chars, "chars", 50_000_000, "characters per result (at most 50,000,000)")
	cmd.Flags().IntSliceVar(&concurrency, "concurrency", []int{1, 3}, "simultaneous calls, one measurement each")
	cmd.Flags().DurationVar(&settle, "settle", 3*time.Second, "wait after the calls before reading what is still held")
	cmd.Flags().BoolVar(&noGateway, "no-gateway", false, "skip the plughost stdio measurement")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
