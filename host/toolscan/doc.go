// Package toolscan checks MCP tool definitions for signs of tool poisoning:
// text a server put in a name, description, schema or annotation for the model
// to obey rather than for the user to read. The rules follow the published
// attacks — Invariant Labs' tool poisoning and shadowing, Trail of Bits' line
// jumping and terminal escapes, CyberArk's full-schema poisoning, OWASP MCP03
// — and each needs context before it fires, so that ordinary documentation
// (a docs link, a "pagination token", a path parameter) stays quiet.
//
// Scan checks one definition; ScanAll checks many and lists every tool;
// ReadDefinitions reads a tools/list result, a JSON-RPC response holding one,
// or a JSON array of tools. Everything here is pure and safe for concurrent
// use: the compiled rules are built once and never change.
package toolscan
