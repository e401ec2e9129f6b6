package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plughost/plughost/host/secret"
)

// ClientSnippet is what `plughost serve` prints so a user can connect a
// client: the streamable-HTTP entry (Claude Code / Cursor / VS Code style
// mcpServers JSON, and the `claude mcp add` command) with the bearer token,
// where each server's own endpoint is, and the stdio form (Claude Desktop)
// that starts `<exe> stdio` itself. The
// token appears unmasked: this is the one place meant to show it.
func ClientSnippet(url string, tok secret.String, exe string) string {
	entry := map[string]any{"type": "http", "url": url}
	header := ""
	if tok != "" {
		entry["headers"] = map[string]string{"Authorization": "Bearer " + tok.Reveal()}
		header = fmt.Sprintf(" --header \"Authorization: Bearer %s\"", tok.Reveal())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MCP gateway at %s\n\n", url)
	b.WriteString("Connect a client over streamable HTTP (Claude Code .mcp.json, Cursor mcp.json, …):\n")
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": entry}}))
	fmt.Fprintf(&b, "\nor: claude mcp add --transport http plughost %s%s\n", url, header)
	fmt.Fprintf(&b, "Each server is also served alone, under its own names, at %s/servers/<name>/mcp (same token).\n\n", strings.TrimSuffix(url, MCPPath))
	b.WriteString("Or let the client start plughost over stdio (Claude Desktop claude_desktop_config.json):\n")
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": map[string]any{"command": exe, "args": []string{"stdio"}}}}))
	b.WriteString("\n")
	return b.String()
}

func indentJSON(v any) string {
	out, _ := json.MarshalIndent(v, "", "  ") // maps of strings always marshal
	return string(out)
}
