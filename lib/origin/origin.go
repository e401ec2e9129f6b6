// Package origin is the one rule for which web pages may use plughost's
// HTTP doors. A browser names the page behind a request in its Origin
// header; a request with no Origin header does not come from another page
// (command-line and desktop MCP clients send none). A page may use a door
// when it is plughost's own — its origin names the host and port the request
// was sent to — or when its origin is one the user listed
// (tools.mcp.gateway.allowed_origins). The front door, the JSON API and the
// dashboard all decide with this package, so no door has a rule of its own.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Example shows the form of a configured origin.
const Example = `scheme://host[:port], e.g. "http://localhost:6274"`

// Parse checks a configured origin — scheme://host[:port], with no path,
// query, fragment or user — and returns it in the form browsers send:
// scheme and host in lower case, the scheme's default port left out. The
// error says what is wrong and how to write it.
func Parse(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin; write %s", s, Example)
	}
	var problem string
	switch {
	case u.Host == "":
		problem = "has no host"
	case u.User != nil:
		problem = "carries a user name; an origin never does"
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		problem = "has a path, query or fragment; an origin is only scheme, host and port"
	case u.Hostname() == "":
		problem = "has no host"
	}
	if problem == "" {
		if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				problem = fmt.Sprintf("has port %q; a port is a number from 1 to 65535", p)
			}
		}
	}
	if problem != "" {
		return "", fmt.Errorf("%q %s; write %s", s, problem, Example)
	}
	return canonical(u.Scheme, u.Host), nil
}

// canonical writes scheme and host[:port] as a browser serialises an
// origin.
func canonical(scheme, hostport string) string {
	scheme = strings.ToLower(scheme)
	return scheme + "://" + canonicalHost(scheme, hostport)
}

// canonicalHost is hostport in lower case, without the scheme's default
// port.
func canonicalHost(scheme, hostport string) string {
	hostport = strings.ToLower(hostport)
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != defaultPort(scheme) {
		return hostport
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}

// Own reports whether origin (an Origin header) is the server's own: an
// http or https origin naming the host and port of the request (its Host
// header). The scheme is not compared with the listener's: behind a proxy
// that terminates TLS the page is https and the listener plain http.
func Own(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || host == "" {
		return false
	}
	return canonicalHost(u.Scheme, u.Host) == canonicalHost(u.Scheme, host)
}

// Rule decides which origins may use a door: the server's own and the
// listed ones. The zero Rule admits the server's own origin only. Safe for
// concurrent use (it is never changed after New).
type Rule struct {
	listed map[string]bool
}

// New returns the rule admitting the server's own origin and the listed
// ones (in any form Parse accepts).
func New(listed []string) (Rule, error) {
	r := Rule{listed: make(map[string]bool, len(listed))}
	var errs []error
	for _, s := range listed {
		o, err := Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.listed[o] = true
	}
	return r, errors.Join(errs...)
}

// Allows reports whether a request sent to host (its Host header) from a
// page of origin (its Origin header, which must not be empty) may go on.
func (r Rule) Allows(origin, host string) bool {
	return Own(origin, host) || r.Listed(origin)
}

// Listed reports whether origin is one of the listed origins.
func (r Rule) Listed(origin string) bool {
	if len(r.listed) == 0 {
		return false
	}
	o, err := Parse(origin)
	return err == nil && r.listed[o]
}
