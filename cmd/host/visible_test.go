//go:build unix

package main

import "testing"

func TestVisibleWritesOutHiddenCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"a\u200bb":           "a<U+200B>b",
		"rtl \u202eevil":     "rtl <U+202E>evil",
		"esc \x1b[31m":       "esc <U+001B>[31m",
		"bom\ufeff and more": "bom<U+FEFF> and more",
	} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}
