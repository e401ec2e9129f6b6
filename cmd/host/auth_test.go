package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/tokens"
)

func TestBrowserCommands(t *testing.T) {
	u := "https://as/authorize?x=1"
	cases := []struct {
		env, goos string
		want      [][]string
	}{
		{"", "linux", [][]string{{"xdg-open", u}}},
		{"", "darwin", [][]string{{"open", u}}},
		{"firefox", "linux", [][]string{{"firefox", u}, {"xdg-open", u}}},
		{"w3m -o x=%s:lynx", "linux", [][]string{{"w3m", "-o", "x=" + u}, {"lynx", u}, {"xdg-open", u}}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, browserCommands(tc.env, tc.goos, u)); diff != "" {
			t.Errorf("browserCommands(%q, %s) (-want +got):\n%s", tc.env, tc.goos, diff)
		}
	}
}

func TestAuthText(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	cases := []struct {
		name string
		st   *tokens.Status
		want string
	}{
		{"no oauth", nil, ""},
		{"logged in", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(3*time.Hour + 20*time.Minute), Scopes: []string{"a", "b"}},
			"logged in (expires in 3h20m, scopes a b)"},
		{"no expiry", &tokens.Status{LoggedIn: true}, "logged in"},
		{"expired, refreshable", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(-time.Second), Refreshable: true},
			"logged in (expired, refreshed on next use)"},
		{"not logged in", &tokens.Status{NeedsLogin: true, Reason: "not logged in"}, "needs login: not logged in"},
		{"step-up", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(90 * time.Second), NeedsLogin: true,
			Reason: "the server asks for more scope: write", WantScopes: []string{"read", "write"}},
			"logged in (expires in 1m); needs login: the server asks for more scope: write (scopes read write)"},
		{"unreadable", &tokens.Status{Error: "the token file x is damaged"}, "login unreadable: the token file x is damaged"},
	}
	for _, tc := range cases {
		if got := authText(tc.st, now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
