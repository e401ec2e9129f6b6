package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
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
			catalog := map[string][]json.RawMessage{}
			for _, t := range tools {
				def, err := json.Marshal(mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema))
				if err != nil {
					return fmt.Errorf("tool %q of %s: %w", t.Name, t.Server, err)
				}
				catalog[t.Server] = append(catalog[t.Server], def)
			}
			rows, err := host.CatalogContextCosts(cmd.Context(), catalog)
			if err != nil {
				return err
			}
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
