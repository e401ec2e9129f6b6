package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/secret"
	"github.com/plughost/plughost/host/supervisor"
)

func newMCPCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect the configured MCP servers (tools.mcp.servers)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("mcp needs a subcommand: list, show or test (see plughost mcp --help)")
		},
	}
	cmd.AddCommand(newMCPListCommand(g), newMCPShowCommand(g), newMCPTestCommand(g))
	return cmd
}

func newMCPListCommand(g *globals) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every configured server with its live status",
		Long: `list starts every enabled server, waits until each is connected or has failed
(at most --wait), prints one line per server and stops them again.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := g.startHost(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer h.Close()
			statuses := h.Statuses()
			if asJSON {
				return writeJSON(g.stdout, listJSON(h, statuses))
			}
			printList(g.stdout, h, statuses)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addWaitFlag(cmd, &wait)
	return cmd
}

type listEntry struct {
	supervisor.Status
	Deferred bool `json:"deferred"`
}

func listJSON(h *host.Host, statuses []supervisor.Status) []listEntry {
	out := make([]listEntry, 0, len(statuses))
	for _, st := range statuses {
		srv, _ := h.ServerConfig(st.Name)
		out = append(out, listEntry{Status: st, Deferred: srv.Deferred(h.Config().MCP.Discovery.Enabled)})
	}
	return out
}

func printList(w io.Writer, h *host.Host, statuses []supervisor.Status) {
	if len(statuses) == 0 {
		fmt.Fprintln(w, "No servers configured (tools.mcp.servers is empty).")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tDEFERRED\tSTATUS")
	for _, e := range listJSON(h, statuses) {
		typ := orDash(e.Transport)
		if e.TransportNote != "" {
			typ += " (auto)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, typ, yesNo(e.Deferred), describeState(e.Status))
	}
	tw.Flush()
}

func newMCPShowCommand(g *globals) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "show <name>",
		Short: "Show one server's config (secrets masked), status and tools",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := g.startHost(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer h.Close()
			name := args[0]
			srv, ok := h.ServerConfig(name)
			if !ok {
				return fmt.Errorf("no server named %q in the config (configured: %s)", name, strings.Join(h.ServerNames(), ", "))
			}
			st, _ := h.Status(name)
			tools := h.ServerTools(name)
			diag, _ := h.Diagnostics(cmd.Context(), name)
			if asJSON {
				return writeJSON(g.stdout, map[string]any{"name": name, "config": srv, "status": st, "tools": tools, "stderr": diag.Stderr})
			}
			printServer(g.stdout, name, srv, st, h.Config().MCP.Discovery.Enabled)
			printTools(g.stdout, tools)
			if st.State != supervisor.StateConnected && diag.Stderr != "" {
				fmt.Fprintf(g.stdout, "\nServer stderr (last lines):\n%s\n", indent(lastLines(diag.Stderr, 20), "  "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addWaitFlag(cmd, &wait)
	return cmd
}

func printServer(w io.Writer, name string, srv config.Server, st supervisor.Status, discovery bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("Server", name)
	row("Enabled", yesNo(srv.Enabled))
	row("Transport", orDash(st.Transport))
	row("Detected", st.TransportNote)
	row("Messages", st.Path)
	row("Deferred", yesNo(srv.Deferred(discovery)))
	row("Command", strings.TrimSpace(srv.Command+" "+strings.Join(srv.Args, " ")))
	row("URL", srv.URL)
	row("Env", maskedMap(srv.Env))
	row("Env file", srv.EnvFile)
	if srv.InheritEnv {
		row("Inherit env", "yes (the whole host environment)")
	}
	row("Headers", maskedMap(srv.Headers))
	row("Status", describeState(st))
	row("Warnings", strings.Join(st.Warnings, "; "))
	if st.ServerName != "" {
		row("Reports", fmt.Sprintf("%s %s (MCP %s)", st.ServerName, st.ServerVersion, st.ProtocolVersion))
	}
	if st.Restarts > 0 {
		row("Restarts", fmt.Sprint(st.Restarts))
	}
	if st.LastError != "" && st.State == supervisor.StateConnected {
		row("Last error", st.LastError)
	}
	tw.Flush()
}

func printTools(w io.Writer, tools []registry.Tool) {
	fmt.Fprintf(w, "\nTools (%d):\n", len(tools))
	for _, t := range tools {
		fmt.Fprintf(w, "  %s  (server tool %q)\n", t.Name, t.ServerTool)
		if d := firstLine(t.Description); d != "" {
			fmt.Fprintf(w, "      %s\n", d)
		}
		for _, p := range t.Params() {
			req := "optional"
			if p.Required {
				req = "required"
			}
			fmt.Fprintf(w, "      - %s (%s, %s) %s\n", p.Name, orDash(p.Type), req, firstLine(p.Description))
		}
	}
}

func newMCPTestCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test <name>",
		Short: "Connect to one server once and report reachability, tools and start-up time",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := g.newHost()
			if err != nil {
				return err
			}
			defer h.Close()
			rep, err := h.Test(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(g.stdout, rep); err != nil {
					return err
				}
			} else {
				printTest(g.stdout, args[0], rep)
			}
			if !rep.OK {
				return fmt.Errorf("server %q is not reachable", args[0])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printTest(w io.Writer, name string, rep host.TestReport) {
	if !rep.OK {
		fmt.Fprintf(w, "%s: NOT reachable\n  %s\n", name, rep.Error)
		if rep.Diag.Stderr != "" {
			fmt.Fprintf(w, "  server stderr (last lines):\n%s\n", indent(lastLines(rep.Diag.Stderr, 20), "    "))
		}
		return
	}
	st := rep.Status
	fmt.Fprintf(w, "%s: reachable over %s (%s)\n", name, st.Transport, st.Path)
	fmt.Fprintf(w, "  server:   %s %s (MCP %s)\n", st.ServerName, st.ServerVersion, st.ProtocolVersion)
	fmt.Fprintf(w, "  tools:    %d\n", len(rep.Tools))
	fmt.Fprintf(w, "  start-up: %s (plugin start + initialize + tools/list)\n", st.StartupDuration.Round(time.Millisecond))
}

func maskedMap(m map[string]secret.String) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%s", k, m[k]) // secret.String masks itself
	}
	return strings.Join(parts, " ")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 110
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
