package api

import (
	"encoding/json"
	"net/http"

	"github.com/plughost/plughost/host"
)

// TestResult is the answer of POST /api/servers/{name}/test.
type TestResult struct {
	// OK reports that the server started, initialized and listed its tools.
	OK bool `json:"ok"`
	// ReadyMs is how long that took, in milliseconds.
	ReadyMs int64 `json:"ready_ms"`
	// Tools is how many tools it listed.
	Tools int `json:"tools"`
	// DefinitionBytes is the size of their definitions (their cost in a
	// model's context).
	DefinitionBytes int `json:"definition_bytes"`
	// Error says why it failed (masked).
	Error string `json:"error,omitempty"`
	// Report is the whole report (as `plughost mcp test --json`).
	Report host.TestReport `json:"report"`
}

// ServerTool is one tool of GET /api/servers/{name}/tools.
type ServerTool struct {
	// Name is the agent-facing name.
	Name string `json:"name"`
	// ServerName is the server's own name of the tool.
	ServerName string `json:"server_name"`
	// Description is the server's description.
	Description string `json:"description,omitempty"`
	// InputSchema is the arguments' JSON schema.
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the result's JSON schema, if declared.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// ServerTools is the body of GET /api/servers/{name}/tools.
type ServerTools struct {
	// Tools are the server's tools, sorted by agent-facing name.
	Tools []ServerTool `json:"tools"`
}

// SearchRequest is the body of POST /api/search.
type SearchRequest struct {
	// Query is the search text (keywords for bm25, a pattern for regex).
	Query string `json:"query"`
	// Kind is "bm25" (the default) or "regex".
	Kind string `json:"kind"`
}

// test checks a server on a connection of its own (the running one is
// left alone).
func (a *handler) test(w http.ResponseWriter, r *http.Request) {
	rep, err := a.o.Host.Test(r.Context(), r.PathValue("name"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, TestResult{OK: rep.OK, ReadyMs: rep.Took.Milliseconds(), Tools: len(rep.Tools),
		DefinitionBytes: rep.DefinitionBytes, Error: rep.Error, Report: rep})
}

func (a *handler) serverTools(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, ok := a.o.Host.ServerConfig(name); !ok {
		writeError(w, &host.NoServerError{Name: name, Configured: a.o.Host.ServerNames()})
		return
	}
	out := ServerTools{Tools: []ServerTool{}}
	for _, t := range a.o.Host.ServerTools(name) {
		out.Tools = append(out.Tools, ServerTool{Name: t.Name, ServerName: t.ServerTool, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema})
	}
	writeJSON(w, http.StatusOK, out)
}

// search previews a search tool's answer without unlocking anything.
func (a *handler) search(w http.ResponseWriter, r *http.Request) {
	var body SearchRequest
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	p, err := a.o.Host.PreviewSearch(r.Context(), body.Query, body.Kind)
	if err != nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, p)
}
