package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plughost/plughost/pluginapi"
)

// NeedsLoginError is returned for a call an OAuth server refused because it
// wants a new login: the user is not logged in (any more), or — a step-up —
// the server asks for more scope than the login got (HTTP 403
// insufficient_scope). The login it names asks for Scopes. Front ends
// decide by it what to offer: `plughost call` on a terminal offers to log
// in again and call once more.
type NeedsLoginError struct {
	// Tool is the agent-facing tool name called.
	Tool string `json:"tool"`
	// Server is the tool's server, the one to log in to.
	Server string `json:"server"`
	// Reason says why a login is needed ("the server asks for more scope: …").
	Reason string `json:"reason"`
	// Scopes are the scopes the next login asks for: for a step-up, those
	// granted plus those the server named.
	Scopes []string `json:"scopes,omitempty"`
	// Futile says the server asks for scopes the login already got, so a
	// new login may not help (offering one would loop).
	Futile bool `json:"futile,omitempty"`
	// Err is the refusal as the transport reported it.
	Err error `json:"-"`
}

// Error implements error.
func (e *NeedsLoginError) Error() string {
	msg := fmt.Sprintf("tool %q: server %q needs login: %s; run `plughost mcp login %s`", e.Tool, e.Server, e.Reason, e.Server)
	if len(e.Scopes) > 0 {
		msg += fmt.Sprintf(" (it will ask for scope %s)", strings.Join(e.Scopes, " "))
	}
	return msg
}

// Unwrap returns the refusal as the transport reported it.
func (e *NeedsLoginError) Unwrap() error { return e.Err }

// loginNeeded returns a *NeedsLoginError for err when it is the transport's
// refusal for want of a login (pluginapi.KindUnauthorized, also as the
// kind of a JSON-RPC error's data) and the server's login says it needs
// one; else nil.
func (h *Host) loginNeeded(ctx context.Context, tool, server string, err error) *NeedsLoginError {
	if !unauthorized(err) {
		return nil
	}
	st, ok := h.AuthStatus(ctx, server)
	if !ok || !st.NeedsLogin {
		return nil
	}
	futile := len(st.WantScopes) > 0 && !slices.ContainsFunc(st.WantScopes, func(s string) bool { return !slices.Contains(st.Scopes, s) })
	return &NeedsLoginError{Tool: tool, Server: server, Reason: st.Reason, Scopes: st.WantScopes, Futile: futile, Err: err}
}

// unauthorized reports whether err is a refusal for want of credentials:
// a *pluginapi.Error of KindUnauthorized, or a transport plugin's JSON-RPC
// error answer whose data names that kind.
func unauthorized(err error) bool {
	if pluginapi.KindOf(err) == pluginapi.KindUnauthorized {
		return true
	}
	var re *RPCError
	if !errors.As(err, &re) || len(re.Data) == 0 {
		return false
	}
	var data struct {
		Kind pluginapi.Kind `json:"kind"`
	}
	return json.Unmarshal(re.Data, &data) == nil && data.Kind == pluginapi.KindUnauthorized
}
