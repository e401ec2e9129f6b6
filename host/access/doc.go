// Package access is the one visibility rule of plughost: what a client may
// see and call. A Rule says which servers a client may use and which tool
// names (globs on the agent-facing names, mcp_<server>_<tool>) it may see;
// a Filter says which of one server's tools (globs on the server's own
// names) nobody sees. The host asks them at every door — tools/list, the
// search tools, tools/call, resources, prompts, completions, the
// per-server endpoints and the Go API — so nothing is hidden in one place
// and shown in another.
package access
