package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// rpcError is a JSON-RPC error; a handler returns one to choose the code.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(format string, a ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// message is one JSON-RPC message, its parts kept raw: params and results
// travel as the bytes they came in, so nothing is lost in a second parse.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// kind is what a message is.
type kind int

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
)

// batchError answers a JSON-RPC batch (an array of messages) outside a
// session that may send one (batch.go): only MCP 2025-03-26 had batching.
var batchError = &rpcError{Code: codeInvalidRequest,
	Message: "batches are not supported: send one JSON-RPC message per request (only a session that initialized with MCP 2025-03-26 may send batches; 2025-06-18 and later have none)"}

// parseMessage reads one JSON-RPC message and says what it is. A batch, bad
// JSON, a key twice in one object (dupkeys.go) or a message that is not
// JSON-RPC 2.0 is an *rpcError to answer with id null (the id of a
// malformed message cannot be trusted).
func parseMessage(b []byte) (message, kind, *rpcError) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		return message{}, 0, batchError
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return m, 0, &rpcError{Code: codeParseError, Message: "parse error: the body is not one JSON-RPC message: " + err.Error()}
	}
	if p, found := scanKeys(b, envelopeNames); found {
		return message{}, 0, &rpcError{Code: codeInvalidRequest, Message: p.message()}
	}
	if m.JSONRPC != "2.0" {
		return m, 0, &rpcError{Code: codeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	hasID := len(m.ID) > 0
	if hasID && !validID(m.ID) {
		return m, 0, &rpcError{Code: codeInvalidRequest, Message: `invalid request: "id" must be a string or a number`}
	}
	switch {
	case m.Method != "" && hasID:
		return m, kindRequest, nil
	case m.Method != "":
		return m, kindNotification, nil
	case hasID && (len(m.Result) > 0 || len(m.Error) > 0):
		return m, kindResponse, nil
	}
	return m, 0, &rpcError{Code: codeInvalidRequest, Message: `invalid request: a message needs a "method", or an "id" with a "result" or an "error"`}
}

// validID reports whether id, a JSON value parseMessage's decode has
// already checked, is a string or a number (JSON-RPC allows null, MCP does
// not): its first byte says which.
func validID(id json.RawMessage) bool {
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

var nullID = json.RawMessage("null")

// encodeResult is a response carrying result.
func encodeResult(id, result json.RawMessage) []byte {
	out := make([]byte, 0, len(id)+len(result)+36)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}')
}

// encodeError is a response carrying e; id null when the request's id is
// unknown.
func encodeError(id json.RawMessage, e *rpcError) []byte {
	if len(id) == 0 {
		id = nullID
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcError       `json:"error"`
	}{"2.0", id, e})
	if err != nil { // only Data could fail, and handlers set none that can
		return encodeError(id, &rpcError{Code: e.Code, Message: e.Message})
	}
	return b
}

// encodeRequest is a request with params (nil: none), written as they are.
func encodeRequest(id json.RawMessage, method string, params json.RawMessage) []byte {
	m, _ := json.Marshal(method) // a string always encodes
	out := make([]byte, 0, len(id)+len(m)+len(params)+48)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"method":`...)
	out = append(out, m...)
	if len(params) > 0 {
		out = append(out, `,"params":`...)
		out = append(out, params...)
	}
	return append(out, '}')
}

// encodeNotification is a notification with params (nil: none).
func encodeNotification(method string, params json.RawMessage) []byte {
	b, _ := json.Marshal(struct { // a string and raw JSON always encode
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", method, params})
	return b
}

// listChanged is notifications/tools/list_changed.
var listChanged = encodeNotification("notifications/tools/list_changed", nil)
