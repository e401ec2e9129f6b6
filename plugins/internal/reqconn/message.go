package reqconn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// msgKind says which of the three JSON-RPC message shapes a message has.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// message is a JSON-RPC message from the host, decoded just enough to route it.
type message struct {
	kind   msgKind
	raw    json.RawMessage
	id     json.RawMessage // exactly as the host wrote it; nil for notifications
	reqID  mcp.RequestId   // id decoded, for mcp-go and for keys
	method string
	params json.RawMessage // nil when absent or null
}

// parseMessage decodes the routing fields of one JSON-RPC message.
func parseMessage(raw json.RawMessage) (message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return message{}, errors.New("empty message")
	}
	if raw[0] == '[' {
		return message{}, errors.New("JSON-RPC batches are not supported")
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return message{}, fmt.Errorf("message is not a JSON-RPC object: %w", err)
	}
	m := message{raw: raw, method: env.Method, params: nonNull(env.Params)}
	if id := nonNull(env.ID); id != nil {
		if err := json.Unmarshal(id, &m.reqID); err != nil {
			return message{}, fmt.Errorf("message id %s is neither a string nor a number", id)
		}
		m.id = id
	}
	switch {
	case m.method != "" && m.id != nil:
		m.kind = kindRequest
	case m.method != "":
		m.kind = kindNotification
	case m.id != nil:
		m.kind = kindResponse
	default:
		return message{}, errors.New("message has neither a method nor an id")
	}
	return m, nil
}

// nonNull returns raw, or nil when it is absent or JSON null.
func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// idKey is the map key of a request id: 7 and 7.0 are the same request, 7
// and "7" are not.
func idKey(id mcp.RequestId) string { return id.String() }

// request turns a host request into what mcp-go sends. Params stay raw so
// the server gets exactly what the host wrote.
func (m message) request() transport.JSONRPCRequest {
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: m.reqID, Method: m.method}
	if m.params != nil {
		req.Params = m.params
	}
	return req
}

// notification turns a host notification into mcp-go's type. Numbers keep
// their literal form (json.Number) rather than going through float64.
func (m message) notification() (mcp.JSONRPCNotification, error) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: m.method}}
	if m.params == nil {
		return n, nil
	}
	dec := json.NewDecoder(bytes.NewReader(m.params))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil {
		return n, fmt.Errorf("params of %s are not a JSON object: %w", m.method, err)
	}
	if meta, ok := fields["_meta"].(map[string]any); ok {
		n.Params.Meta = meta
		delete(fields, "_meta")
	}
	if len(fields) > 0 {
		n.Params.AdditionalFields = fields
	}
	return n, nil
}

// wireResponse is a JSON-RPC response with the id kept as raw bytes.
type wireResponse struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      json.RawMessage          `json:"id"`
	Result  json.RawMessage          `json:"result,omitempty"`
	Error   *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
}

// responseMessage is the server's response re-addressed to the host's raw id.
func responseMessage(id json.RawMessage, resp *transport.JSONRPCResponse) json.RawMessage {
	w := wireResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: resp.Result, Error: resp.Error}
	if w.Error == nil && len(w.Result) == 0 {
		w.Result = json.RawMessage("{}") // JSON-RPC requires a result member
	}
	b, err := json.Marshal(w)
	if err != nil {
		return errorMessage(id, mcp.INTERNAL_ERROR, pluginapi.KindInternal,
			fmt.Sprintf("the server's response is not valid JSON: %v", err))
	}
	return b
}

// errorData is the data member of the error responses the adapter makes up.
type errorData struct {
	Kind pluginapi.Kind `json:"kind"`
}

// errorMessage is a JSON-RPC error response for the host's raw id.
func errorMessage(id json.RawMessage, code int, kind pluginapi.Kind, text string) json.RawMessage {
	w := wireResponse{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      id,
		Error:   &mcp.JSONRPCErrorDetails{Code: code, Message: text, Data: errorData{Kind: kind}},
	}
	b, err := json.Marshal(w)
	if err != nil { // only an invalid id gets here, and parseMessage rejects those
		w.ID = nil
		b, _ = json.Marshal(w)
	}
	return b
}

// serverNotificationMessage encodes a server notification for the host.
func serverNotificationMessage(n mcp.JSONRPCNotification) (json.RawMessage, error) {
	n.JSONRPC = mcp.JSONRPC_VERSION
	if len(n.Params.Meta) == 0 {
		n.Params.Meta = nil // mcp-go's decoder turns an absent _meta into an empty map
	}
	return json.Marshal(n)
}

// hostResponse decodes the host's answer to a server request, keeping the
// server's id exactly as the server sent it.
func hostResponse(id mcp.RequestId, raw json.RawMessage) (*transport.JSONRPCResponse, error) {
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("host response is not a JSON-RPC response: %w", err)
	}
	resp.JSONRPC = mcp.JSONRPC_VERSION
	resp.ID = id
	if resp.Error == nil && len(resp.Result) == 0 {
		resp.Result = json.RawMessage("{}")
	}
	return &resp, nil
}

// protocolVersion returns the protocolVersion of an initialize result, or "".
func protocolVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	return r.ProtocolVersion
}
