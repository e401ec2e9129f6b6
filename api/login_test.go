package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/testoauth"
	"github.com/plughost/plughost/oauth"
	"github.com/plughost/plughost/oauth/tokens"
)

// The dashboard's login button: the API returns the authorization URL, the
// browser's redirect lands on /oauth/callback (no token, state checked),
// and the server connects with the tokens.
func TestOAuthLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real plugin processes: heavy integration test, skipped under -short")
	}
	s := testoauth.Start(t, testoauth.Options{})
	f := startHost(t, map[string]any{"remote": map[string]any{"enabled": true, "type": "http", "url": s.MCP, "oauth": map[string]any{}},
		"a": (&fixture{}).server()}, host.Options{TokenStore: tokens.FileStore{Dir: t.TempDir()}})
	var handler http.Handler
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	defer f.srv.Close()
	inbox := oauth.NewInbox(f.srv.URL + api.OAuthCallbackPath)
	mux := http.NewServeMux()
	mux.Handle("/api/", api.New(api.Options{Host: f.h, Manager: f.m, OAuthInbox: inbox}))
	mux.Handle("GET "+api.OAuthCallbackPath, inbox)
	handler = mux

	authOf := func() string {
		_, body := f.do(t, "GET", "/api/servers", "")
		var list api.ServerList
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Servers {
			if r.Name == "remote" {
				return r.Auth
			}
		}
		return ""
	}
	f.waitState(t, "remote", supervisor.StateNeedsLogin)
	if a := authOf(); a != host.AuthNeedsLogin {
		t.Errorf("auth before the login: %q", a)
	}
	if code, body := f.do(t, "POST", "/api/servers/a/login", `{}`); code != 400 || errorOf(t, body).Code != api.CodeNoOAuth {
		t.Errorf("login to a server without oauth: %d %s", code, body)
	}
	// A forged (or stale) response is refused.
	resp, err := http.Get(f.srv.URL + api.OAuthCallbackPath + "?code=x&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a callback with an unknown state: %d", resp.StatusCode)
	}

	code, body := f.do(t, "POST", "/api/servers/remote/login", `{}`)
	var started api.LoginStarted
	if code != 200 || json.Unmarshal([]byte(body), &started) != nil || !strings.HasPrefix(started.AuthorizationURL, s.AS) ||
		!strings.Contains(started.AuthorizationURL, "redirect_uri="+url.QueryEscape(f.srv.URL+api.OAuthCallbackPath)) {
		t.Fatalf("POST login: %d %s", code, body)
	}
	resp, err = http.Get(started.AuthorizationURL) // the browser: consent, then the redirect to /oauth/callback
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "You can close this tab") {
		t.Fatalf("callback page: %d %s", resp.StatusCode, page)
	}
	f.waitState(t, "remote", supervisor.StateConnected)
	if a := authOf(); a != host.AuthOK {
		t.Errorf("auth after the login: %q", a)
	}
}
