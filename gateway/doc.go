// Package gateway serves a host.Host as one MCP server, over stdio
// (`plughost stdio`) or streamable HTTP (`plughost serve`), so any MCP client
// uses every configured server through one entry.
//
// Each MCP session gets its own host.Session: tools/list is Session.Tools()
// (visible tools plus the search tools with discovery on), tools/call is
// Session.Call, and every call that is not a search ends a turn
// (Session.EndTurn). When a session's visible set changes — a search
// unlocked tools, a turn expired them, an upstream server's tools changed or
// it went down or came back — the session is sent
// notifications/tools/list_changed.
//
// The MCP protocol itself (initialize, sessions, the streamable-HTTP
// transport) is mcp-go's server; this package feeds it a per-session tool
// list. Over HTTP it adds bearer-token auth (token.go, auth.go), /healthz,
// /readyz and Prometheus /metrics. The host core never imports this package.
package gateway
