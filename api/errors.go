package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/manage"
)

// Error codes of API error responses.
const (
	CodeNotFound       = "not_found"       // no such server, tool or route
	CodeBadRequest     = "bad_request"     // malformed request (arguments not an object, …)
	CodeInvalidConfig  = "invalid_config"  // the config has problems (see problems)
	CodeConflict       = "conflict"        // the config file changed since it was read
	CodeExists         = "exists"          // a server of that name exists already
	CodeInvalidCatalog = "invalid_catalog" // the catalog file has a bad preset
	CodeLoginFailed    = "login_failed"    // the OAuth login could not start
	CodeNoOAuth        = "no_oauth"        // the server has no oauth to log in with
	CodeCallFailed     = "call_failed"     // the tool call could not be made or completed
	CodeNeedsLogin     = "needs_login"     // the tool's OAuth server wants a new login (see needs_login)
	CodeForbidden      = "forbidden"       // wrong origin or content type
	CodeQuarantined    = "quarantined"     // the tool waits for approval of its definition
	CodeNotWaiting     = "not_waiting"     // an approval of a tool that waits for none
	CodeNotRunning     = "not_running"     // the server is not running (disabled, starting failed, …)
	CodeNotOffered     = "not_offered"     // the server does not offer resources, prompts or completions
	CodeRequestFailed  = "request_failed"  // the server's resources, prompts or completions request failed
	CodeInternal       = "internal"        // anything else
)

// Error is an API error, as sent and as the client returns it.
type Error struct {
	// Status is the HTTP status code.
	Status int `json:"-"`
	// Code classifies the error (the Code constants).
	Code string `json:"code"`
	// Message says what went wrong and how to fix it.
	Message string `json:"message"`
	// Problems are config problems with their JSON paths (invalid_config).
	Problems []*config.ValidationError `json:"problems,omitempty"`
	// NeedsLogin says which server wants a login and with which scopes
	// (needs_login).
	NeedsLogin *host.NeedsLoginError `json:"needs_login,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// errorBody is the JSON shape of an error response.
type errorBody struct {
	Error *Error `json:"error"`
}

// toError maps an error of the core to its API error.
func toError(err error) *Error {
	var (
		ae       *Error
		noServer *host.NoServerError
		unknown  *host.UnknownToolError
		held     *host.QuarantinedToolError
		waiting  *quarantine.NotWaitingError
		invalid  *host.InvalidConfigError
		invEdit  *manage.InvalidError
		conflict *manage.ConflictError
		exists   *manage.ExistsError
		notFound *manage.NotFoundError
		noClient *manage.ClientNotFoundError
		dupe     *manage.ClientExistsError
		unknownS *manage.UnknownServersError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &noServer), errors.As(err, &unknown), errors.As(err, &notFound), errors.As(err, &noClient):
		return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: err.Error()}
	case errors.As(err, &held):
		return &Error{Status: http.StatusConflict, Code: CodeQuarantined, Message: err.Error()}
	case errors.As(err, &waiting):
		return &Error{Status: http.StatusConflict, Code: CodeNotWaiting, Message: err.Error()}
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusUnprocessableEntity, Code: CodeInvalidConfig, Message: err.Error(), Problems: invalid.Problems}
	case errors.As(err, &invEdit):
		return &Error{Status: http.StatusUnprocessableEntity, Code: CodeInvalidConfig, Message: err.Error(), Problems: invEdit.Problems}
	case errors.As(err, &unknownS):
		return &Error{Status: http.StatusUnprocessableEntity, Code: CodeInvalidConfig, Message: err.Error(),
			Problems: []*config.ValidationError{{Path: "servers", Msg: err.Error()}}}
	case errors.As(err, &exists), errors.As(err, &dupe):
		return &Error{Status: http.StatusConflict, Code: CodeExists, Message: err.Error()}
	case errors.As(err, &conflict):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: err.Error()}
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
}

// writeError sends err as an error response.
func writeError(w http.ResponseWriter, err error) {
	e := toError(err)
	writeJSON(w, e.Status, errorBody{Error: e})
}

// writeJSON sends v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away: nothing to do
}
