package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// Snippet says what ClientSnippet prints.
type Snippet struct {
	// URL is the MCP endpoint (…/mcp).
	URL string
	// Token is the bearer token; "" when auth is off.
	Token secret.String
	// ShowToken prints the token itself. Without it the snippet names
	// TokenFile and how to read it instead: what `plughost serve` writes
	// when its stdout is not a terminal, since a service manager's log
	// keeps stdout.
	ShowToken bool
	// TokenFile is where the token is kept.
	TokenFile string
	// Exe is the plughost executable, for the stdio form.
	Exe string
	// ConfigFile, when set, is passed to the stdio form as --config, so
	// the client starts plughost on the config this serve runs.
	ConfigFile string
}

// tokenPlaceholder stands in the snippet for a token it does not show.
const tokenPlaceholder = "<token>"

// ClientSnippet is what `plughost serve` prints so a user can connect a
// client: the streamable-HTTP entry (Claude Code / Cursor / VS Code style
// mcpServers JSON, and the `claude mcp add` command) with the bearer token
// (or where to read it), where each server's own endpoint is, and the stdio
// form (Claude Desktop) that starts `<exe> [--config <file>] stdio` itself.
// With ShowToken the token appears unmasked: this is the one place meant to
// show it.
func ClientSnippet(s Snippet) string {
	entry := map[string]any{"type": "http", "url": s.URL}
	header := ""
	if s.Token != "" {
		value, shell := tokenPlaceholder, "$(cat "+shellQuote(s.TokenFile)+")"
		if s.ShowToken {
			value, shell = s.Token.Reveal(), s.Token.Reveal()
		}
		entry["headers"] = map[string]string{"Authorization": "Bearer " + value}
		header = fmt.Sprintf(" --header \"Authorization: Bearer %s\"", shell)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MCP gateway at %s\n\n", s.URL)
	b.WriteString("Connect a client over streamable HTTP (Claude Code .mcp.json, Cursor mcp.json, …):\n")
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": entry}}))
	fmt.Fprintf(&b, "\nor: claude mcp add --transport http plughost %s%s\n", s.URL, header)
	if s.Token != "" && !s.ShowToken {
		fmt.Fprintf(&b, "The bearer token is not printed, as stdout is not a terminal (logs keep what it writes): it is in %s;\n"+
			"put it in place of %s (read it with: cat %s).\n", s.TokenFile, tokenPlaceholder, shellQuote(s.TokenFile))
	}
	same := ""
	if s.Token != "" {
		same = " (same token)"
	}
	fmt.Fprintf(&b, "Each server is also served alone, under its own names, at %s/servers/<name>/mcp%s.\n\n", strings.TrimSuffix(s.URL, MCPPath), same)
	b.WriteString("Or let the client start plughost over stdio (Claude Desktop claude_desktop_config.json):\n")
	args := []string{"stdio"}
	if s.ConfigFile != "" {
		args = []string{"--config", s.ConfigFile, "stdio"}
	}
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": map[string]any{"command": s.Exe, "args": args}}}))
	b.WriteString("\n")
	return b.String()
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~+") == "" && !strings.HasPrefix(s, "~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// indentJSON writes v indented, with <, > and & as they are (the token
// placeholder is <token>).
func indentJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // maps of strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}
