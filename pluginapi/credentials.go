package pluginapi

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Credentials gives a transport the Authorization header value of its server.
// The host owns the server's OAuth tokens — it stores, refreshes and replaces
// them, and decides when the user must log in — so a transport only asks
// before sending a request, and reports the server's refusals.
// Implementations are safe for concurrent use.
type Credentials interface {
	// Authorization returns the value to send now. An empty Value means the
	// host has none yet: the request goes without, and the server's answer
	// says what it needs.
	Authorization(ctx context.Context) (Authorization, error)
	// Rejected reports that the server refused a request (HTTP 401, or 403
	// such as insufficient_scope). It returns the value to send the request
	// once more with (a refreshed token, or one another request already
	// got), or a *Error of KindUnauthorized that says what the user must do.
	Rejected(ctx context.Context, r Rejection) (Authorization, error)
}

// Authorization is an Authorization header value and how long to reuse it.
type Authorization struct {
	// Value is the whole header value, e.g. "Bearer eyJ…". It is a secret:
	// never log it or put it in an error.
	Value string
	// CacheFor is how long the transport may keep sending Value without
	// asking again; 0 means ask before each request.
	CacheFor time.Duration
}

// String describes a without its value, so it cannot leak into a log.
func (a Authorization) String() string {
	if a.Value == "" {
		return "Authorization(none)"
	}
	return fmt.Sprintf("Authorization(%s, cache %s)", maskedValue(a.Value), a.CacheFor)
}

// Rejection is a server's refusal of a request's credentials.
type Rejection struct {
	// Status is the HTTP status: 401 or 403.
	Status int
	// WWWAuthenticate are the response's WWW-Authenticate header values
	// (the challenge: error, scope, resource_metadata, …).
	WWWAuthenticate []string
	// Sent is the Authorization value the refused request carried ("" when
	// it had none). It is a secret.
	Sent string
}

// String describes r without the value that was sent.
func (r Rejection) String() string {
	return fmt.Sprintf("HTTP %d (%s) for %s", r.Status, strings.Join(r.WWWAuthenticate, "; "), maskedValue(r.Sent))
}

// maskedValue names the scheme of an Authorization value and hides the rest.
func maskedValue(v string) string {
	if v == "" {
		return "no credentials"
	}
	scheme, _, _ := strings.Cut(v, " ")
	return scheme + " xxxxx"
}
