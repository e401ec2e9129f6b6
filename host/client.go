package host

import (
	"encoding/json"
	"fmt"

	"github.com/plughost/plughost/host/routing"
)

// ClientHandlers are what the MCP client behind a session does for the
// servers (see routing.ClientHandlers).
type ClientHandlers = routing.ClientHandlers

// RequestHandler answers one server→client request (see
// routing.RequestHandler).
type RequestHandler = routing.RequestHandler

// ServerRequest is a request a server sent to the client.
type ServerRequest = routing.ServerRequest

// Notification is a server notification routed to a session.
type Notification = routing.Notification

// RPCError is a JSON-RPC error: a server's error answer (passed on to the
// client as is), or one plughost answers with (an unknown prompt, a
// resource it cannot route, a client that cannot answer a server request).
type RPCError = routing.RPCError

// JSON-RPC and MCP error codes plughost answers with.
const (
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeResourceNotFound = -32002
)

// CallOptions are what a call carries besides its name and arguments.
type CallOptions struct {
	// Meta is the request's _meta as the client sent it. A progressToken in
	// it travels to the server (under a token of plughost's, so tokens of
	// different sessions never clash) and the server's progress comes back
	// to Handlers with the client's token.
	Meta json.RawMessage
	// Task is the request's "task" member (task augmentation, MCP
	// 2025-11-25): the server then answers with the task it created
	// instead of the result (see CallResult.Task).
	Task json.RawMessage
	// Handlers receive what the server sends because of this request; nil
	// means the session's (SetHandlers). A front end passes handlers bound
	// to the request's own channel (an HTTP response stream).
	Handlers *ClientHandlers
	// OwnTurns says the caller marks the ends of turns itself (EndTurn
	// once per model round, as chat does): the call does not end one.
	// Otherwise every call but a search ends a turn (see CallWith).
	OwnTurns bool
}

// SetHandlers sets what the session's client does for the servers (see
// ClientHandlers); a session without handlers answers every server request
// -32601. It replaces earlier handlers; ClearHandlers removes them. A
// session of a named client (known from CreateSession or OpenSession) is
// never notified by a server outside the client's scope (a list_changed
// broadcast, say), by the config in force at each notification.
func (s *Session) SetHandlers(c ClientHandlers) {
	if s.client != "" && c.Notify != nil {
		notify, h, client := c.Notify, s.h, s.client
		c.Notify = func(n Notification) {
			if rule, err := h.ClientRule(client); err == nil && (n.Server == "" || rule.AllowsServer(n.Server)) {
				notify(n)
			}
		}
	}
	s.h.router.SetHandlers(s.id, s.scope, c)
}

// ClearHandlers removes the session's handlers: notifications outside its
// calls are no longer routed to it, and server requests that cannot be
// tied to one of its calls are answered -32601.
func (s *Session) ClearHandlers() { s.h.router.ClearHandlers(s.id) }

// Release forgets everything the router keeps for an ended session: its
// handlers, log level, resource subscriptions (unsubscribed at the servers
// when no other session holds them) and task records; and it closes the
// session's own connections (isolation "session"). Close does it; a
// front end calls it for a session that expired.
func (s *Session) Release() {
	s.h.router.Release(s.id)
	s.h.closeSessionConns(s.id)
}

// FormDefaults returns the content a client pre-fills an elicitation form
// with (SEP-1034): for params of an elicitation/create request in form
// mode, an object holding the "default" of every property of its
// requestedSchema that has one. A client that accepts the form unchanged
// answers {"action": "accept", "content": <this>}.
func FormDefaults(params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("elicitation/create params: %w", err)
	}
	content := map[string]json.RawMessage{}
	for name, prop := range p.RequestedSchema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	return json.Marshal(content)
}
