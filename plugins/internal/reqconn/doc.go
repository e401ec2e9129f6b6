// Package reqconn adapts request-level client transports in mcp-go's shape
// (transport.Interface: plughost's sseclient for legacy SSE, mcp-go's
// transport.NewStreamableHTTP) to the message-level pluginapi.Conn that
// transport plugins serve.
//
// The host runs the MCP session and sends whole JSON-RPC messages; the
// HTTP transports want one call per request. Open bridges the two:
//
//   - A request from the host runs tr.SendRequest in a goroutine of its own,
//     under a context that lives as long as the connection and carries the
//     deadline the message arrived with. Its response, or a JSON-RPC error
//     response describing a transport failure, is queued for Recv under the
//     host's id, byte for byte.
//   - notifications/cancelled cancels the named in-flight request (which
//     aborts its HTTP request: that is how cancellation reaches a streamable
//     HTTP server) and is also forwarded, for servers that expect it. Whatever
//     the cancelled request still yields is dropped: the host stopped waiting.
//   - Server notifications and server→client requests are queued for Recv;
//     the host's responses to the latter are handed back to the transport.
//   - When a streamable HTTP server forgets the session (HTTP 404), a new
//     session is started with a fresh transport, the host's initialize is
//     replayed, and only the requests the server answered 404 are re-sent.
//
// Failures. A request that fails in the transport is answered with a JSON-RPC
// error and never re-sent unless the server provably did not process it (HTTP
// 404 for the session). Error responses the adapter makes up carry "data":
// {"kind": K} where K is a pluginapi.Kind (timeout, connect, …), and a passed
// deadline has code -32800 (request interrupted), anything else -32603. An
// answer over a size limit (a result over max_result_mb) is no transport
// failure: the server processed the request, and the error says so, with
// the limit and the setting that raises it (kind message_too_large). After
// a failure that may mean the server is gone, a ping tells: if the server
// cannot be reached at all, the connection ends and Recv returns a
// *pluginapi.Error of KindServerExited, so the host's supervisor reconnects.
// The same happens when the SSE stream breaks, since the legacy SSE
// transport does not reconnect.
package reqconn
