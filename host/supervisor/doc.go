// Package supervisor keeps one MCP server connected: it launches the server's
// transport plugin process, runs the MCP session over it with mcp-go, watches
// it, and restarts plugin and server with capped exponential backoff when
// either dies. Every phase has a timeout, so one hung server never blocks
// anything else; each Server is independent of every other.
package supervisor
