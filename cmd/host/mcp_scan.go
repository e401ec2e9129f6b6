package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/toolscan"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPScanCommand(g *globals) *cobra.Command {
	var asJSON bool
	var toolsFile string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "scan [server...]",
		Short: "Check tool definitions for poisoning: instructions to the model, secrets, exfiltration, hidden text",
		Long: `scan checks tool definitions for text aimed at the model rather than the user (tool
poisoning, OWASP MCP03). Without --tools it scans the live definitions of the named servers
(every server when none is named), from a running serve of this config when there is one,
else from servers it starts; with --tools it scans a file (- for stdin) holding a tools/list
result, a JSON-RPC response with one, or a JSON array of tools, and starts nothing.

Rules:
` + rulesHelp() + `
Exit codes: 0 nothing flagged, 3 at least one tool flagged, 1 failure, 2 usage.
See docs/security.md for what each rule catches and how it was measured.`,
		Example: `  plughost mcp scan
  plughost mcp scan github filesystem --json
  plughost mcp scan --tools tools.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if toolsFile != "" && len(args) > 0 {
				return usagef("mcp scan --tools scans a file and takes no server names (got %s)", strings.Join(args, " "))
			}
			var reports []toolscan.ToolReport
			if toolsFile != "" {
				defs, err := readToolsFile(cmd.InOrStdin(), toolsFile)
				if err != nil {
					return err
				}
				reports = toolscan.ScanAll(defs)
			} else {
				var err error
				if reports, err = g.liveReports(cmd.Context(), wait, args); err != nil {
					return err
				}
			}
			var err error
			if asJSON {
				err = writeJSON(g.stdout, struct {
					Tools []toolscan.ToolReport `json:"tools"`
				}{reports})
			} else {
				printScan(g.stdout, reports)
			}
			if err != nil {
				return err
			}
			return flaggedErr(reports)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"tools": [{"name", "server", "findings": [{"rule", "field", "excerpt"}]}]}, every tool listed`)
	cmd.Flags().StringVar(&toolsFile, "tools", "", "scan the definitions in this file (- for stdin) instead of the live servers")
	addWaitFlag(cmd, &wait)
	return cmd
}

func rulesHelp() string {
	var b strings.Builder
	for _, r := range toolscan.Rules() {
		fmt.Fprintf(&b, "  %-19s %s\n", r.Name, r.Summary)
	}
	return b.String()
}

// readToolsFile reads the definitions in path ("-": in).
func readToolsFile(in io.Reader, path string) ([]json.RawMessage, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(in)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read tool definitions: %w", err)
	}
	defs, err := toolscan.ReadDefinitions(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return defs, nil
}

// liveReports returns the scan of the named servers' tools (every
// server's when none is named) as the host made it when each server
// listed them: of every tool the server lists, those waiting for approval
// and those a discovery search would have to find included, on the whole
// definitions (annotations too). From a running serve of this config
// when there is one, else from servers this command starts.
func (g *globals) liveReports(ctx context.Context, wait time.Duration, servers []string) ([]toolscan.ToolReport, error) {
	src, err := g.live(ctx, wait)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if len(servers) == 0 {
		list, err := src.Servers(ctx)
		if err != nil {
			return nil, err
		}
		for _, row := range list.Views() {
			servers = append(servers, row.Name)
		}
	}
	var out []toolscan.ToolReport
	for _, name := range servers {
		d, err := src.Server(ctx, name)
		if err != nil {
			var ne *host.NoServerError
			var ae *api.Error // from a running serve: not_found is a server name
			if errors.As(err, &ne) || errors.As(err, &ae) && ae.Code == api.CodeNotFound {
				return nil, usageError{err}
			}
			return nil, err
		}
		var tools []string
		for _, t := range d.Tools {
			tools = append(tools, t.ServerTool)
		}
		for _, q := range d.Quarantined {
			tools = append(tools, q.Tool)
		}
		slices.Sort(tools)
		for _, t := range slices.Compact(tools) {
			fs := d.Findings[t]
			if fs == nil {
				fs = []toolscan.Finding{}
			}
			out = append(out, toolscan.ToolReport{Name: t, Server: name, Findings: fs})
		}
	}
	return out, nil
}

// printScan prints each flagged tool and its findings, then a summary.
// Everything a server wrote goes through termsafe.
func printScan(w io.Writer, reports []toolscan.ToolReport) {
	flagged := 0
	for _, r := range reports {
		if !r.Flagged() {
			continue
		}
		flagged++
		name := r.Name
		if r.Server != "" {
			name = r.Server + "/" + r.Name
		}
		fmt.Fprintln(w, termsafe.Text(toolscan.Visible(name)))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, f := range r.Findings {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Rule, termsafe.Text(f.Field), termsafe.Text(f.Excerpt))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "%d tools scanned, %d flagged\n", len(reports), flagged)
}

// flaggedErr is nil when no tool is flagged, else a *flaggedError.
func flaggedErr(reports []toolscan.ToolReport) error {
	n := 0
	for _, r := range reports {
		if r.Flagged() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return &flaggedError{fmt.Sprintf("%d of %d tools flagged by the scan", n, len(reports))}
}
