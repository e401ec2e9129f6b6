// Package stdiotransport implements the stdio MCP transport: it starts a
// server process with the environment the user configured, moves
// newline-delimited JSON-RPC messages over the server's stdin and stdout,
// keeps the tail of its stderr, and, on Close or when the server exits, ends
// the server's whole process group (launchers such as npx leave grandchildren).
//
// The plugin binary (plugins/stdio) serves a Transport over go-plugin; the
// host's tests and benchmarks can use one in process.
package stdiotransport
