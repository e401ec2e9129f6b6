package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPShowCommand(g *globals) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "show <name>",
		Short: "Show one server's config (secrets masked), status, tools and stderr",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := g.live(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer src.Close()
			d, err := src.Server(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, map[string]any{
					"name": d.Name, "config": d.Config, "status": d.Status, "tools": d.Tools, "stderr": d.Stderr,
					"deferred": d.Deferred, "deferred_reason": d.DeferredReason,
					"quarantined": d.Quarantined, "findings": d.Findings,
				})
			}
			printServer(g.stdout, d)
			printTools(g.stdout, d.Tools)
			printTrust(g.stdout, d)
			if d.Stderr != "" {
				fmt.Fprintf(g.stdout, "\nServer stderr (last lines):\n%s\n", indent(termsafe.Text(lastLines(d.Stderr, 20)), "  "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addWaitFlag(cmd, &wait)
	return cmd
}

// printServer prints a server's config and status; every value is made
// safe to print (termsafe.Text): many come from the server (its name,
// errors, warnings).
func printServer(w io.Writer, d host.ServerDetail) {
	srv, st := d.Config, d.Status
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, termsafe.Text(v))
		}
	}
	row("Server", d.Name)
	row("Enabled", yesNo(srv.Enabled))
	typ := srv.Type
	if typ == "" {
		typ = "(detected)"
	}
	row("Type", typ)
	row("Transport", orDash(st.Transport))
	row("Detected", st.TransportNote)
	row("Messages", st.Path)
	row("Deferred", fmt.Sprintf("%s (%s)", yesNo(d.Deferred), d.DeferredReason))
	row("Command", strings.TrimSpace(srv.Command+" "+strings.Join(srv.Args, " ")))
	row("URL", srv.URL.String())
	row("Env", maskedMap(srv.Env))
	row("Env file", srv.EnvFile)
	if srv.InheritEnv {
		row("Inherit env", "yes (the whole host environment)")
	}
	row("Headers", maskedMap(srv.Headers))
	row("OAuth", oauthText(srv.OAuth))
	row("Login", host.LoginText(st.Auth, time.Now()))
	row("Timeouts", timeoutsText(srv.TimeoutOverrides))
	row("Other keys", maskedMap(srv.Extra))
	row("Status", host.StateText(st))
	if d.Waiting > 0 || d.Flagged > 0 {
		row("Approval", approvalText(d.ServerListing)+fmt.Sprintf(" (see: plughost mcp trust %s)", d.Name))
	}
	row("Warnings", strings.Join(st.Warnings, "; "))
	if st.ServerName != "" {
		row("Reports", fmt.Sprintf("%s %s (MCP %s)", st.ServerName, st.ServerVersion, st.ProtocolVersion))
	}
	if st.Restarts > 0 {
		row("Restarts", fmt.Sprint(st.Restarts))
	}
	if st.LastError != "" && st.State != supervisor.StateError && st.State != supervisor.StateInvalid {
		row("Last error", strings.ReplaceAll(st.LastError, "\n", "; "))
	}
	tw.Flush()
}

func oauthText(o *config.OAuth) string {
	if o == nil {
		return ""
	}
	parts := []string{"browser login"}
	if o.ClientID != "" {
		parts = append(parts, "client "+o.ClientID)
	}
	if o.ClientSecret != "" {
		parts = append(parts, "client secret "+o.ClientSecret.String())
	}
	if o.ClientMetadataURL != "" {
		parts = append(parts, "client metadata "+o.ClientMetadataURL)
	}
	if o.Issuer != "" {
		parts = append(parts, "issuer "+o.Issuer)
	}
	if len(o.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(o.Scopes, " "))
	}
	return strings.Join(parts, ", ")
}

func timeoutsText(o config.TimeoutOverrides) string {
	var parts []string
	for _, f := range []struct {
		k string
		v *float64
	}{{"start", o.Start}, {"initialize", o.Initialize}, {"list_tools", o.ListTools}, {"call", o.Call}} {
		if f.v != nil {
			parts = append(parts, fmt.Sprintf("%s %gs", f.k, *f.v))
		}
	}
	return strings.Join(parts, ", ")
}

func printTools(w io.Writer, tools []registry.Tool) {
	fmt.Fprintf(w, "\nTools (%d):\n", len(tools))
	for _, t := range tools {
		fmt.Fprintf(w, "  %s  (server tool %q)\n", termsafe.Text(t.Name), t.ServerTool)
		if d := firstLine(t.Description); d != "" {
			fmt.Fprintf(w, "      %s\n", d)
		}
		for _, p := range t.Params() {
			req := "optional"
			if p.Required {
				req = "required"
			}
			fmt.Fprintf(w, "      - %s (%s, %s) %s\n", termsafe.Text(p.Name), termsafe.Text(orDash(p.Type)), req, firstLine(p.Description))
		}
	}
}

// printTrust prints the tools waiting for approval, by name and reason,
// and the definition scan's findings on the listed tools.
func printTrust(w io.Writer, d host.ServerDetail) {
	if len(d.Quarantined) > 0 {
		fmt.Fprintf(w, "\nWaiting for approval (%d; diffs and approval: plughost mcp trust %s):\n", len(d.Quarantined), termsafe.Text(d.Name))
		for _, q := range d.Quarantined {
			why := make([]string, len(q.Reasons))
			for i, r := range q.Reasons {
				why[i] = quarantine.ReasonText(r)
			}
			fmt.Fprintf(w, "  %s  (server tool %s): %s\n", visible(q.Name), visible(q.Tool), strings.Join(why, "; "))
		}
	}
	if len(d.Findings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDefinition scan findings:\n")
	for _, tool := range slices.Sorted(maps.Keys(d.Findings)) {
		for _, f := range d.Findings[tool] {
			fmt.Fprintf(w, "  %s  %s in %s: %s\n", visible(tool), f.Rule, visible(f.Field), visible(f.Excerpt))
		}
	}
}
