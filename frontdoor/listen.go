package frontdoor

import (
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/plughost/plughost/host/config"
)

// Listen opens the front door's TCP listener on addr. Without auth it
// refuses any address that is not loopback.
func Listen(addr string, auth bool) (net.Listener, error) {
	if err := config.CheckListen(addr, auth); err != nil {
		return nil, fmt.Errorf("listen address %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (choose another with --listen or tools.mcp.gateway.listen)", addr, err)
	}
	return ln, nil
}

func isLoopbackAddr(a net.Addr) bool {
	h, _, err := net.SplitHostPort(a.String())
	return err == nil && config.IsLoopback(h)
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

// rejectRebinding protects a loopback listener from DNS rebinding (a web
// page whose domain resolves to 127.0.0.1 driving the victim's browser): a
// request that reached a loopback address must name a loopback Host, and a
// browser's Origin, when sent, must be loopback too or the server's own
// origin. Answers 403 otherwise.
func rejectRebinding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		loopback := local != nil && isLoopbackAddr(local)
		if loopback && !isLoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("plughost: forbidden: Host %q is not this machine (DNS rebinding protection)", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, r.Host, loopback) {
			http.Error(w, fmt.Sprintf("plughost: forbidden: requests from the web page at %q are not allowed", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin, host string, loopback bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return u.Host == host || (loopback && isLoopbackHost(u.Host))
}
