package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/plugindir"
	"github.com/plughost/plughost/internal/bench"
)

func newBenchReloadCommand(g *globals) *cobra.Command {
	var servers, rounds int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reload",
		Short: "Measure live config reload: one server edited among many",
		Long: `bench reload runs --servers copies of the built-in demo server from a config file
watched as plughost serve watches it, then edits one server's entry --rounds times (a new
env value, written as plughost mcp add --force writes it) and measures, per edit, the time
until the new config is applied and until the edited server runs again with a new process;
it counts restarts of the servers that were not edited (the goal is 0).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			o := bench.ReloadOptions{Options: bench.Options{
				Command: exe, Args: []string{"demo-server"},
				PluginDirs: plugindir.DefaultDirs(exe, home), Environ: os.Environ(), Servers: servers,
			}, Rounds: rounds}
			r, err := bench.Reload(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
			fmt.Fprintf(g.stdout, "live reload: one of %d servers edited, %d rounds (file watch debounce %s)\n", r.Servers, r.Rounds, r.Debounce)
			fmt.Fprintf(g.stdout, "  edit → config applied             p50 %7s   max %7s\n", ms(r.Applied.P50), ms(r.Applied.Max))
			fmt.Fprintf(g.stdout, "  edit → edited server reconnected  p50 %7s   max %7s\n", ms(r.Reconnected.P50), ms(r.Reconnected.Max))
			fmt.Fprintf(g.stdout, "  restarts of the other %d servers: %d\n", r.Servers-1, r.OthersRestarted)
			if r.OthersRestarted > 0 {
				return fmt.Errorf("%d servers that were not edited were restarted", r.OthersRestarted)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&servers, "servers", 20, "servers configured")
	cmd.Flags().IntVar(&rounds, "rounds", 10, "edits measured")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
