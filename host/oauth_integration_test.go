//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/testoauth"
	"github.com/plughost/plughost/oauth/tokens"
)

// OAuth through the real host and mcp-transport-http plugin against the
// in-process authorization server and protected MCP server of testoauth.

func oauthHost(t *testing.T, s *testoauth.Server, oauth map[string]any) *host.Host {
	t.Helper()
	typ := "http"
	if strings.HasSuffix(s.MCP, "/sse") {
		typ = "sse"
	}
	servers := map[string]any{"remote": map[string]any{"enabled": true, "type": typ, "url": s.MCP, "oauth": oauth}}
	return startHostOpts(t, host.Options{TokenStore: tokens.FileStore{Dir: t.TempDir()}}, servers)
}

func loginWithBrowser(t *testing.T, h *host.Host) tokens.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := h.Login(ctx, "remote", tokens.LoginOptions{Prompt: func(u string) error {
		status, err := testoauth.Browser(u)
		if err == nil && status != http.StatusOK {
			t.Errorf("callback page answered %d", status)
		}
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func callErr(h *host.Host, tool string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.NewSession().Call(ctx, tool, json.RawMessage(`{}`))
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		b, _ := json.Marshal(c)
		out = append(out, string(b))
	}
	return strings.Join(out, ""), nil
}

func TestOAuthLoginRefreshStepUp(t *testing.T) {
	integration(t)
	for _, sse := range []bool{false, true} {
		name := "http"
		if sse {
			name = "sse"
		}
		t.Run(name, func(t *testing.T) { testLoginRefreshStepUp(t, sse) })
	}
}

func testLoginRefreshStepUp(t *testing.T, sse bool) {
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}, SSE: sse})
	h := oauthHost(t, s, map[string]any{})

	st := state(h, "remote")
	if st.State != supervisor.StateNeedsLogin || st.Auth == nil || !st.Auth.NeedsLogin ||
		!strings.Contains(st.LastError, "plughost mcp login remote") {
		t.Fatalf("before login: %+v (auth %+v); want needs login with the command to run", st, st.Auth)
	}

	loginWithBrowser(t, h)
	waitFor(t, h, "connected after login", func() bool { return state(h, "remote").State == supervisor.StateConnected })
	if out, err := callErr(h, "mcp_remote_whoami"); err != nil || !strings.Contains(out, "hello") {
		t.Fatalf("call after login: %q, %v", out, err)
	}
	if auth := state(h, "remote").Auth; auth == nil || !auth.LoggedIn || auth.NeedsLogin || !slices.Equal(auth.Scopes, []string{"read"}) {
		t.Errorf("auth status after login: %+v", auth)
	}

	// The access token expires on the server: the plugin's request is
	// refused, the host refreshes, the request is re-sent.
	s.ExpireAccessTokens()
	if out, err := callErr(h, "mcp_remote_whoami"); err != nil || !strings.Contains(out, "hello") {
		t.Fatalf("call after the token expired: %q, %v; want it refreshed transparently", out, err)
	}
	forms, _ := s.TokenRequests()
	if last := forms[len(forms)-1]; last.Get("grant_type") != "refresh_token" {
		t.Errorf("last token request %v, want a refresh", last)
	}

	// Step-up: "write" needs more scope; the call fails saying so, and
	// works after a new login, on the same connection.
	pid := state(h, "remote").PluginPID
	_, err := callErr(h, "mcp_remote_write")
	if err == nil || !strings.Contains(err.Error(), "needs login") || !strings.Contains(err.Error(), "more scope") {
		t.Fatalf("write without the scope: %v; want a needs-login error asking for more scope", err)
	}
	if auth := state(h, "remote").Auth; !auth.NeedsLogin || !slices.Equal(auth.WantScopes, []string{"read", "write"}) {
		t.Errorf("auth status after the step-up refusal: %+v", auth)
	}
	loginWithBrowser(t, h)
	if out, err := callErr(h, "mcp_remote_write"); err != nil || !strings.Contains(out, "written") {
		t.Fatalf("write after the step-up login: %q, %v", out, err)
	}
	if now := state(h, "remote").PluginPID; now != pid {
		t.Errorf("plugin restarted (%d → %d); a step-up needs no reconnect", pid, now)
	}
	auths := s.Authorizations()
	if got := auths[len(auths)-1].Get("scope"); got != "read write" {
		t.Errorf("step-up login asked for %q", got)
	}

	// Closing ends a streamable-HTTP session with a DELETE that carries the token.
	h.Close()
	if !sse && s.Deletes() != 1 {
		t.Errorf("%d authorized DELETEs at close, want 1", s.Deletes())
	}
	for _, a := range s.MCPAuthorizations() {
		if a != "" && !strings.HasPrefix(a, "Bearer at-") {
			t.Errorf("the server got Authorization %q", a)
		}
	}
}

func TestOAuthRevokedRefreshNeedsLogin(t *testing.T) {
	integration(t)
	s := testoauth.Start(t, testoauth.Options{})
	h := oauthHost(t, s, map[string]any{"scopes": []string{"read"}})
	loginWithBrowser(t, h)
	waitFor(t, h, "connected after login", func() bool { return state(h, "remote").State == supervisor.StateConnected })

	s.RevokeRefreshTokens()
	s.ExpireAccessTokens()
	_, err := callErr(h, "mcp_remote_whoami")
	if err == nil || !strings.Contains(err.Error(), "the refresh token was refused") || !strings.Contains(err.Error(), "plughost mcp login remote") {
		t.Fatalf("call with a revoked refresh token: %v", err)
	}
	if strings.Contains(err.Error(), "at-") || strings.Contains(err.Error(), "rt-") {
		t.Errorf("error shows a token: %v", err)
	}
	if auth := state(h, "remote").Auth; auth.LoggedIn || !auth.NeedsLogin {
		t.Errorf("auth status %+v; want needs login", auth)
	}
	loginWithBrowser(t, h)
	if out, err := callErr(h, "mcp_remote_whoami"); err != nil || !strings.Contains(out, "hello") {
		t.Errorf("call after logging in again: %q, %v", out, err)
	}
}

func TestOAuthLoginErrors(t *testing.T) {
	integration(t)
	s := testoauth.Start(t, testoauth.Options{})
	servers := map[string]any{
		"plain":  map[string]any{"enabled": true, "type": "http", "url": s.MCP},
		"remote": map[string]any{"enabled": false, "type": "http", "url": s.MCP, "oauth": map[string]any{}},
	}
	h := startHostOpts(t, host.Options{TokenStore: tokens.FileStore{Dir: t.TempDir()}}, servers)
	opts := tokens.LoginOptions{Prompt: func(string) error { return nil }}
	for name, want := range map[string]string{
		"plain":   `server "plain" has no "oauth" in its config`,
		"missing": `no server named "missing"`,
	} {
		if _, err := h.Login(context.Background(), name, opts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("login to %s: %v; want %q", name, err, want)
		}
	}
	// A disabled server can be logged in to ahead of enabling it.
	if st := state(h, "remote"); st.State != supervisor.StateDisabled || st.Auth == nil || st.Auth.LoggedIn {
		t.Fatalf("disabled oauth server: %+v", st)
	}
	loginWithBrowser(t, h)
	if st := state(h, "remote"); !st.Auth.LoggedIn {
		t.Errorf("after login: %+v", st.Auth)
	}
	if had, err := h.Logout(context.Background(), "remote"); !had || err != nil {
		t.Errorf("logout: %v, %v", had, err)
	}
	if st := state(h, "remote"); st.Auth.LoggedIn || !st.Auth.NeedsLogin {
		t.Errorf("after logout: %+v", st.Auth)
	}
}
