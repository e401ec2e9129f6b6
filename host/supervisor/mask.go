package supervisor

import (
	"encoding/json"

	"github.com/plughost/plughost/lib/secret"
)

// What a server sends that plughost passes on to a client is masked where
// it enters plughost, so every door (the gateway's endpoints, stdio, the
// API, the CLI, the Go API) gets it masked: its JSON-RPC error answers —
// message and data — and its log messages (notifications/message). What
// it answers a request (a tool's result, a resource's contents) is its
// answer and is passed on unchanged. See docs/security.md.

// maskAnswerError returns err, an error of the transport's Request, with a
// JSON-RPC error answer of the server replaced by a masked copy. Any other
// error is text only (a crash quoting stderr, a timeout), which the host
// masks as a whole (secret.Masker.Error); the *RPCError in a chain is what
// a door takes out with errors.As and forwards field by field, so it must
// be masked itself.
func maskAnswerError(m *secret.Masker, err error) error {
	if re, ok := err.(*RPCError); ok { // Request returns the answer's error as is
		return maskRPCError(m, re)
	}
	return err
}

// maskRPCError returns a copy of e with the secrets m knows masked in its
// message and inside every string of its data.
func maskRPCError(m *secret.Masker, e *RPCError) *RPCError {
	out := &RPCError{Code: e.Code, Message: m.Mask(e.Message)}
	if len(e.Data) > 0 {
		out.Data = json.RawMessage(m.JSON(e.Data))
	}
	return out
}

// maskNotification returns the params of a server notification as a client
// may see them: a log message's masked, any other's as sent.
func maskNotification(m *secret.Masker, method string, params json.RawMessage) json.RawMessage {
	if method != "notifications/message" || len(params) == 0 {
		return params
	}
	return m.JSON(params)
}
