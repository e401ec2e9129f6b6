// Package gateway is plughost's own MCP server engine: it serves a
// host.Host as one MCP server over stdio (`plughost stdio`) or streamable
// HTTP (`plughost serve`, mounted by the front door), so any MCP client uses
// every configured server through one entry.
//
// The engine is a JSON-RPC method table (initialize, ping, tools/list,
// tools/call; notifications/initialized and notifications/cancelled) over
// raw messages: params and results travel as the bytes they came in, tool
// definitions as the servers listed them. Each method answers from the
// session's state in the host's SessionStore — tools/list is what the
// session sees (Session.Visible), tools/call is Session.Call, and every
// call that is not a search ends a turn — so a session can be served by any
// process sharing the store. A client is sent
// notifications/tools/list_changed exactly when its session's visible list
// changed (Session.TakeListChange compares fingerprints, not lists): ahead of
// a response when the change came with a request, else on its stream.
//
// Transports: stdio.go (newline-delimited) and http.go (streamable HTTP,
// MCP 2025-11-25: POST one message, answered as JSON or an event stream;
// GET for the session's stream; DELETE ends it). New protocol features are
// one more entry in the method table (gateway.go). The host core never
// imports this package.
package gateway
