// Package interop converts server lists between plughost's config and the
// JSON files of other MCP clients, so users can move in and out freely:
// Claude Desktop and Cursor ({"mcpServers": {...}}) and VS Code
// ({"servers": {...}} in mcp.json, or {"mcp": {"servers": {...}}} in
// settings.json). Fields with no equivalent are left out and named in a note;
// nothing is dropped silently.
package interop
