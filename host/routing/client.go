package routing

import (
	"context"
	"encoding/json"

	"github.com/plughost/plughost/host/supervisor"
)

// ClientHandlers are what the MCP client behind a session does for the
// servers. plughost routes a server's requests (sampling, elicitation,
// roots) and notifications (progress, log messages, resource updates, list
// changes, task status) to the session that caused them — see
// docs/gateway.md, "Routing to the client" — and answers the server -32601
// when that session has no handler for the request, or when no session can
// be told apart as its cause.
type ClientHandlers struct {
	// Sampling answers sampling/createMessage; nil when the client cannot.
	Sampling RequestHandler
	// Elicitation answers elicitation/create; nil when the client cannot.
	Elicitation RequestHandler
	// Roots answers roots/list; nil when the client cannot.
	Roots RequestHandler
	// Notify receives the notifications routed to the session, with
	// progress tokens, task ids and URIs as the session's client knows
	// them. It must not block (queue what it cannot deliver at once): it
	// runs on the path of the server's messages, and a call's answer waits
	// until the notifications sent before it were handed over.
	Notify func(Notification)
}

// RequestHandler answers one server→client request with its raw result; an
// *RPCError picks the JSON-RPC error the server gets.
type RequestHandler func(ctx context.Context, r ServerRequest) (json.RawMessage, error)

// ServerRequest is a request a server sent to the client.
type ServerRequest struct {
	// Server is the configured server that sent it.
	Server string
	// Method is its method (sampling/createMessage, elicitation/create,
	// roots/list).
	Method string
	// Params are its params as the server sent them.
	Params json.RawMessage
}

// Notification is a server notification routed to a session.
type Notification struct {
	// Server is the configured server that sent it.
	Server string
	// Method is its method.
	Method string
	// Params are its params as the session's client must see them.
	Params json.RawMessage
}

// RPCError is a JSON-RPC error: a server's error answer (passed on to the
// client as is), or one plughost answers with (an unknown prompt, a
// resource it cannot route, a client that cannot answer a server request).
type RPCError = supervisor.RPCError

// codeMethodNotFound is the JSON-RPC error code for a method nobody
// answers.
const codeMethodNotFound = -32601
