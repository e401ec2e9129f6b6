// Package testoauth runs an OAuth 2.1 authorization server and an MCP server
// it protects, in process, for plughost's OAuth tests. The authorization
// server consents at once (its /authorize redirects straight back with a
// code), checks PKCE S256, the redirect URI and client authentication, and
// issues "at-N" access and "rt-N" refresh tokens; the MCP server (mcp-go,
// streamable HTTP) accepts only valid access tokens and demands more scope
// for its "write" tool (HTTP 403 insufficient_scope: step-up). Every knob a
// test needs — where the metadata lives, dynamic registration on or off,
// client ID metadata documents, token lifetime, revocation, a hanging token endpoint, a broken metadata
// document — is an Options field or a method.
package testoauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Where the protected resource metadata is published.
const (
	PRMPathSuffixed = "path"  // /.well-known/oauth-protected-resource/mcp (default)
	PRMRoot         = "root"  // /.well-known/oauth-protected-resource
	PRMNone         = "none"  // nowhere
	PRMCustom       = "other" // /custom/prm.json, only via the challenge
)

// Options shape a Server. The zero value is a server with path-suffixed
// resource metadata named in the challenge, RFC 8414 metadata, dynamic
// registration, and one-hour tokens.
type Options struct {
	// PRM says where the resource metadata is (PRMPathSuffixed by default).
	PRM string
	// NoChallengeURL leaves resource_metadata out of the 401 challenge.
	NoChallengeURL bool
	// ChallengeScope is put in the 401 challenge's scope parameter.
	ChallengeScope string
	// ScopesSupported is the resource metadata's scopes_supported.
	ScopesSupported []string
	// IssuerPath gives the authorization server's issuer a path
	// ("/tenant1"); its metadata is then path-inserted.
	IssuerPath string
	// OIDC publishes OpenID Connect discovery instead of RFC 8414 metadata.
	OIDC bool
	// MetadataIssuer, when set, is the issuer the metadata document claims
	// (a mismatch test).
	MetadataIssuer string
	// MetadataBody, when set, replaces the metadata document (a not-JSON test).
	MetadataBody string
	// NoRegistration turns dynamic client registration off.
	NoRegistration bool
	// Clients are pre-registered clients: id → secret ("" for a public client).
	Clients map[string]string
	// AuthMethods is token_endpoint_auth_methods_supported (default ["none"]).
	AuthMethods []string
	// ExpiresIn is the access tokens' lifetime in seconds (default 3600).
	ExpiresIn int
	// AnonymousInitialize lets initialize through without a token (the
	// step-up pattern: listing needs a token, writing more scope).
	AnonymousInitialize bool
	// SSE serves the legacy HTTP+SSE transport at /sse (and /message)
	// instead of streamable HTTP at /mcp.
	SSE bool
	// ClientIDMetadataDocuments advertises client_id_metadata_document_supported
	// and accepts any https URL as the client_id of a public client (the
	// document is not fetched: the tests check which client id is used).
	ClientIDMetadataDocuments bool
}

// Server is a running authorization server and MCP server.
type Server struct {
	// AS is the authorization server's base URL (origin).
	AS string
	// MCP is the MCP endpoint, on another origin.
	MCP string

	opts Options
	as   *httptest.Server
	rs   *httptest.Server

	mu          sync.Mutex
	requests    []string            // "METHOD path" of every request, both servers
	authorizes  []url.Values        // authorization requests
	tokenForms  []url.Values        // token requests (secrets included: tests only)
	tokenAuth   []string            // their Authorization headers
	codes       map[string]grant    // code → grant
	access      map[string][]string // valid access token → scopes
	refresh     map[string]grant    // valid refresh token → grant
	clients     map[string]client   // registered clients
	issued      int                 // tokens issued
	hang        chan struct{}       // non-nil: the token endpoint hangs until closed
	mcpAuth     []string            // Authorization of each MCP request
	deletes     int                 // DELETE requests that ended a session
	stepUpScope []string            // scope the write tool demands
}

type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
}

type client struct {
	secret, method string
	redirects      []string
}

// Start runs a server until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.PRM == "" {
		opts.PRM = PRMPathSuffixed
	}
	if opts.ExpiresIn == 0 {
		opts.ExpiresIn = 3600
	}
	if len(opts.AuthMethods) == 0 {
		opts.AuthMethods = []string{"none"}
	}
	s := &Server{opts: opts, codes: map[string]grant{}, access: map[string][]string{},
		refresh: map[string]grant{}, clients: map[string]client{}, stepUpScope: []string{"read", "write"}}
	for id, secret := range opts.Clients {
		method := "none"
		if secret != "" {
			method = "client_secret_basic"
		}
		s.clients[id] = client{secret: secret, method: method}
	}
	// The URLs are known from the listeners before the servers serve, so
	// every handler sees them set (a client in another process gives the
	// race detector no other ordering).
	s.as = httptest.NewUnstartedServer(s.logged(s.asMux()))
	s.rs = httptest.NewUnstartedServer(s.logged(s.rsMux()))
	s.AS, s.MCP = "http://"+s.as.Listener.Addr().String(), "http://"+s.rs.Listener.Addr().String()+s.endpoint()
	s.as.Start()
	s.rs.Start()
	t.Cleanup(func() {
		s.ReleaseTokenEndpoint()
		s.rs.Close()
		s.as.Close()
	})
	return s
}

// Issuer is the authorization server's issuer identifier.
func (s *Server) Issuer() string { return s.AS + s.opts.IssuerPath }

// PRMURL is where the resource metadata is published ("" for PRMNone).
func (s *Server) PRMURL() string {
	if p := s.prmPath(); p != "" {
		return s.rs.URL + p
	}
	return ""
}

// endpoint is the MCP endpoint's path.
func (s *Server) endpoint() string {
	if s.opts.SSE {
		return "/sse"
	}
	return "/mcp"
}

func (s *Server) prmPath() string {
	switch s.opts.PRM {
	case PRMPathSuffixed:
		return "/.well-known/oauth-protected-resource" + s.endpoint()
	case PRMRoot:
		return "/.well-known/oauth-protected-resource"
	case PRMCustom:
		return "/custom/prm.json"
	}
	return ""
}

func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Requests returns "METHOD path" of every request so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Authorizations returns the query of every authorization request.
func (s *Server) Authorizations() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.authorizes...)
}

// TokenRequests returns the form and Authorization header of every token request.
func (s *Server) TokenRequests() ([]url.Values, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.tokenForms...), append([]string(nil), s.tokenAuth...)
}

// MCPAuthorizations returns the Authorization header of every MCP request.
func (s *Server) MCPAuthorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.mcpAuth...)
}

// Deletes counts the DELETE requests that ended an MCP session.
func (s *Server) Deletes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deletes
}

// ExpireAccessTokens makes every access token issued so far invalid (as if
// it expired): the MCP server answers 401 to it.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string][]string{}
}

// RevokeRefreshTokens revokes every refresh token: refreshing answers
// invalid_grant.
func (s *Server) RevokeRefreshTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh = map[string]grant{}
}

// HangTokenEndpoint makes the token endpoint wait (until the request is
// cancelled or ReleaseTokenEndpoint).
func (s *Server) HangTokenEndpoint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hang == nil {
		s.hang = make(chan struct{})
	}
}

// ReleaseTokenEndpoint undoes HangTokenEndpoint.
func (s *Server) ReleaseTokenEndpoint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hang != nil {
		close(s.hang)
		s.hang = nil
	}
}

// --- authorization server ---

func (s *Server) asMux() http.Handler {
	mux := http.NewServeMux()
	p := s.opts.IssuerPath
	switch {
	case s.opts.OIDC && p != "":
		mux.HandleFunc("GET "+p+"/.well-known/openid-configuration", s.metadata)
	case s.opts.OIDC:
		mux.HandleFunc("GET /.well-known/openid-configuration", s.metadata)
	default:
		mux.HandleFunc("GET /.well-known/oauth-authorization-server"+p, s.metadata)
	}
	mux.HandleFunc("GET "+p+"/authorize", s.authorize)
	mux.HandleFunc("POST "+p+"/token", s.token)
	if !s.opts.NoRegistration {
		mux.HandleFunc("POST "+p+"/register", s.register)
	}
	return mux
}

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	if s.opts.MetadataBody != "" {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, s.opts.MetadataBody)
		return
	}
	issuer := s.Issuer()
	md := map[string]any{
		"issuer":                                issuer,
		"authorization_endpoint":                issuer + "/authorize",
		"token_endpoint":                        issuer + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": s.opts.AuthMethods,
	}
	if s.opts.MetadataIssuer != "" {
		md["issuer"] = s.opts.MetadataIssuer
	}
	if !s.opts.NoRegistration {
		md["registration_endpoint"] = issuer + "/register"
	}
	if s.opts.ClientIDMetadataDocuments {
		md["client_id_metadata_document_supported"] = true
	}
	writeJSON(w, http.StatusOK, md)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	id := fmt.Sprintf("dyn-%d", len(s.clients)+1)
	c := client{method: req.Method, redirects: req.RedirectURIs}
	if c.method == "" {
		c.method = "client_secret_basic"
	}
	if c.method != "none" {
		c.secret = "secret-" + id
	}
	s.clients[id] = c
	s.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": c.method}
	if c.secret != "" {
		resp["client_secret"] = c.secret
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.authorizes = append(s.authorizes, q)
	c, known := s.client(q.Get("client_id"))
	s.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case !known:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case err != nil || (len(c.redirects) > 0 && !slices.Contains(c.redirects, q.Get("redirect_uri"))):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	code := fmt.Sprintf("code-%d", len(s.authorizes))
	s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	s.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	hang := s.hang
	s.mu.Unlock()
	if hang != nil {
		select {
		case <-hang:
		case <-r.Context().Done():
			return
		}
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenForms = append(s.tokenForms, r.PostForm)
	s.tokenAuth = append(s.tokenAuth, r.Header.Get("Authorization"))
	id, ok := s.authenticate(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var g grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		g, ok = s.codes[code]
		delete(s.codes, code)
		if !ok || g.client != id || g.redirect != r.PostForm.Get("redirect_uri") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown code"})
			return
		}
		if pkce(r.PostForm.Get("code_verifier")) != g.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		g, ok = s.refresh[rt]
		delete(s.refresh, rt) // single use
		if !ok || g.client != id {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "refresh token revoked"})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	s.issued++
	at, rt := fmt.Sprintf("at-%d", s.issued), fmt.Sprintf("rt-%d", s.issued)
	s.access[at] = g.scopes
	s.refresh[rt] = g
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": s.opts.ExpiresIn, "refresh_token": rt}
	if len(g.scopes) > 0 {
		resp["scope"] = strings.Join(g.scopes, " ")
	}
	writeJSON(w, http.StatusOK, resp)
}

// authenticate checks the client's credentials the way it registered
// (s.mu held): basic, post, or none.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		c, known := s.client(id)
		return id, known && c.method == "client_secret_basic" && c.secret == secret
	}
	id := r.PostForm.Get("client_id")
	c, known := s.client(id)
	switch {
	case !known:
		return id, false
	case c.method == "client_secret_post":
		return id, r.PostForm.Get("client_secret") == c.secret
	}
	return id, c.method == "none" && r.PostForm.Get("client_secret") == ""
}

// client looks a client up (s.mu held): a registered one, or, where client
// ID metadata documents are supported, a public client named by an https URL.
func (s *Server) client(id string) (client, bool) {
	if c, ok := s.clients[id]; ok {
		return c, true
	}
	u, err := url.Parse(id)
	if s.opts.ClientIDMetadataDocuments && err == nil && u.Scheme == "https" && u.Host != "" {
		return client{method: "none"}, true
	}
	return client{}, false
}

func pkce(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// --- resource server (the MCP server) ---

func (s *Server) rsMux() http.Handler {
	mux := http.NewServeMux()
	if p := s.prmPath(); p != "" {
		mux.HandleFunc("GET "+p, s.prm)
	}
	mcpSrv := server.NewMCPServer("protected", "1.0.0")
	mcpSrv.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello"), nil
	})
	mcpSrv.AddTool(mcp.NewTool("write"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("written"), nil
	})
	if s.opts.SSE {
		h := server.NewSSEServer(mcpSrv)
		mux.Handle("/sse", s.guard(h))
		mux.Handle("/message", s.guard(h))
		return mux
	}
	h := server.NewStreamableHTTPServer(mcpSrv, server.WithStateful(true))
	mux.Handle("/mcp", s.guard(h))
	return mux
}

func (s *Server) prm(w http.ResponseWriter, r *http.Request) {
	resource := s.MCP
	if s.opts.PRM == PRMRoot {
		resource = s.rs.URL
	}
	doc := map[string]any{"resource": resource, "authorization_servers": []string{s.Issuer()}}
	if len(s.opts.ScopesSupported) > 0 {
		doc["scopes_supported"] = s.opts.ScopesSupported
	}
	writeJSON(w, http.StatusOK, doc)
}

// guard lets requests with a valid access token through: 401 without one,
// 403 insufficient_scope for a write call without the write scope.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct {
			Method string
			Params struct{ Name string }
		}
		_ = json.Unmarshal(body, &msg)
		auth := r.Header.Get("Authorization")
		s.mu.Lock()
		s.mcpAuth = append(s.mcpAuth, auth)
		scopes, valid := s.access[strings.TrimPrefix(auth, "Bearer ")]
		needed := s.stepUpScope
		if valid && r.Method == http.MethodDelete {
			s.deletes++
		}
		s.mu.Unlock()
		anonymousOK := s.opts.AnonymousInitialize && (msg.Method == "initialize" || strings.HasPrefix(msg.Method, "notifications/"))
		switch {
		case !valid && !anonymousOK:
			s.challenge(w, http.StatusUnauthorized, `error="invalid_token"`, s.opts.ChallengeScope)
		case valid && msg.Method == "tools/call" && msg.Params.Name == "write" && !containsAll(scopes, needed):
			s.challenge(w, http.StatusForbidden, `error="insufficient_scope"`, strings.Join(needed, " "))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (s *Server) challenge(w http.ResponseWriter, status int, errParam, scope string) {
	parts := []string{errParam}
	if scope != "" {
		parts = append(parts, fmt.Sprintf("scope=%q", scope))
	}
	if u := s.PRMURL(); u != "" && !s.opts.NoChallengeURL {
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", u))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(parts, ", "))
	writeJSON(w, status, map[string]string{"error": strings.Trim(strings.TrimPrefix(errParam, "error="), `"`)})
}

func containsAll(have, want []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Browser plays the user's browser: it opens the authorization URL and
// follows the redirects back to the loopback callback. It returns the
// callback page's status.
func Browser(authURL string) (int, error) {
	resp, err := http.Get(authURL)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// RedirectOf opens the authorization URL without following the redirect and
// returns where the authorization server sends the browser (the URL a user
// pastes with --no-browser).
func RedirectOf(authURL string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", fmt.Errorf("the authorization server answered %d without a redirect", resp.StatusCode)
	}
	return loc, nil
}
