package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/internal/testoauth"
	"github.com/plughost/plughost/oauth"
)

// challengeOf fetches the server's 401 challenge, as a first request would.
func challengeOf(t *testing.T, s *testoauth.Server) oauth.Challenge {
	t.Helper()
	resp, err := http.Post(s.MCP, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated request answered %d, want 401", resp.StatusCode)
	}
	return oauth.ParseChallenge(resp.Header.Values("WWW-Authenticate"))
}

func TestDiscover(t *testing.T) {
	cases := []struct {
		name string
		opts testoauth.Options
		// wantMetadataPath is where the AS metadata must be found; no
		// request may go to a well-known URL outside wantTried.
		wantTried []string
	}{
		{name: "resource metadata from the challenge", opts: testoauth.Options{},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{name: "path-suffixed well-known without a challenge URL", opts: testoauth.Options{NoChallengeURL: true},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{name: "root fallback", opts: testoauth.Options{PRM: testoauth.PRMRoot, NoChallengeURL: true},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
				"/.well-known/oauth-authorization-server"}},
		{name: "custom location from the challenge", opts: testoauth.Options{PRM: testoauth.PRMCustom},
			wantTried: []string{"/custom/prm.json", "/.well-known/oauth-authorization-server"}},
		{name: "issuer with a path: RFC 8414 path-inserted", opts: testoauth.Options{IssuerPath: "/tenant1"},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/tenant1"}},
		{name: "OpenID Connect at the root", opts: testoauth.Options{OIDC: true},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server",
				"/.well-known/openid-configuration"}},
		{name: "OpenID Connect path-appended", opts: testoauth.Options{OIDC: true, IssuerPath: "/tenant1"},
			wantTried: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/tenant1",
				"/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testoauth.Start(t, tc.opts)
			ch := challengeOf(t, s)
			d, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{ServerURL: s.MCP, Challenge: ch})
			if err != nil {
				t.Fatal(err)
			}
			if d.Issuer != s.Issuer() || d.Metadata.TokenEndpoint != s.Issuer()+"/token" || d.Legacy {
				t.Errorf("discovered issuer %s, token endpoint %s, legacy %v; want %s", d.Issuer, d.Metadata.TokenEndpoint, d.Legacy, s.Issuer())
			}
			wantResource := s.MCP
			if tc.opts.PRM == testoauth.PRMRoot {
				wantResource = strings.TrimSuffix(s.MCP, "/mcp")
			}
			if d.Resource != wantResource {
				t.Errorf("resource %s, want %s", d.Resource, wantResource)
			}
			var tried []string
			for _, r := range s.Requests() {
				if p, ok := strings.CutPrefix(r, "GET "); ok && (strings.Contains(p, "well-known") || strings.HasPrefix(p, "/custom")) {
					tried = append(tried, p)
				}
			}
			if diff := cmp.Diff(tc.wantTried, tried); diff != "" {
				t.Errorf("metadata requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverIssuerOverride(t *testing.T) {
	named := testoauth.Start(t, testoauth.Options{})
	configured := testoauth.Start(t, testoauth.Options{IssuerPath: "/other"})
	d, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{
		ServerURL: named.MCP, Challenge: challengeOf(t, named), Issuer: configured.Issuer()})
	if err != nil {
		t.Fatal(err)
	}
	if d.Issuer != configured.Issuer() || d.Metadata.AuthorizationEndpoint != configured.Issuer()+"/authorize" {
		t.Errorf("issuer %s (authorize %s), want the configured %s", d.Issuer, d.Metadata.AuthorizationEndpoint, configured.Issuer())
	}
	for _, r := range named.Requests() {
		if strings.Contains(r, "oauth-authorization-server") {
			t.Errorf("the resource's own authorization server was asked: %s", r)
		}
	}
}

func TestDiscoverLegacyDefaults(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	d, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{ServerURL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	want := oauth.ServerMetadata{Issuer: srv.URL, AuthorizationEndpoint: srv.URL + "/authorize", TokenEndpoint: srv.URL + "/token",
		RegistrationEndpoint: srv.URL + "/register", CodeChallengeMethodsSupported: []string{"S256"}}
	if diff := cmp.Diff(want, d.Metadata); diff != "" || !d.Legacy || d.Resource != srv.URL+"/mcp" {
		t.Errorf("legacy discovery: legacy=%v resource=%s metadata (-want +got):\n%s", d.Legacy, d.Resource, diff)
	}
}

func TestDiscoverBadInput(t *testing.T) {
	other := testoauth.Start(t, testoauth.Options{})
	cases := []struct {
		name string
		opts testoauth.Options
		want []string
	}{
		{name: "metadata that is not JSON", opts: testoauth.Options{MetadataBody: "<html>login</html>"},
			want: []string{"read the authorization server metadata", "/.well-known/oauth-authorization-server", "not a JSON document", "text/html"}},
		{name: "authorization server claiming another issuer", opts: testoauth.Options{MetadataIssuer: other.Issuer()},
			want: []string{"read the authorization server metadata", "names issuer " + other.Issuer(), "claims another's name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testoauth.Start(t, tc.opts)
			_, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{ServerURL: s.MCP, Challenge: challengeOf(t, s)})
			var se *oauth.StepError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *StepError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

// login runs the authorization-code flow against s with a headless browser.
func login(t *testing.T, c *oauth.Client, s *testoauth.Server, client oauth.ClientInfo, scopes []string) (*oauth.Token, *oauth.Discovery) {
	t.Helper()
	ctx := context.Background()
	d, err := c.Discover(ctx, oauth.DiscoverRequest{ServerURL: s.MCP, Challenge: challengeOf(t, s)})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := oauth.ListenCallback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	if client.ID == "" {
		if client, err = c.Register(ctx, d.Metadata, oauth.RegisterRequest{ClientName: "plughost test", RedirectURI: cb.RedirectURI()}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := oauth.Authorize(oauth.AuthRequest{Metadata: d.Metadata, Client: client, RedirectURI: cb.RedirectURI(), Scopes: scopes, Resource: d.Resource})
	if err != nil {
		t.Fatal(err)
	}
	cb.Start(a.State)
	if status, err := testoauth.Browser(a.URL); err != nil || status != http.StatusOK {
		t.Fatalf("browser: status %d, %v", status, err)
	}
	code, err := cb.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.Exchange(ctx, a, code)
	if err != nil {
		t.Fatal(err)
	}
	return tok, d
}

func TestLoginWithDynamicRegistration(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	tok, _ := login(t, &oauth.Client{}, s, oauth.ClientInfo{}, []string{"read"})
	if tok.AccessToken != "at-1" || tok.RefreshToken != "rt-1" || !slices.Equal(tok.Scopes, []string{"read"}) {
		t.Errorf("token %+v", tok)
	}
	if time.Until(tok.Expiry) < 59*time.Minute {
		t.Errorf("expiry %s, want about an hour from now", tok.Expiry)
	}
	auths := s.Authorizations()
	forms, _ := s.TokenRequests()
	if len(auths) != 1 || len(forms) != 1 {
		t.Fatalf("%d authorization and %d token requests, want 1 each", len(auths), len(forms))
	}
	a, f := auths[0], forms[0]
	for k, want := range map[string]string{"response_type": "code", "client_id": "dyn-1", "scope": "read",
		"code_challenge_method": "S256", "resource": s.MCP} {
		if a.Get(k) != want {
			t.Errorf("authorization request %s = %q, want %q", k, a.Get(k), want)
		}
	}
	if a.Get("state") == "" || len(a.Get("code_challenge")) != 43 {
		t.Errorf("authorization request state %q, code_challenge %q", a.Get("state"), a.Get("code_challenge"))
	}
	if f.Get("resource") != s.MCP || f.Get("code_verifier") == "" || f.Get("client_id") != "dyn-1" || f.Has("client_secret") {
		t.Errorf("token request %v: want resource, code_verifier and client_id of a public client", f)
	}
}

func TestLoginPreRegisteredClient(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{NoRegistration: true, Clients: map[string]string{"pre": "pre-secret"},
		AuthMethods: []string{"client_secret_basic"}})
	c := &oauth.Client{}
	d, err := c.Discover(context.Background(), oauth.DiscoverRequest{ServerURL: s.MCP, Challenge: challengeOf(t, s)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(context.Background(), d.Metadata, oauth.RegisterRequest{RedirectURI: "http://127.0.0.1:1/callback"}); err == nil ||
		!strings.Contains(err.Error(), "set oauth.client_id") {
		t.Errorf("registration without an endpoint: %v; want advice to set oauth.client_id", err)
	}
	client := oauth.ClientInfo{ID: "pre", Secret: "pre-secret", AuthMethod: oauth.AuthMethodFor(d.Metadata, true)}
	if client.AuthMethod != oauth.AuthBasic {
		t.Fatalf("auth method %q, want %q", client.AuthMethod, oauth.AuthBasic)
	}
	tok, _ := login(t, c, s, client, nil)
	_, auth := s.TokenRequests()
	if tok.AccessToken == "" || !strings.HasPrefix(auth[0], "Basic ") {
		t.Errorf("token %v, token request Authorization %q; want a token via client_secret_basic", tok, auth[0])
	}
	if a := s.Authorizations()[0]; a.Has("scope") {
		t.Errorf("scope %q sent though none was asked for", a.Get("scope"))
	}
}

func TestPKCEVerifiedByServer(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	c := &oauth.Client{}
	ctx := context.Background()
	d, err := c.Discover(ctx, oauth.DiscoverRequest{ServerURL: s.MCP, Challenge: challengeOf(t, s)})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := oauth.ListenCallback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	client, err := c.Register(ctx, d.Metadata, oauth.RegisterRequest{RedirectURI: cb.RedirectURI()})
	if err != nil {
		t.Fatal(err)
	}
	req := oauth.AuthRequest{Metadata: d.Metadata, Client: client, RedirectURI: cb.RedirectURI(), Resource: d.Resource}
	sent, _ := oauth.Authorize(req)
	other, _ := oauth.Authorize(req) // another verifier
	loc, err := testoauth.RedirectOf(sent.URL)
	if err != nil {
		t.Fatal(err)
	}
	code, err := oauth.ParseRedirect(loc, sent.State)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exchange(ctx, other, code)
	if !oauth.IsInvalidGrant(err) || !strings.Contains(err.Error(), "PKCE verification failed") {
		t.Errorf("exchange with the wrong verifier: %v; want invalid_grant from the server", err)
	}
}

func TestWrongStateRefused(t *testing.T) {
	cb, err := oauth.ListenCallback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	cb.Start("the-real-state")
	resp, err := http.Get(cb.RedirectURI() + "?code=c&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("callback page status %d, want 400", resp.StatusCode)
	}
	_, err = cb.Wait(context.Background())
	if !errors.Is(err, oauth.ErrStateMismatch) {
		t.Errorf("got %v, want ErrStateMismatch", err)
	}
	if _, err := oauth.ParseRedirect("http://127.0.0.1:5/callback?code=c&state=forged", "the-real-state"); !errors.Is(err, oauth.ErrStateMismatch) {
		t.Errorf("pasted URL with a forged state: %v", err)
	}
	// One response only: the server no longer accepts connections.
	if resp, err := http.Get(cb.RedirectURI() + "?code=c&state=the-real-state"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("a second response was accepted")
		}
	}
}

func TestParseRedirect(t *testing.T) {
	cases := []struct {
		pasted, code, err string
	}{
		{"http://127.0.0.1:8000/callback?code=abc&state=s", "abc", ""},
		{"  http://127.0.0.1:8000/callback?state=s&code=abc \n", "abc", ""},
		{"?code=abc&state=s", "abc", ""},
		{"code=abc&state=s", "abc", ""},
		{"http://127.0.0.1:8000/callback?error=access_denied&error_description=no+thanks&state=s", "", "refused the login: access_denied: no thanks"},
		{"http://127.0.0.1:8000/callback?state=s", "", "has no code"},
		{"hello", "", "not the URL the browser was sent to"},
	}
	for _, tc := range cases {
		code, err := oauth.ParseRedirect(tc.pasted, "s")
		if code != tc.code || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseRedirect(%q) = %q, %v; want %q, %q", tc.pasted, code, err, tc.code, tc.err)
		}
	}
}

func TestRefresh(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	c := &oauth.Client{}
	tok, d := login(t, c, s, oauth.ClientInfo{}, []string{"read"})
	client := oauth.ClientInfo{ID: "dyn-1", AuthMethod: oauth.AuthNone}
	req := oauth.RefreshRequest{TokenEndpoint: d.Metadata.TokenEndpoint, Client: client, RefreshToken: tok.RefreshToken, Scopes: tok.Scopes}
	next, err := c.Refresh(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if next.AccessToken != "at-2" || next.RefreshToken != "rt-2" || !slices.Equal(next.Scopes, []string{"read"}) {
		t.Errorf("refreshed token %+v", next)
	}
	s.RevokeRefreshTokens()
	req.RefreshToken = next.RefreshToken
	_, err = c.Refresh(context.Background(), req)
	if !oauth.IsInvalidGrant(err) || !strings.Contains(err.Error(), "refresh the access token") {
		t.Errorf("refresh with a revoked token: %v; want invalid_grant naming the step", err)
	}
	if strings.Contains(err.Error(), "rt-") || strings.Contains(err.Error(), "at-") {
		t.Errorf("error %q shows a token", err)
	}
}

func TestTokenEndpointTimeout(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	c := &oauth.Client{}
	tok, d := login(t, c, s, oauth.ClientInfo{}, nil)
	s.HangTokenEndpoint()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Refresh(ctx, oauth.RefreshRequest{TokenEndpoint: d.Metadata.TokenEndpoint,
		Client: oauth.ClientInfo{ID: "dyn-1", AuthMethod: oauth.AuthNone}, RefreshToken: tok.RefreshToken})
	if err == nil || !strings.Contains(err.Error(), "refresh the access token") || !strings.Contains(err.Error(), "no answer in time") {
		t.Errorf("got %v; want a timeout naming the step", err)
	}
}

func TestParseChallenge(t *testing.T) {
	cases := []struct {
		in   []string
		want oauth.Challenge
	}{
		{[]string{`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"`},
			oauth.Challenge{Error: "insufficient_scope", Scopes: []string{"a", "b"}, ResourceMetadata: "https://x/.well-known/oauth-protected-resource"}},
		{[]string{`Basic realm="r"`, `bearer error=invalid_token, error_description="the \"token\" expired"`},
			oauth.Challenge{Error: "invalid_token", Description: `the "token" expired`}},
		{[]string{`Basic realm="r", Bearer scope="mcp:basic"`}, oauth.Challenge{Scopes: []string{"mcp:basic"}}},
		{[]string{`Negotiate abc==, Bearer resource_metadata="u"`}, oauth.Challenge{ResourceMetadata: "u"}},
		{[]string{`Bearer`}, oauth.Challenge{}},
		{[]string{`Bearer scope="unterminated`}, oauth.Challenge{Scopes: []string{"unterminated"}}},
		{nil, oauth.Challenge{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, oauth.ParseChallenge(tc.in)); diff != "" {
			t.Errorf("ParseChallenge(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestDiscoverLegacyMetadata: a server without resource metadata serves its
// authorization server's metadata itself (MCP 2025-03-26); an issuer with a
// path on that same origin is accepted, one on another origin is not.
func TestDiscoverLegacyMetadata(t *testing.T) {
	var issuer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":"%[1]s/authorize","token_endpoint":"%[1]s/token","code_challenge_methods_supported":["S256"]}`, issuer)
	}))
	defer srv.Close()
	issuer = srv.URL + "/oauth"
	d, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{ServerURL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Legacy || d.Issuer != issuer || d.Metadata.TokenEndpoint != issuer+"/token" {
		t.Errorf("legacy discovery: %+v", d)
	}
	issuer = "http://elsewhere.example/oauth"
	if _, err := (&oauth.Client{}).Discover(context.Background(), oauth.DiscoverRequest{ServerURL: srv.URL + "/mcp"}); err == nil ||
		!strings.Contains(err.Error(), "claims another's name") {
		t.Errorf("legacy metadata naming another origin: %v", err)
	}
}

func TestCallbackPortTaken(t *testing.T) {
	first, err := oauth.ListenCallback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	port := strings.TrimSuffix(strings.TrimPrefix(first.RedirectURI(), "http://127.0.0.1:"), "/callback")
	var n int
	fmt.Sscan(port, &n)
	_, err = oauth.ListenCallback(n)
	if err == nil || !strings.Contains(err.Error(), "listen for the browser's redirect") || !strings.Contains(err.Error(), "oauth.callback_port") {
		t.Errorf("a taken callback port: %v; want the step and the setting named", err)
	}
}
