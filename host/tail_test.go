//go:build unix

package host

import "testing"

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want string
	}{
		{"", 20, ""},
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"\n", 1, ""},
	} {
		if got := tail(tc.text, tc.n); got != tc.want {
			t.Errorf("tail(%q, %d) = %q; want %q", tc.text, tc.n, got, tc.want)
		}
	}
}
