package api

import (
	"net/http"

	"github.com/plughost/plughost/gateway"
)

// TokenReveal is the body of POST /api/connect/token: the connection with
// the gateway token in every configuration, and the token alone.
type TokenReveal struct {
	gateway.Connection
	// Token is the gateway token, in clear.
	Token string `json:"token"`
}

// connectInfo answers GET /api/connect: what `plughost serve` prints so a
// client can connect, with <token> where the token goes.
func (a *handler) connectInfo(w http.ResponseWriter, _ *http.Request) {
	s, ok := a.snippet(w)
	if !ok {
		return
	}
	s.ShowToken = false
	writeJSON(w, http.StatusOK, gateway.Connect(s))
}

// connectToken answers POST /api/connect/token: the same with the token.
// A POST, so that only a deliberate request (the dashboard's "Show token")
// gets it, never a listing or a prefetch.
func (a *handler) connectToken(w http.ResponseWriter, _ *http.Request) {
	s, ok := a.snippet(w)
	if !ok {
		return
	}
	s.ShowToken = true
	writeJSON(w, http.StatusOK, TokenReveal{Connection: gateway.Connect(s), Token: s.Token.Reveal()})
}

// snippet returns the gateway's connection details, or answers 404 when
// the API runs without a gateway.
func (a *handler) snippet(w http.ResponseWriter) (gateway.Snippet, bool) {
	if a.o.Connect == nil {
		writeError(w, &Error{Status: http.StatusNotFound, Code: CodeNotFound,
			Message: "this API is not served with a gateway (plughost serve serves one)"})
		return gateway.Snippet{}, false
	}
	return *a.o.Connect, true
}
