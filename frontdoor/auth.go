package frontdoor

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// queryTokenKeys are query parameters that carry a token in some clients;
// a token in a URL ends up in logs and shell history, so it is refused.
var queryTokenKeys = []string{"token", "access_token"}

// tokenHelp says where a client finds the token, without naming a path:
// an unauthenticated caller learns nothing of the machine.
const tokenHelp = "the gateway token is in the file tools.mcp.gateway.token_file names (plughost serve prints where)"

// requireToken lets a request through only with "Authorization: Bearer
// <token>". The comparison is constant-time (over sha256 digests, so the
// length leaks nothing either). A refused request's connection is closed
// at once, its body unread.
func requireToken(tok secret.String, clients ClientTokens, next http.Handler) http.Handler {
	return requireTokenFor(tok, clients, func(client string) http.Handler {
		if client != "" {
			return clientRefused(client)
		}
		return next
	})
}

// ClientTokens recognizes the token of a configured client
// (host.Host.ClientOfToken), by the config in force at each request.
type ClientTokens interface {
	ClientOfToken(token string) (string, bool)
}

// requireTokenFor lets a request through with the administrator's token
// (to handlerFor("")) or a configured client's (to handlerFor(client)),
// else answers 401. Every comparison is constant-time.
func requireTokenFor(tok secret.String, clients ClientTokens, handlerFor func(client string) http.Handler) http.Handler {
	want := sha256.Sum256([]byte(tok.Reveal()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuseQueryToken(w, r) {
			return
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="plughost"`)
			refuse(w, http.StatusUnauthorized, "plughost: missing bearer token; send the header \"Authorization: Bearer <token>\"; "+tokenHelp)
			return
		}
		digest := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(digest[:], want[:]) == 1 {
			handlerFor("").ServeHTTP(w, r)
			return
		}
		if client, ok := clients.ClientOfToken(got); ok {
			handlerFor(client).ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="plughost", error="invalid_token"`)
		refuse(w, http.StatusUnauthorized, "plughost: wrong bearer token; "+tokenHelp)
	})
}

// clientRefused answers 403 to a client's token on a route only the
// administrator's token opens (/api, the dashboard, /metrics, …).
func clientRefused(client string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.StatusForbidden, fmt.Sprintf("plughost: the token of client %q opens only /mcp and /servers/<name>/mcp; "+
			"this route needs the gateway (administrator) token", client))
	})
}

// refuseQueryTokens lets a request through unless its URL carries a token.
func refuseQueryTokens(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !refuseQueryToken(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// refuseQueryToken answers 400 when the URL carries a token.
func refuseQueryToken(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	for _, k := range queryTokenKeys {
		if q.Has(k) {
			refuse(w, http.StatusBadRequest, fmt.Sprintf("plughost: a token in the URL (?%s=) is refused because URLs end up in logs and history; "+
				"send the header \"Authorization: Bearer <token>\" instead", k))
			return true
		}
	}
	return false
}

// bearer extracts the token of an "Authorization: Bearer <token>" value.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
