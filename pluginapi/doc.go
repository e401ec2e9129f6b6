// Package pluginapi is the contract between the plughost core and its
// transport plugins, and the library a plugin is written with.
//
// A transport plugin moves JSON-RPC messages between plughost and one kind
// of MCP server connection (stdio, legacy SSE, streamable HTTP, or one of
// your own). It is its own executable, started by the host with
// hashicorp/go-plugin and spoken to over gRPC, so a crash or a hang in a
// plugin never takes the host down. A plugin is not an MCP client: the host
// runs the MCP session (initialize, pagination, notifications) over the
// messages the plugin carries.
//
// # Writing a transport
//
// A transport author implements [Transport] and [Conn], and calls [Serve]
// from main with nothing else touching stdin or stdout:
//
//   - [Transport.Describe] names the transport type ("type": "<name>" in a
//     server's config) and lists optional features ([FeatureDirectPipes],
//     [FeatureDiagnostics], [FeatureCredentials]).
//   - [Transport.Validate] strictly decodes a server's config without
//     connecting; an unknown field is an error of [KindInvalidConfig].
//   - [Transport.Open] connects and returns a [Conn]; its context bounds the
//     connection attempt only.
//   - [Conn.Send] may be called from several goroutines at once; [Conn.Recv]
//     from one reader goroutine. Recv blocks until a message arrives, the
//     connection ends, or its context ends.
//   - [Conn.Close] releases everything the connection holds (for stdio, the
//     server's whole process group), may be called more than once, and
//     unblocks a Recv in progress, which then returns an error. Send after
//     Close fails.
//
// A Conn may also implement [DiagnosticsProvider] (a server's stderr tail
// and exit status) and [PipeHandoff] (the direct-pipes fast path, where the
// host reads a local server's stdout itself). [LineReader], [ResultSpool]
// and [Chunks] bound what a transport that reads a server's stream itself
// holds in memory. The suite in package contracttest checks any
// implementation against every rule above; run it from your plugin's tests.
//
// # Errors
//
// Every error that matters to the host is an [*Error] with a [Kind]; callers
// decide with [KindOf] or errors.As, never by matching text, and the kind
// survives the gRPC hop. The kinds: [KindInvalidConfig] (retrying will not
// help), [KindConnect], [KindServerExited] (the server or its connection
// ended — the host restarts it), [KindPluginExited], [KindTimeout],
// [KindCanceled], [KindProtocolMismatch] (the host may try another transport),
// [KindMessageTooLarge], [KindBadOutput], [KindUnauthorized] (the user must
// log in), [KindUnsupported] and [KindInternal].
//
// # Security
//
// A plugin reads no host file, flag or setting: a server's config arrives as
// JSON in [OpenRequest], and its environment is exactly what the host passed
// ([ClientConfig.Env]; the host's own is never inherited). OAuth tokens stay
// in the host; a transport asks [Credentials] for each request's
// Authorization value and never logs it.
//
// The host side of the contract is [NewClient]. "The transport contract"
// in docs/architecture.md describes the wire protocol, and
// examples/logging-transport is a complete third-party plugin.
package pluginapi
