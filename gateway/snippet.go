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
	entry := s.httpEntry()
	var b strings.Builder
	fmt.Fprintf(&b, "MCP gateway at %s\n\n", s.URL)
	b.WriteString("Connect a client over streamable HTTP (Claude Code .mcp.json, Cursor mcp.json, …):\n")
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": entry}}))
	fmt.Fprintf(&b, "\nor: %s\n", s.claudeCommand())
	if s.Token != "" && !s.ShowToken {
		fmt.Fprintf(&b, "The bearer token is not printed, as stdout is not a terminal (logs keep what it writes): it is in %s;\n"+
			"put it in place of %s (read it with: cat %s).\n", s.TokenFile, tokenPlaceholder, shellQuote(s.TokenFile))
	}
	same := ""
	if s.Token != "" {
		same = " (same token)"
	}
	fmt.Fprintf(&b, "Each server is also served alone, under its own names, at %s%s.\n\n", s.serverURL(), same)
	b.WriteString("Or let the client start plughost over stdio (Claude Desktop claude_desktop_config.json):\n")
	b.WriteString(indentJSON(map[string]any{"mcpServers": map[string]any{"plughost": s.stdioEntry()}}))
	b.WriteString("\n")
	return b.String()
}

// ClientConfig is one client's ready configuration for the gateway.
type ClientConfig struct {
	// ID names the client for programs: claude-code, claude-desktop,
	// cursor, vscode, stdio.
	ID string `json:"id"`
	// Client is the client's name for people.
	Client string `json:"client"`
	// Where says where the text goes (a file, a terminal).
	Where string `json:"where"`
	// Text is the command or the file's JSON.
	Text string `json:"text"`
}

// Connection is what a user needs to connect a client: the same content
// as ClientSnippet, one entry per client.
type Connection struct {
	// URL is the MCP endpoint.
	URL string `json:"url"`
	// ServerURL is each server's own endpoint, with <name> for the server.
	ServerURL string `json:"server_url"`
	// Auth is true when clients must send a bearer token.
	Auth bool `json:"auth"`
	// TokenFile is where the token is kept (when Auth).
	TokenFile string `json:"token_file,omitempty"`
	// Clients are the ready configurations; they hold the token only
	// when the Snippet's ShowToken is set, else <token> in its place.
	Clients []ClientConfig `json:"clients"`
}

// Connect returns the client configurations for s, one per client. With
// ShowToken they carry the token itself, else the <token> placeholder (a
// shell command reads the token file instead).
func Connect(s Snippet) Connection {
	remote := map[string]any{"plughost": s.httpEntry()}
	stdio := map[string]any{"plughost": s.stdioEntry()}
	tokenFile := ""
	if s.Token != "" {
		tokenFile = s.TokenFile
	}
	return Connection{URL: s.URL, ServerURL: s.serverURL(), Auth: s.Token != "", TokenFile: tokenFile, Clients: []ClientConfig{
		{ID: "claude-code", Client: "Claude Code", Where: "Run in a terminal", Text: s.claudeCommand()},
		{ID: "claude-desktop", Client: "Claude Desktop", Where: "claude_desktop_config.json (plughost started over stdio)",
			Text: indentJSON(map[string]any{"mcpServers": stdio})},
		{ID: "cursor", Client: "Cursor", Where: "~/.cursor/mcp.json or .cursor/mcp.json",
			Text: indentJSON(map[string]any{"mcpServers": remote})},
		{ID: "vscode", Client: "VS Code", Where: ".vscode/mcp.json",
			Text: indentJSON(map[string]any{"servers": remote})},
		{ID: "stdio", Client: "Any client over stdio", Where: "The command a client starts",
			Text: strings.Join(append([]string{shellQuote(s.Exe)}, s.stdioArgs()...), " ")},
	}}
}

// bearer returns the Authorization value for JSON and for a shell
// command: the token when shown, else the placeholder and a command that
// reads the token file.
func (s Snippet) bearer() (value, shell string) {
	if s.ShowToken {
		return s.Token.Reveal(), s.Token.Reveal()
	}
	return tokenPlaceholder, "$(cat " + shellQuote(s.TokenFile) + ")"
}

// httpEntry is the streamable-HTTP entry of an mcpServers map.
func (s Snippet) httpEntry() map[string]any {
	entry := map[string]any{"type": "http", "url": s.URL}
	if s.Token != "" {
		value, _ := s.bearer()
		entry["headers"] = map[string]string{"Authorization": "Bearer " + value}
	}
	return entry
}

// claudeCommand is the `claude mcp add` command line.
func (s Snippet) claudeCommand() string {
	cmd := "claude mcp add --transport http plughost " + s.URL
	if s.Token != "" {
		_, shell := s.bearer()
		cmd += fmt.Sprintf(" --header \"Authorization: Bearer %s\"", shell)
	}
	return cmd
}

// serverURL is each server's own endpoint, with <name> for the server.
func (s Snippet) serverURL() string {
	return strings.TrimSuffix(s.URL, MCPPath) + "/servers/<name>/mcp"
}

// stdioArgs are the arguments of the stdio form.
func (s Snippet) stdioArgs() []string {
	if s.ConfigFile != "" {
		return []string{"--config", s.ConfigFile, "stdio"}
	}
	return []string{"stdio"}
}

// stdioEntry is the stdio entry of an mcpServers map.
func (s Snippet) stdioEntry() map[string]any {
	return map[string]any{"command": s.Exe, "args": s.stdioArgs()}
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
