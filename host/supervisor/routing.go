package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/msgtransport"
)

// Router receives what a server sends on its own, beyond answers to the
// host's requests: its notifications and its requests for the client
// (sampling, elicitation, roots). The host implements it and passes them on
// to the client session they belong to.
type Router interface {
	// Notification gets every notification of the server in the order
	// sent (tools/list_changed too, after the supervisor started its
	// re-list), a log message's params with the configured secrets masked
	// (Spec.Masker). It must not block: requests' answers wait for the
	// notifications sent before them.
	Notification(server, method string, params json.RawMessage)
	// Request answers a server→client request of server. ctx ends when the
	// server cancels the request or the connection ends. An *RPCError
	// picks the JSON-RPC error; any other error is answered as -32603.
	Request(ctx context.Context, server string, req ServerRequest) (json.RawMessage, error)
	// Connected is called after each successful connect (in a goroutine of
	// its own), so per-connection state (subscriptions, the log level) can
	// be restored on the new connection.
	Connected(server string)
}

// RPCError is a JSON-RPC error: a server's error answer to Request, or what
// a Router answers a server request with.
type RPCError = msgtransport.RPCError

// ServerRequest is a request a server sent to the client: its method,
// params, and the id of the host's request it was sent during (Related,
// when the transport knows it; see Request.OnID).
type ServerRequest = msgtransport.ServerRequest

// Request is a request for the server (see Server.Do): method, params, and
// OnID, called with its JSON-RPC id before it is sent so the caller can tie
// the server's requests to it (ServerRequest.Related).
type Request = msgtransport.Request

// ClientCapabilities is what plughost declares to every server at
// initialize: it routes sampling, elicitation (form and URL mode) and roots
// to the client session that caused the request, and answers -32601 itself
// when that client cannot (see host/routing).
var ClientCapabilities = json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`)

// Initialized is what a server said about itself at initialize, kept raw.
type Initialized struct {
	// ProtocolVersion is the negotiated version.
	ProtocolVersion string
	// Capabilities, ServerInfo and Instructions are the server's members as
	// it sent them (nil when absent).
	Capabilities json.RawMessage
	ServerInfo   json.RawMessage
	Instructions json.RawMessage
}

// Initialized returns what the server answered at its last successful
// initialize (kept while it is down), and whether it ever initialized.
func (s *Server) Initialized() (Initialized, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.init, s.init.ProtocolVersion != ""
}

// serveRaw installs the connection's handlers of what the server sends on its
// own: tools/list_changed triggers a re-list, everything goes to the Router,
// and ping is answered here.
func (s *Server) serveRaw(conn *connection) {
	conn.transport.SetRawHandlers(msgtransport.RawHandlers{
		Notification: func(method string, params json.RawMessage) {
			if method == string(mcp.MethodNotificationToolsListChanged) {
				select {
				case conn.relist <- struct{}{}:
				default: // a re-list is already pending; it will see this change too
				}
			}
			if s.spec.Router != nil {
				s.spec.Router.Notification(s.spec.Name, method, maskNotification(s.spec.Masker, method, params))
			}
		},
		Request: func(ctx context.Context, req ServerRequest) (json.RawMessage, error) {
			if req.Method == string(mcp.MethodPing) {
				return json.RawMessage("{}"), nil
			}
			if s.spec.Router == nil {
				return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf("plughost has no client to route %s to", req.Method)}
			}
			return s.spec.Router.Request(ctx, s.spec.Name, req)
		},
	})
}

// Request sends method with params (raw JSON, nil for none) to the server
// and returns its raw result: the path for every request a client makes
// beyond tools/call (resources, prompts, completion, logging, tasks). A
// JSON-RPC error answer of the server is an *RPCError, as sent but for the
// configured secrets, masked in its message and data (Spec.Masker); an error
// otherwise means the request could not be made: the server is down, it
// crashed, or no answer came within the call timeout (the server is then
// told to cancel). Cancelling ctx cancels the request at the server too.
func (s *Server) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return s.Do(ctx, Request{Method: method, Params: params})
}

// Do is Request with the whole request: its OnID lets the caller tie the
// server's requests during this one to it.
func (s *Server) Do(ctx context.Context, req Request) (json.RawMessage, error) {
	conn, limit, err := s.liveConnection()
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := conn.transport.Request(callCtx, req)
	if err != nil {
		return nil, s.requestError(ctx, callCtx, req.Method, limit, maskAnswerError(s.spec.Masker, err))
	}
	return res, nil
}

// liveConnection returns the live connection and the call timeout, or a
// *NotConnectedError with the server's state at that moment.
func (s *Server) liveConnection() (*connection, time.Duration, error) {
	s.mu.RLock()
	conn, st, ending, limit := s.live, s.status, s.ending, s.spec.Timeouts.Call
	s.mu.RUnlock()
	if conn != nil {
		return conn, limit, nil
	}
	e := &NotConnectedError{Server: s.spec.Name, Status: st}
	if st.State == StateConnected {
		e.Ending = ending
	}
	return nil, 0, e
}

// Notify sends a notification of the client's to the server (e.g.
// notifications/roots/list_changed); an error when it is not connected.
func (s *Server) Notify(ctx context.Context, method string, params json.RawMessage) error {
	conn, _, err := s.liveConnection()
	if err != nil {
		return err
	}
	var p map[string]any
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("notification %s: params: %w", method, err)
		}
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: p}}}
	return conn.transport.SendNotification(ctx, n)
}
