package httppolicy

import (
	"net/http"
	"net/url"
	"strings"
)

// IsProtocolHeader reports whether name (compared case-insensitively) is a
// header the MCP protocol layer sets itself: Accept, Content-Type,
// Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID and Authorization (which
// mcp-go sets when OAuth is on). When a request already carries such a header,
// a configured header of the same name is not applied; when it does not, the
// configured value is (a static bearer token in "headers" is the common case).
func IsProtocolHeader(name string) bool {
	switch strings.ToLower(name) {
	case "accept", "content-type", "mcp-session-id", "mcp-protocol-version",
		"last-event-id", "authorization":
		return true
	}
	return false
}

// IsSessionHeader reports whether name (compared case-insensitively) carries
// protocol session state: Mcp-Session-Id, Mcp-Protocol-Version and
// Last-Event-ID. The protocol owns them even on requests where it leaves them
// out (an initialize has no session id yet), so a configured value of that
// name is never sent.
func IsSessionHeader(name string) bool {
	switch strings.ToLower(name) {
	case "mcp-session-id", "mcp-protocol-version", "last-event-id":
		return true
	}
	return false
}

// header is one validated configured header.
type header struct {
	name     string // canonical form
	value    string
	protocol bool
	session  bool
}

// headerTransport applies the configured headers, and the credentials' Authorization,
// to requests for the server's origins. It is safe for concurrent use if base is.
type headerTransport struct {
	base    http.RoundTripper
	origins []origin
	headers []header
	bearer  *bearer // nil without credentials
}

// RoundTrip sends req through the base transport, adding the configured
// headers when req goes to the server's origin. req itself is not modified.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.isServerOrigin(req.URL) || (len(t.headers) == 0 && t.bearer == nil) {
		return t.base.RoundTrip(req)
	}
	if t.bearer != nil {
		return t.bearer.roundTrip(req, t.send)
	}
	return t.send(req, "")
}

// send sends a copy of req with authorization (the credentials' value; ""
// for none) and the configured headers. The credentials' value is a
// protocol header, so a configured Authorization never replaces it.
func (t *headerTransport) send(req *http.Request, authorization string) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	if authorization != "" {
		delHeader(r.Header, "Authorization")
		r.Header.Set("Authorization", authorization)
	}
	for _, h := range t.headers {
		if h.session || (h.protocol && hasHeader(r.Header, h.name)) {
			continue
		}
		delHeader(r.Header, h.name)
		r.Header[h.name] = []string{h.value}
	}
	return t.base.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the base.
func (t *headerTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *headerTransport) isServerOrigin(u *url.URL) bool {
	if u == nil {
		return false
	}
	o := originOf(u)
	for _, allowed := range t.origins {
		if o == allowed {
			return true
		}
	}
	return false
}

// hasHeader and delHeader compare names case-insensitively because callers
// may write non-canonical keys straight into the map.
func hasHeader(h http.Header, name string) bool {
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func delHeader(h http.Header, name string) {
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
}
