//go:build unix

package host

import "testing"

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"weather":      "weather",
		"gh.search-1":  "gh.search-1",
		"":             "''",
		"two words":    "'two words'",
		"it's":         `'it'\''s'`,
		"bell\x07; rm": `'bell\a; rm'`,
		"naïve\u202e":  `'na\u00efve\u202e'`,
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
