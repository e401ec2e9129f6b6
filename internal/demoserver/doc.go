// Package demoserver is a small, genuinely useful MCP server ("plughost-demo")
// that ships inside plughost: it lets users try the host without installing
// anything, and gives tests a well-behaved server with deterministic tools
// (echo, calculate, current_time, text_stats, generate_text, sleep, hash).
//
// Tool failures (bad expression, unknown time zone, cancelled sleep, …) are
// results with isError set, never JSON-RPC errors, so a model sees them and can
// correct itself.
package demoserver
