package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPListCommand(g *globals) *cobra.Command {
	var asJSON, noProbe bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every configured server with its live status",
		Long: `list prints one line per server. When a plughost serve of the same config runs, it
shows that serve's live state; otherwise it starts every enabled server in parallel, waits
until each is connected or has failed (at most --timeout), and stops them again. --no-probe
shows the config alone, without connecting.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var rows []host.ServerListing
			if noProbe {
				h, err := g.newHost()
				if err != nil {
					return err
				}
				defer h.Close()
				rows = h.ServerListings()
			} else {
				src, err := g.live(cmd.Context(), wait)
				if err != nil {
					return err
				}
				defer src.Close()
				list, err := src.Servers(cmd.Context())
				if err != nil {
					return err
				}
				rows = list.Views()
			}
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

func printList(w io.Writer, rows []host.ServerListing) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No servers configured (tools.mcp.servers is empty). Add one with: plughost mcp add <name> -- <command>")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tENABLED\tDEFERRED\tAPPROVAL\tSTATUS")
	for _, r := range rows {
		typ := orDash(r.Transport)
		if r.Detected && r.Transport != "" {
			typ += " (auto)"
		}
		deferred := fmt.Sprintf("%s (%s)", yesNo(r.Deferred), r.DeferredReason)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Text(r.Name), termsafe.Text(typ), yesNo(r.Enabled), deferred, approvalText(r), termsafe.Text(r.Description))
	}
	tw.Flush()
}

// approvalText says how many of a server's tools wait for approval and how
// many the definition scan flagged: "-" when none.
func approvalText(r host.ServerListing) string {
	var parts []string
	if r.Waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting", r.Waiting))
	}
	if r.Flagged > 0 {
		parts = append(parts, fmt.Sprintf("%d flagged", r.Flagged))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
