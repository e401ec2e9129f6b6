package api

import (
	"net/http"

	"github.com/plughost/plughost/host"
)

// OAuthCallbackPath is where serve receives the browser's redirect of a
// login started through the API (no token: the browser arrives by
// redirect; the state parameter is checked).
const OAuthCallbackPath = "/oauth/callback"

// LoginStarted is the answer of POST /api/servers/{name}/login.
type LoginStarted struct {
	// AuthorizationURL is the page to open in the browser; the login
	// completes when the browser is sent back to serve's /oauth/callback.
	AuthorizationURL string `json:"authorization_url"`
}

// login starts an OAuth login whose redirect lands on serve's
// /oauth/callback (Options.OAuthInbox).
func (a *handler) login(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	srv, ok := a.o.Host.ServerConfig(name)
	switch {
	case !ok:
		writeError(w, &host.NoServerError{Name: name, Configured: a.o.Host.ServerNames()})
		return
	case srv.OAuth == nil:
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeNoOAuth,
			Message: "server \"" + name + "\" has no \"oauth\" in its config: add \"oauth\": {} to log in with OAuth"})
		return
	case a.o.OAuthInbox == nil:
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: "this API has no OAuth callback route; log in with `plughost mcp login " + name + "`"})
		return
	}
	u, err := a.o.Host.StartLogin(r.Context(), name, a.o.OAuthInbox.Receiver())
	if err != nil {
		writeError(w, &Error{Status: http.StatusBadGateway, Code: CodeLoginFailed, Message: a.o.Host.Masker().Mask(err.Error())})
		return
	}
	a.o.Logger.Info("OAuth login started through the API", "server", name)
	writeJSON(w, http.StatusOK, LoginStarted{AuthorizationURL: u})
}
