package pluginapi

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind classifies an Error so callers decide with errors.As, never by matching text.
type Kind string

// Error kinds. They cross the plugin boundary unchanged.
const (
	// KindInvalidConfig: the server configuration is wrong; retrying will not help.
	KindInvalidConfig Kind = "invalid_config"
	// KindConnect: the server could not be reached or started.
	KindConnect Kind = "connect"
	// KindServerExited: the server process or connection ended.
	KindServerExited Kind = "server_exited"
	// KindPluginExited: the plugin process itself ended or cannot be reached.
	KindPluginExited Kind = "plugin_exited"
	// KindTimeout: a deadline passed.
	KindTimeout Kind = "timeout"
	// KindCanceled: the caller cancelled.
	KindCanceled Kind = "canceled"
	// KindProtocolMismatch: the server answered, but speaks another transport
	// protocol (e.g. a streamable-HTTP server refusing the legacy SSE
	// handshake). The host may retry with another transport when the user
	// did not choose one.
	KindProtocolMismatch Kind = "protocol_mismatch"
	// KindMessageTooLarge: the server sent a message over the size limit
	// (OpenRequest.MaxMessageBytes); the connection is given up.
	KindMessageTooLarge Kind = "message_too_large"
	// KindBadOutput: the server wrote something that is not a JSON-RPC
	// message where only messages may appear (a stdio server's stdout); the
	// connection is given up, as the stream cannot be trusted past it.
	KindBadOutput Kind = "bad_output"
	// KindUnauthorized: the server refused the request's credentials and the
	// host has none better (the user must log in, or log in again with more
	// scopes); retrying will not help until that happens.
	KindUnauthorized Kind = "unauthorized"
	// KindUnsupported: the plugin does not implement the operation or feature.
	KindUnsupported Kind = "unsupported"
	// KindInternal: anything else.
	KindInternal Kind = "internal"
)

// Error is the typed error of the transport contract. It survives the gRPC hop:
// the plugin side encodes it in the status, the host side rebuilds it.
type Error struct {
	// Op is the operation that failed ("open", "send", "recv", "validate" …).
	Op string
	// Kind classifies the failure.
	Kind Kind
	// Err is the underlying error; after a gRPC hop it carries the message only.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.Op, e.Kind)
	}
	return fmt.Sprintf("%s: %v", e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted message (%w is honoured).
func Errorf(op string, kind Kind, format string, args ...any) *Error {
	return &Error{Op: op, Kind: kind, Err: fmt.Errorf(format, args...)}
}

// KindOf returns the Kind of the first *Error in err's chain, or "" if none.
func KindOf(err error) Kind {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

// badOutputQuote is how much of a bad line BadOutput quotes, in bytes.
const badOutputQuote = 200

// BadOutput is the error for a line of a stdio server's stdout that is not a
// JSON-RPC message (a log line, a banner, binary junk): KindBadOutput,
// quoting the start of the line (at most 200 bytes, as valid UTF-8) so the
// user sees what the server wrote. The host masks configured secrets in it
// like in any error text.
func BadOutput(line []byte) *Error {
	quote := line
	cut := ""
	if len(quote) > badOutputQuote {
		quote, cut = quote[:badOutputQuote], fmt.Sprintf(" (first %d of %d bytes)", badOutputQuote, len(line))
	}
	text := strings.ToValidUTF8(string(quote), string(utf8.RuneError))
	return Errorf("recv", KindBadOutput,
		"the server wrote a line that is not a JSON-RPC message on its stdout, which is reserved for MCP messages (a server must log to stderr): %q%s", text, cut)
}
