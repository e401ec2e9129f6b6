package interop

import (
	"fmt"
	"strings"
)

// The formats Import reads and Export writes.
const (
	// Claude is Claude Desktop's claude_desktop_config.json (also Claude
	// Code's .mcp.json): {"mcpServers": {...}}.
	Claude = "claude"
	// Cursor is Cursor's mcp.json: {"mcpServers": {...}}.
	Cursor = "cursor"
	// VSCode is VS Code's mcp.json, {"servers": {...}}, or its settings.json,
	// {"mcp": {"servers": {...}}}.
	VSCode = "vscode"
)

// Formats lists the supported formats.
func Formats() []string { return []string{Claude, Cursor, VSCode} }

// checkFormat rejects an unknown format name.
func checkFormat(f string) error {
	switch f {
	case Claude, Cursor, VSCode:
		return nil
	}
	return fmt.Errorf("unknown format %q; use one of %s", f, strings.Join(Formats(), ", "))
}
