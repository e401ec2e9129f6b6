package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPTestCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test <name>",
		Short: "Connect to one server once: time to ready, tool count, size of the tool definitions",
		Long: `test starts the server's plugin, initializes the MCP session, lists the tools and
disconnects; exit code 0 when that worked, 1 when not. A disabled server is tested too (the
config is not changed).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			h, disabled, err := g.testHost(name)
			if err != nil {
				return err
			}
			defer h.Close()
			rep, err := h.Test(cmd.Context(), name)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(g.stdout, rep); err != nil {
					return err
				}
			} else {
				printTest(g.stdout, name, rep, disabled)
			}
			if !rep.OK {
				return fmt.Errorf("server %q is not reachable", name)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// testHost builds a host in which the named server is enabled, even if the
// config disables it (or the whole integration), for this run only.
func (g *globals) testHost(name string) (*host.Host, bool, error) {
	h, err := g.newHost()
	if err != nil {
		return nil, false, err
	}
	srv, ok := h.ServerConfig(name)
	if !ok || (srv.Enabled && h.Config().MCP.Enabled) {
		return h, false, nil
	}
	h.Close()
	forced := *g
	forced.sets = append(append([]string(nil), g.sets...),
		"tools.mcp.enabled=true",
		"tools.mcp.servers["+strconv.Quote(name)+"].enabled=true")
	h, err = forced.newHost()
	return h, true, err
}

func printTest(w io.Writer, name string, rep host.TestReport, disabled bool) {
	if disabled {
		fmt.Fprintf(w, "(%s is disabled in the config; tested anyway)\n", name)
	}
	if !rep.OK {
		fmt.Fprintf(w, "%s: NOT reachable\n  %s\n", name, termsafe.Text(rep.Error))
		if rep.Diag.Stderr != "" {
			fmt.Fprintf(w, "  server stderr (last lines):\n%s\n", indent(termsafe.Text(lastLines(rep.Diag.Stderr, 20)), "    "))
		}
		return
	}
	st := rep.Status
	fmt.Fprintf(w, "%s: reachable over %s (%s)\n", name, st.Transport, st.Path)
	fmt.Fprintf(w, "  server:   %s %s (MCP %s)\n", termsafe.Text(st.ServerName), termsafe.Text(st.ServerVersion), termsafe.Text(st.ProtocolVersion))
	fmt.Fprintf(w, "  tools:    %d\n", len(rep.Tools))
	fmt.Fprintf(w, "  defs:     %d bytes of tool definitions (~%d tokens)\n", rep.DefinitionBytes, discovery.EstimateTokens(rep.DefinitionBytes))
	fmt.Fprintf(w, "  ready in: %s (plugin start + initialize + tools/list)\n", st.StartupDuration.Round(time.Millisecond))
}
