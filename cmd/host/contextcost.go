package main

import (
	"slices"

	"fmt"
	"github.com/plughost/plughost/host/artifacts"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/naming"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/search/eval"
)

func newContextCostCommand(g *globals) *cobra.Command {
	var toolsFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "context-cost --tools FILE",
		Short: "Bytes and estimated tokens of the tool definitions a model receives, discovery off vs on",
		Long: `context-cost loads a benchmark tools file as if every entry were a connected server's
tool (final mcp_<server>_<tool> names, descriptions, input schemas) and reports the size of
the definitions the model receives on every request: all of them with discovery off, only
the search tools with discovery on (every server deferred); read_file and search_files, which
every session offers for paging saved results, are counted in both.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if toolsFile == "" {
				return usagef("context-cost needs --tools FILE")
			}
			tools, err := eval.LoadJSON[[]eval.Tool](toolsFile)
			if err != nil {
				return err
			}
			all := asRegistryTools(tools)
			var paging []registry.Tool
			for _, d := range artifacts.ToolDefs() {
				paging = append(paging, registry.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema})
			}
			var rows []costRow
			add := func(setup string, ts []registry.Tool) {
				ts = append(slices.Clone(ts), paging...)
				b := discovery.DefinitionBytes(ts)
				rows = append(rows, costRow{setup, len(ts), b, discovery.EstimateTokens(b)})
			}
			add("discovery off (every tool)", all)
			add("discovery on, bm25", discovery.SearchToolsFor(discovery.Settings{Enabled: true, UseBM25: true}))
			add("discovery on, bm25 + regex", discovery.SearchToolsFor(discovery.Settings{Enabled: true, UseBM25: true, UseRegex: true}))
			if asJSON {
				return writeJSON(g.stdout, rows)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SETUP\tTOOLS\tBYTES\t~TOKENS")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", r.Setup, r.Tools, r.Bytes, r.Tokens)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&toolsFile, "tools", "", "benchmark tools file (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// costRow is one line of the context-cost report.
type costRow struct {
	Setup  string `json:"setup"`
	Tools  int    `json:"tools"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"estimated_tokens"`
}

// asRegistryTools names benchmark tools the way the registry would.
func asRegistryTools(tools []eval.Tool) []registry.Tool {
	pairs := make([]naming.Pair, len(tools))
	for i, t := range tools {
		pairs[i] = naming.Pair{Server: t.Server, Tool: t.Name}
	}
	names := naming.Assign(pairs)
	out := make([]registry.Tool, len(tools))
	for i, t := range tools {
		out[i] = registry.Tool{Name: names[pairs[i]], Server: t.Server, ServerTool: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}
