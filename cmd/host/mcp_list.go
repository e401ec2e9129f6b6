package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// stateNotProbed is the state `mcp list --no-probe` shows for a server it
// did not connect to.
const stateNotProbed supervisor.State = "not probed"

func newMCPListCommand(g *globals) *cobra.Command {
	var asJSON, noProbe bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every configured server with its live status",
		Long: `list starts every enabled server in parallel, waits until each is connected or has
failed (at most --timeout), prints one line per server and stops them again. --no-probe shows
the config alone, without connecting.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var h *host.Host
			var err error
			if noProbe {
				h, err = g.newHost()
			} else {
				h, err = g.startHost(cmd.Context(), wait)
			}
			if err != nil {
				return err
			}
			defer h.Close()
			rows := listRows(h, !noProbe)
			if asJSON {
				return writeJSON(g.stdout, rows)
			}
			printList(g.stdout, rows)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&noProbe, "no-probe", false, "show the config only; do not connect to the servers")
	addWaitFlag(cmd, &wait)
	cmd.Flags().DurationVar(&wait, "timeout", defaultWait, "how long to wait for the servers to connect (same as --wait)")
	return cmd
}

// listRow is one server in `mcp list`.
type listRow struct {
	supervisor.Status
	// Type is the configured type ("" when detected).
	Type string `json:"type"`
	// Detected reports that the transport was detected, not configured.
	Detected bool `json:"detected"`
	// Enabled is the server's "enabled" setting.
	Enabled bool `json:"enabled"`
	// Deferred is the effective deferred state, DeferredReason says why:
	// global, pinned, opt-in or discovery off.
	Deferred       bool   `json:"deferred"`
	DeferredReason string `json:"deferred_reason"`
}

func listRows(h *host.Host, probed bool) []listRow {
	discovery := h.Config().MCP.Discovery.Enabled
	var out []listRow
	for _, st := range h.Statuses() {
		srv, _ := h.ServerConfig(st.Name)
		if _, running := h.Server(st.Name); running && !probed {
			st.State = stateNotProbed
		}
		if st.Transport == "" {
			st.Transport = srv.Transport()
		}
		d, why := srv.DeferredState(discovery)
		out = append(out, listRow{
			Status: st, Type: srv.Type, Detected: srv.Type == "" || st.TransportNote != "",
			Enabled: srv.Enabled, Deferred: d, DeferredReason: why,
		})
	}
	return out
}

func printList(w io.Writer, rows []listRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No servers configured (tools.mcp.servers is empty). Add one with: plughost mcp add <name> -- <command>")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tENABLED\tDEFERRED\tSTATUS")
	for _, r := range rows {
		typ := orDash(r.Transport)
		if r.Detected && r.Transport != "" {
			typ += " (auto)"
		}
		deferred := fmt.Sprintf("%s (%s)", yesNo(r.Deferred), r.DeferredReason)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, typ, yesNo(r.Enabled), deferred, describeState(r.Status))
	}
	tw.Flush()
}
