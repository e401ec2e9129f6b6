package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Manage and inspect the configured MCP servers (tools.mcp.servers)",
		Long: `mcp manages tools.mcp.servers. Commands that change the config (add, remove, edit,
import) write only your config file, check the result with the validator plughost runs with,
write atomically with mode 0600, keep the previous version as <file>.bak, and refuse to
overwrite a change someone else made meanwhile.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("mcp needs a subcommand: add, list, show, test, remove, edit, import, export, login, logout, client, trust or scan (see plughost mcp --help)")
		},
	}
	cmd.AddCommand(newMCPAddCommand(g), newMCPListCommand(g), newMCPShowCommand(g), newMCPTestCommand(g),
		newMCPRemoveCommand(g), newMCPEditCommand(g), newMCPImportCommand(g), newMCPExportCommand(g),
		newMCPLoginCommand(g), newMCPLogoutCommand(g), newMCPClientCommand(g), newMCPTrustCommand(g), newMCPScanCommand(g))
	return cmd
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

// writeJSON prints v as indented JSON, C1 controls in its strings escaped
// too (the encoder escapes only C0 ones; see termsafe.JSON).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
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

// firstLine is the first line of a server's text (a description), cut to
// 110 characters, safe to print (termsafe.Text).
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 110
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return termsafe.Text(s)
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
