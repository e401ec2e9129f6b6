package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Client makes the HTTP requests of OAuth: discovery, registration and token
// requests. The zero value is ready to use. It is safe for concurrent use.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient. It must not
	// add the MCP server's configured headers: those are for the server.
	HTTP *http.Client
}

func (c *Client) http() *http.Client {
	if c != nil && c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// StepError is a failure of one step of a login or refresh: which step, at
// which URL (query and credentials masked), and why. Its message never
// carries a token or client secret.
type StepError struct {
	// Step says what was being done, e.g. "read the authorization server metadata".
	Step string
	// URL is where, masked; "" when no single URL applies.
	URL string
	// Err is why.
	Err error
}

// Error is "<step> (<url>): <why>".
func (e *StepError) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("%s: %v", e.Step, e.Err)
	}
	return fmt.Sprintf("%s (%s): %v", e.Step, e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

func stepError(step, rawURL string, err error) *StepError {
	return &StepError{Step: step, URL: maskURL(rawURL), Err: err}
}

// maskURL renders a URL for messages with user info and query values masked.
func maskURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid url>"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		u.RawQuery = "xxxxx"
	}
	u.Fragment = ""
	return u.String()
}

// DiscoverRequest says what to discover the authorization of.
type DiscoverRequest struct {
	// ServerURL is the MCP server's endpoint.
	ServerURL string
	// Challenge is the server's 401 challenge, if one was seen: its
	// resource_metadata URL is tried first.
	Challenge Challenge
	// Issuer, when set, is the authorization server to use whatever the
	// resource's metadata names (the config's oauth.issuer).
	Issuer string
}

// Discovery is what a client needs to know to log in to a server.
type Discovery struct {
	// Resource is the RFC 8707 resource indicator: the resource the server's
	// metadata declares, else its URL.
	Resource string
	// ResourceMetadataURL is where the protected resource metadata was
	// found ("" when the server publishes none).
	ResourceMetadataURL string
	// ScopesSupported are the scopes the resource metadata lists.
	ScopesSupported []string
	// Issuer identifies the authorization server.
	Issuer string
	// Metadata is the authorization server's metadata.
	Metadata ServerMetadata
	// Legacy is set when the server publishes no protected resource
	// metadata, so its origin is taken as the authorization server (the
	// 2025-03-26 revision of the MCP spec).
	Legacy bool
}

// Discover finds the server's authorization server and its metadata.
func (c *Client) Discover(ctx context.Context, req DiscoverRequest) (*Discovery, error) {
	target, err := url.Parse(req.ServerURL)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return nil, stepError("discover the authorization server", "", fmt.Errorf("the server URL is not an absolute http(s) URL"))
	}
	d := &Discovery{Resource: canonicalResource(target)}
	prm, prmURL, err := c.protectedResource(ctx, target, req.Challenge.ResourceMetadata)
	if err != nil {
		return nil, err
	}
	issuer := req.Issuer
	if prm != nil {
		d.ResourceMetadataURL, d.ScopesSupported = prmURL, prm.ScopesSupported
		if prm.Resource != "" {
			d.Resource = prm.Resource
		}
		if issuer == "" {
			issuer = prm.AuthorizationServers[0]
		}
	} else {
		d.Legacy = true
		if issuer == "" {
			issuer = target.Scheme + "://" + target.Host
		}
	}
	md, err := c.serverMetadata(ctx, issuer, d.Legacy)
	if err != nil {
		return nil, err
	}
	d.Issuer, d.Metadata = md.Issuer, md
	return d, nil
}

// canonicalResource is the server URL as a resource indicator: lower-case
// scheme and host, no fragment.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme, c.Host = strings.ToLower(c.Scheme), strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// protectedResource finds the resource's metadata (RFC 9728): the URL the
// challenge names, then the path-suffixed, then the root well-known URL. It
// returns nil, "", nil when none has a document.
func (c *Client) protectedResource(ctx context.Context, target *url.URL, fromChallenge string) (*ProtectedResource, string, error) {
	var candidates []string
	if fromChallenge != "" {
		if err := checkHTTPURL(fromChallenge); err == nil {
			candidates = append(candidates, fromChallenge)
		}
	}
	if hasPath(target) {
		candidates = append(candidates, wellKnown(target, "oauth-protected-resource", true))
	}
	candidates = append(candidates, wellKnown(target, "oauth-protected-resource", false))
	for _, u := range slices.Compact(candidates) {
		var prm ProtectedResource
		err := c.getJSON(ctx, u, &prm)
		if errors.Is(err, errNotFound) {
			continue
		}
		const step = "read the protected resource metadata"
		if err != nil {
			return nil, "", stepError(step, u, err)
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, "", stepError(step, u, errors.New("it lists no authorization_servers"))
		}
		if err := checkHTTPURL(prm.AuthorizationServers[0]); err != nil {
			return nil, "", stepError(step, u, fmt.Errorf("authorization_servers[0]: %w", err))
		}
		if prm.Resource != "" && !bindsTo(prm.Resource, target) {
			return nil, "", stepError(step, u, fmt.Errorf(
				"it declares resource %s, which is not this server (%s): refusing to get a token for another resource",
				maskURL(prm.Resource), maskURL(target.String())))
		}
		return &prm, u, nil
	}
	return nil, "", nil
}

// serverMetadata finds the authorization server's metadata. For an issuer
// with a path: RFC 8414 path-inserted, OpenID Connect path-inserted, OpenID
// Connect path-appended; without one: the two root documents. A legacy
// server (no resource metadata) without any document gets the default
// endpoints /authorize, /token and /register.
func (c *Client) serverMetadata(ctx context.Context, issuer string, legacy bool) (ServerMetadata, error) {
	const step = "read the authorization server metadata"
	iu, err := url.Parse(issuer)
	if err != nil || checkHTTPURL(issuer) != nil {
		return ServerMetadata{}, stepError(step, issuer, errors.New("the authorization server is not an absolute http(s) URL"))
	}
	candidates := []string{wellKnown(iu, "oauth-authorization-server", true), wellKnown(iu, "openid-configuration", true)}
	if hasPath(iu) {
		candidates = append(candidates, strings.TrimSuffix(iu.String(), "/")+"/.well-known/openid-configuration")
	}
	for _, u := range candidates {
		var md ServerMetadata
		err := c.getJSON(ctx, u, &md)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return md, stepError(step, u, err)
		}
		// A legacy server serves its own metadata, on its own origin: an
		// issuer with a path there (…/oauth) names no other server.
		if !sameIssuer(md.Issuer, issuer) && !(legacy && sameOrigin(md.Issuer, issuer)) {
			return md, stepError(step, u, fmt.Errorf(
				"the document names issuer %s, but it was fetched for %s: refusing an authorization server that claims another's name",
				maskURL(md.Issuer), maskURL(issuer)))
		}
		if err := md.validate(); err != nil {
			return md, stepError(step, u, err)
		}
		if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
			return md, stepError(step, u, fmt.Errorf(
				"the authorization server does not list PKCE method S256 in code_challenge_methods_supported (%s); the MCP spec forbids logging in without it",
				strings.Join(md.CodeChallengeMethodsSupported, ", ")))
		}
		return md, nil
	}
	if legacy {
		base := iu.Scheme + "://" + iu.Host
		return ServerMetadata{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
			RegistrationEndpoint: base + "/register", CodeChallengeMethodsSupported: []string{"S256"}}, nil
	}
	masked := make([]string, len(candidates))
	for i, u := range candidates {
		masked[i] = maskURL(u)
	}
	return ServerMetadata{}, stepError(step, "", fmt.Errorf("no metadata document at %s", strings.Join(masked, ", ")))
}

// sameOrigin reports whether two URLs share scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}
