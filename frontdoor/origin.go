package frontdoor

import (
	"fmt"
	"net"
	"net/http"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/origin"
)

// Request headers a page of a listed origin may send, and response headers
// it may read: what a streamable-HTTP MCP client uses.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
	corsAllowMethods  = "GET, POST, DELETE"
)

// guardOrigin decides, before any route runs, whether a browser may make
// the request. On a loopback listener the Host must be loopback too (DNS
// rebinding: a page whose domain resolves to 127.0.0.1). A request with an
// Origin header comes from a web page, which must be plughost's own or one
// of the listed origins (lib/origin's rule): with auth off this is all
// that keeps a page the user visits from calling the tools. A listed page
// gets the CORS headers a browser needs to call across origins, and its
// preflight — which carries no token — is answered here.
func guardOrigin(rule origin.Rule, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && isLoopbackAddr(local) && !isLoopbackHost(r.Host) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("plughost: forbidden: Host %q is not this machine (DNS rebinding protection)", r.Host))
			return
		}
		o := r.Header.Get("Origin")
		if o == "" || origin.Own(o, r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		if !rule.Listed(o) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("plughost: forbidden: requests from the web page at %q are refused: "+
				"only plughost's own pages and the origins listed in tools.mcp.gateway.allowed_origins may use it", o))
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Allow-Origin", o)
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackHost reports whether a Host header or URL host (with or without
// a port) names this machine.
func isLoopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return config.IsLoopback(h)
}
