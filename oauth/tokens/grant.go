package tokens

import (
	"slices"
	"time"

	"github.com/plughost/plughost/lib/secret"
)

// Grant is what plughost keeps for one server after a login: the tokens,
// where to refresh them, the client they were granted to, and — after the
// server refused them — why a new login is needed.
type Grant struct {
	// ServerURL is the server the grant is for; a server whose URL changed
	// needs a new login.
	ServerURL string
	// Issuer is the authorization server.
	Issuer string
	// TokenEndpoint is where tokens are refreshed.
	TokenEndpoint string
	// Resource is the RFC 8707 resource indicator used.
	Resource string
	// Client is who the tokens were granted to.
	Client Client
	// AccessToken is sent as "Bearer <AccessToken>" ("" after it was refused).
	AccessToken secret.String
	// RefreshToken gets a new access token ("" when none was granted).
	RefreshToken secret.String
	// TokenType is the type the server named.
	TokenType string
	// Expiry is when AccessToken expires (zero: not said).
	Expiry time.Time
	// ObtainedAt is when AccessToken was granted.
	ObtainedAt time.Time
	// Scopes are the scopes granted.
	Scopes []string
	// NeedsLogin, when set, says the server wants a new login.
	NeedsLogin *Need
}

// Client is an OAuth client of the authorization server.
type Client struct {
	// ID is the client_id.
	ID string
	// Secret is the client secret ("" for a public client).
	Secret secret.String
	// AuthMethod is how it authenticates at the token endpoint.
	AuthMethod string
	// RedirectURI is the redirect URI it was registered with.
	RedirectURI string
	// Registered says plughost registered it (dynamic registration), so it
	// may be reused for the same issuer and redirect URI.
	Registered bool
}

// Need is why a server wants a new login.
type Need struct {
	// Reason is for people: "not logged in", "the refresh token was refused", …
	Reason string
	// Scopes are the scopes the next login asks for (a step-up's, or the
	// challenge's); empty means the usual choice.
	Scopes []string
	// ResourceMetadata is the resource metadata URL the server's challenge named.
	ResourceMetadata string
	// At is when the need was recorded.
	At time.Time
}

// usable reports whether g has an access token the server has not refused.
func (g *Grant) usable() bool {
	return g != nil && g.AccessToken != "" && g.NeedsLogin == nil
}

// hasToken reports whether g has an access token to send.
func (g *Grant) hasToken() bool { return g != nil && g.AccessToken != "" }

// bearer is the Authorization header value of g's access token.
func (g *Grant) bearer() string {
	if !g.hasToken() {
		return ""
	}
	return "Bearer " + g.AccessToken.Reveal()
}

// refreshMargin is how long before its expiry a token is refreshed: a tenth
// of its lifetime, at most a minute.
func (g *Grant) refreshMargin() time.Duration {
	life := g.Expiry.Sub(g.ObtainedAt)
	if life <= 0 {
		return 0
	}
	return min(time.Minute, life/10)
}

// fresh reports whether the access token may still be used at now without
// refreshing it first.
func (g *Grant) fresh(now time.Time) bool {
	return g.Expiry.IsZero() || now.Before(g.Expiry.Add(-g.refreshMargin()))
}

// expired reports whether the access token is past its expiry at now.
func (g *Grant) expired(now time.Time) bool {
	return !g.Expiry.IsZero() && !now.Before(g.Expiry)
}

func (g *Grant) clone() *Grant {
	if g == nil {
		return nil
	}
	c := *g
	c.Scopes = slices.Clone(g.Scopes)
	if g.NeedsLogin != nil {
		n := *g.NeedsLogin
		n.Scopes = slices.Clone(n.Scopes)
		c.NeedsLogin = &n
	}
	return &c
}

// Status is a server's login state, safe to show: no token appears in it.
type Status struct {
	// LoggedIn says plughost holds an access token for the server.
	LoggedIn bool `json:"logged_in"`
	// ExpiresAt is when the access token expires (zero: unknown).
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Refreshable says a refresh token is held, so expiry is handled.
	Refreshable bool `json:"refreshable,omitempty"`
	// Scopes are the scopes granted.
	Scopes []string `json:"scopes,omitempty"`
	// Issuer is the authorization server.
	Issuer string `json:"issuer,omitempty"`
	// NeedsLogin says the server wants a (new) login: `plughost mcp login`.
	NeedsLogin bool `json:"needs_login"`
	// Reason says why.
	Reason string `json:"reason,omitempty"`
	// WantScopes are the scopes the next login asks for.
	WantScopes []string `json:"want_scopes,omitempty"`
	// Error is a problem reading the stored login.
	Error string `json:"error,omitempty"`
}

func statusOf(g *Grant) Status {
	if g == nil {
		return Status{NeedsLogin: true, Reason: "not logged in"}
	}
	st := Status{LoggedIn: g.hasToken(), Issuer: g.Issuer}
	if st.LoggedIn {
		st.ExpiresAt, st.Refreshable, st.Scopes = g.Expiry, g.RefreshToken != "", slices.Clone(g.Scopes)
	}
	if n := g.NeedsLogin; n != nil {
		st.NeedsLogin, st.Reason, st.WantScopes = true, n.Reason, slices.Clone(n.Scopes)
	} else if !st.LoggedIn {
		st.NeedsLogin, st.Reason = true, "not logged in"
	}
	return st
}
