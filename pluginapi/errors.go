package pluginapi

import (
	"errors"
	"fmt"
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
