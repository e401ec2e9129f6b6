package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/plughost/plughost/host"
)

// ReadRequest is the body of POST /api/servers/{name}/resources/read.
type ReadRequest struct {
	// URI is the resource's URI, as the server lists it.
	URI string `json:"uri"`
}

// PromptRequest is the body of POST /api/servers/{name}/prompts/get.
type PromptRequest struct {
	// Name is the prompt's name at its server.
	Name string `json:"name"`
	// Arguments are the prompt's arguments, all strings.
	Arguments map[string]string `json:"arguments,omitempty"`
}

// methodNotFound is JSON-RPC's code for a method a server does not serve.
const methodNotFound = -32601

// ask sends one MCP request to server on a session scoped to it (the
// server's own names and URIs), closed after, and writes the server's
// result as it answered. A method the server does not serve is a 404
// not_offered; another error of the server a 502 request_failed with its
// message.
func (a *handler) ask(w http.ResponseWriter, r *http.Request, method string, params any) {
	name := r.PathValue("name")
	if _, ok := a.o.Host.ServerConfig(name); !ok {
		writeError(w, &host.NoServerError{Name: name, Configured: a.o.Host.ServerNames()})
		return
	}
	p, err := json.Marshal(params)
	if err != nil {
		writeError(w, err)
		return
	}
	s, err := a.o.Host.CreateSession(r.Context(), host.SessionRecord{Scope: name})
	if err != nil {
		writeError(w, &Error{Status: http.StatusConflict, Code: CodeNotRunning, Message: err.Error()})
		return
	}
	defer s.Close(context.WithoutCancel(r.Context()))
	res, err := s.Request(r.Context(), method, p, host.CallOptions{})
	var rpc *host.RPCError
	switch {
	case errors.As(err, &rpc) && rpc.Code == methodNotFound:
		writeError(w, &Error{Status: http.StatusNotFound, Code: CodeNotOffered,
			Message: fmt.Sprintf("server %q does not offer %s: %s", name, method, rpc.Message)})
	case errors.As(err, &rpc):
		writeError(w, &Error{Status: http.StatusBadGateway, Code: CodeRequestFailed,
			Message: fmt.Sprintf("server %q: %s: %s (JSON-RPC error %d)", name, method, rpc.Message, rpc.Code)})
	case err != nil:
		writeError(w, &Error{Status: http.StatusBadGateway, Code: CodeRequestFailed,
			Message: fmt.Sprintf("server %q: %v", name, err)})
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// page is the params of a list request: the query's cursor, if any.
func page(r *http.Request) map[string]string {
	if c := r.URL.Query().Get("cursor"); c != "" {
		return map[string]string{"cursor": c}
	}
	return map[string]string{}
}

func (a *handler) listResources(w http.ResponseWriter, r *http.Request) {
	a.ask(w, r, "resources/list", page(r))
}

func (a *handler) listTemplates(w http.ResponseWriter, r *http.Request) {
	a.ask(w, r, "resources/templates/list", page(r))
}

func (a *handler) listPrompts(w http.ResponseWriter, r *http.Request) {
	a.ask(w, r, "prompts/list", page(r))
}

func (a *handler) readResource(w http.ResponseWriter, r *http.Request) {
	var body ReadRequest
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.URI == "" {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: `the body must name the resource: {"uri": "<URI>"}`})
		return
	}
	a.ask(w, r, "resources/read", body)
}

func (a *handler) getPrompt(w http.ResponseWriter, r *http.Request) {
	var body PromptRequest
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.Name == "" {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: `the body must name the prompt: {"name": "<prompt>", "arguments": {...}}`})
		return
	}
	a.ask(w, r, "prompts/get", body)
}

// complete passes a completion/complete request's params on as is.
func (a *handler) complete(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if len(body) == 0 || body[0] != '{' {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: `the body must be completion/complete's params: {"ref": {...}, "argument": {"name", "value"}}`})
		return
	}
	a.ask(w, r, "completion/complete", body)
}
