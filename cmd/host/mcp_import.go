package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/manage"
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
	res, err := g.manager().Import(data, from, manage.ImportOptions{Replace: force})
	var exists *manage.ExistsError
	switch {
	case errors.As(err, &exists):
		return fmt.Errorf("nothing was imported: %s already in %s; add --force to replace them, or remove them first", strings.Join(quoteEach(res.Clashes), ", "), exists.File)
	case err != nil && isEditError(err):
		return err
	case err != nil:
		return fmt.Errorf("import %s: %w", path, err)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(g.stderr, "note:", n)
	}
	printWarnings(g.stderr, res.Warnings)
	fmt.Fprintf(g.stdout, "Imported %d server(s) from %s (%s format) into %s: %s\n", len(res.Names), path, res.Format, res.File, strings.Join(res.Names, ", "))
	if res.EnabledMCP {
		fmt.Fprintln(g.stdout, "These are the first servers: set tools.mcp.enabled to true so that plughost runs them.")
	}
	return nil
}

// isEditError reports whether err is about the user file (which the error
// names), not about the file being imported.
func isEditError(err error) bool {
	var inv *manage.InvalidError
	var ne *manage.NotEditableError
	var ce *manage.ConflictError
	return errors.As(err, &inv) || errors.As(err, &ne) || errors.As(err, &ce)
}

func quoteEach(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
