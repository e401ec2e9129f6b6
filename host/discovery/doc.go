// Package discovery holds the rules of which MCP tools a session's model
// sees when tools.mcp.discovery is on: the tools of deferred servers stay
// hidden until the model finds them with a search tool
// (tool_search_tool_bm25, tool_search_tool_regex) or calls one by its exact
// name; a found tool stays unlocked for a number of turns, in that session
// only. With discovery off every tool is visible and no search tool exists.
//
// The package decides visibility and answers search calls; the ranking
// itself comes from a Searcher the host provides (the search package,
// adapted), so discovery knows nothing of the index.
package discovery
