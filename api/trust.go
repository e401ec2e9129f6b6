package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/plughost/plughost/host"
)

// ApproveRequest is the body of POST /api/servers/{name}/approve: the
// tools to approve by the server's own names, or All for every tool the
// server has waiting. One of the two is required, so an empty body never
// approves anything.
type ApproveRequest struct {
	// Tools are the server's own names of the tools to approve.
	Tools []string `json:"tools,omitempty"`
	// All approves every quarantined tool of the server.
	All bool `json:"all,omitempty"`
	// Via says which front end the person used: "cli", "dashboard" or ""
	// (the API itself); it is recorded as who approved.
	Via string `json:"via,omitempty"`
}

// ApproveResult answers an approval.
type ApproveResult struct {
	// Server is the server whose tools were approved.
	Server string `json:"server"`
	// Approved are the tools approved now, sorted.
	Approved []string `json:"approved"`
	// Quarantined are the server's tools still waiting.
	Quarantined []host.QuarantinedTool `json:"quarantined"`
}

// approvers are the values of ApproveRequest.Via, with what is recorded.
var approvers = map[string]string{"": "api", "api": "api", "cli": "cli", "dashboard": "dashboard"}

func (a *handler) approve(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body ApproveRequest
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	by, ok := approvers[body.Via]
	switch {
	case !ok:
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: fmt.Sprintf(`via: must be "cli", "dashboard" or left out, got %q`, body.Via)})
		return
	case body.All == (len(body.Tools) > 0):
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: `send {"tools": ["<tool>", …]} to approve those tools, or {"all": true} for every tool the server has waiting (not both)`})
		return
	}
	approved, err := a.o.Host.Approve(r.Context(), name, slices.Clone(body.Tools), by)
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("tools approved through the API", "server", name, "tools", len(approved), "by", by)
	writeJSON(w, http.StatusOK, ApproveResult{Server: name, Approved: approved, Quarantined: a.o.Host.Quarantined(name)})
}

// Approve approves quarantined tools of server (see ApproveRequest).
func (c *Client) Approve(ctx context.Context, server string, req ApproveRequest) (ApproveResult, error) {
	var out ApproveResult
	return out, c.Post(ctx, "/api/servers/"+url.PathEscape(server)+"/approve", req, &out)
}
