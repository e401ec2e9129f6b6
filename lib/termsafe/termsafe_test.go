package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, 3 lines\nand\ttabs\r\n", "plain text, 3 lines\nand\ttabs\r\n"},
		{"colour \x1b[31mRED\x1b[0m", `colour \x1b[31mRED\x1b[0m`},
		{"title \x1b]0;pwned\x07 bell", `title \x1b]0;pwned\a bell`},
		{"csi8 \x9b2J", `csi8 \x9b2J`},
		{"c1 \u009b2J and \u0085", `c1 \u009b2J and \u0085`},
		{"cr \roverwrite", `cr \roverwrite`},
		{"del \x7f nul \x00 bs \b", `del \x7f nul \x00 bs \b`},
		{"héllo 世界 🙂 \u00a0 \u200d", "héllo 世界 🙂 \u00a0 \u200d"},
		{"", ""},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	s := "nothing to do\n"
	if got := Text(s); got != s {
		t.Errorf("Text(%q) = %q", s, got)
	}
}

// Whatever the input, Text leaves nothing a terminal acts on, and what it
// keeps is valid UTF-8.
func FuzzText(f *testing.F) {
	for _, seed := range []string{"a\x1b[31mb", "\x9b\xc2\x9b", "\r\n\r", "\u009b", "ok"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q: not UTF-8", in, out)
		}
		for i, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t' && !(r == '\r' && strings.HasPrefix(out[i+1:], "\n"))) || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("Text(%q) = %q keeps %U", in, out, r)
			}
		}
	})
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"c1 ` + "\u009b" + `2J","b":"é 世"}`, `{"a":"c1 \u009b2J","b":"é 世"}`},
		{`["` + "\x9b" + `"]`, `["\ufffd"]`},
		{`{"esc":"\u001b[31m"}`, `{"esc":"\u001b[31m"}`},
	} {
		if got := string(JSON([]byte(tc.in))); got != tc.want {
			t.Errorf("JSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer(&b)
	line := "[WARN] plugin: \x1b]0;title\x07 said hi\n"
	if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if want := "[WARN] plugin: \\x1b]0;title\\a said hi\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
