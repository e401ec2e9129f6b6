// Package discovery holds the rules of which MCP tools a session's model
// sees when tools.mcp.discovery is on: the tools of deferred servers stay
// hidden until the model finds them with a search tool
// (tool_search_tool_bm25, tool_search_tool_regex) or calls one by its exact
// name; a found tool stays unlocked for a number of turns, in that session
// only. With discovery off every tool is visible and no search tool exists.
//
// Three pieces: Rules (the settings, shared by every session), View (the
// rules applied to one registry snapshot, computed once and shared: which
// tools everyone sees, fingerprints, search), and State (one session's
// unlocks, a plain JSON-encodable value whose transitions are pure
// functions, so a session store can keep it in any process). A session
// costs what it unlocked, never a copy of the catalog.
//
// The ranking itself comes from a Searcher the host provides (the search
// package, adapted), so discovery knows nothing of the index.
package discovery
