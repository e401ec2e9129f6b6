//go:build unix

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
