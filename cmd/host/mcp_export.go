package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/config/interop"
)

func newMCPExportCommand(g *globals) *cobra.Command {
	var format string
	var reveal bool
	cmd := &cobra.Command{
		Use:   "export --format claude|cursor|vscode",
		Short: "Print the configured servers in another MCP client's config format",
		Long: `export prints the enabled servers (from every config layer) as a Claude Desktop /
Cursor ("mcpServers") or VS Code ("servers") JSON document on stdout. Env and header values
and URL credentials (password, secret query parameters) are masked unless --show-secrets is
given; fields the format cannot hold are listed on stderr.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format == "" {
				return usagef("mcp export needs --format: %s", strings.Join(interop.Formats(), ", "))
			}
			l, err := g.loadConfig()
			if err != nil {
				return err
			}
			out, notes, err := interop.Export(l.Config.MCP.Servers, format, reveal)
			if err != nil {
				return usageError{err}
			}
			for _, n := range notes {
				fmt.Fprintln(g.stderr, "note:", n)
			}
			if !reveal {
				fmt.Fprintln(g.stderr, "note: env and header values and URL credentials are masked as ****; add --show-secrets to export them")
			}
			_, err = g.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "claude, cursor or vscode")
	cmd.Flags().BoolVar(&reveal, "show-secrets", false, "export env and header values in clear (the output then holds secrets)")
	return cmd
}
