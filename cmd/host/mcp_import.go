package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/config/interop"
)

func newMCPImportCommand(g *globals) *cobra.Command {
	var from string
	var force bool
	cmd := &cobra.Command{
		Use:   "import [--from claude|cursor|vscode] <file>",
		Short: "Import servers from a Claude Desktop, Cursor or VS Code config file",
		Long: `import copies every server of another MCP client's config into your config file:
Claude Desktop's claude_desktop_config.json and Cursor's mcp.json ("mcpServers"), VS Code's
mcp.json ("servers") or settings.json ("mcp.servers"). The format is detected unless --from
names it. Fields plughost has no equivalent for are left out and listed. All servers are
checked first; nothing is written unless all of them are valid. A name that already exists
is an error unless --force replaces it.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.importServers(args[0], from, force)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "format of the file: claude, cursor or vscode (default: detected)")
	cmd.Flags().BoolVar(&force, "force", false, "replace servers that already exist")
	return cmd
}

func (g *globals) importServers(path, from string, force bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	res, err := interop.Import(data, from)
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	if len(res.Servers) == 0 {
		return fmt.Errorf("import %s: the %s file lists no servers", path, res.Format)
	}
	ed, err := g.beginEdit()
	if err != nil {
		return err
	}
	existing, err := ed.serverNames()
	if err != nil {
		return err
	}
	var clashes, names []string
	for _, s := range res.Servers {
		names = append(names, s.Name)
		if slices.Contains(existing, s.Name) {
			clashes = append(clashes, s.Name)
		}
	}
	if len(clashes) > 0 && !force {
		return fmt.Errorf("nothing was imported: %s already in %s; add --force to replace them, or remove them first", strings.Join(quoteEach(clashes), ", "), ed.file.Path)
	}
	enable := len(existing) == 0 && !ed.mcpEnabled()
	if enable {
		if err := ed.set(true, "tools", "mcp", "enabled"); err != nil {
			return err
		}
	}
	for _, s := range res.Servers {
		if err := ed.set(s.Entry, "tools", "mcp", "servers", s.Name); err != nil {
			return err
		}
	}
	warnings, err := ed.check(false, names...)
	if err != nil {
		return err
	}
	if err := ed.commit(); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(g.stderr, "note:", n)
	}
	printWarnings(g.stderr, warnings)
	fmt.Fprintf(g.stdout, "Imported %d server(s) from %s (%s format) into %s: %s\n", len(names), path, res.Format, ed.file.Path, strings.Join(names, ", "))
	if enable {
		fmt.Fprintln(g.stdout, "These are the first servers: set tools.mcp.enabled to true so that plughost runs them.")
	}
	return nil
}

func quoteEach(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
