package linediff

import (
	"strings"
	"testing"
)

func render(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestLines(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{"a\nb\nc", "a\nb\nc", " a\n b\n c\n"},
		{"a\nb\nc", "a\nx\nc", " a\n-b\n+x\n c\n"},
		{"", "a", "+a\n"},
		{"a", "", "-a\n"},
		{"keep\nold tail", "new head\nkeep", "+new head\n keep\n-old tail\n"},
	}
	for _, c := range cases {
		got := render(Lines(c.old, c.new))
		if got != c.want {
			t.Errorf("Lines(%q, %q) =\n%s\nwant\n%s", c.old, c.new, got, c.want)
		}
		if Changed(Lines(c.old, c.new)) != (c.old != c.new) {
			t.Errorf("Changed(%q, %q) = %v", c.old, c.new, !(c.old != c.new))
		}
	}
}

func TestLinesBeyondMaxShowsBothWhole(t *testing.T) {
	big := strings.Repeat("x\n", MaxLines+1)
	got := Lines(big, "y")
	if len(got) != MaxLines+2 || got[0].Op != Removed || got[len(got)-1] != (Line{Added, "y"}) {
		t.Errorf("got %d lines, first %+v, last %+v", len(got), got[0], got[len(got)-1])
	}
}
