package stdiotransport

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // "!" stands for errLineTooLong
	}{
		{"lines", "a\nbb\n", 32, []string{"a", "bb"}},
		{"unterminated last line", "a\nb", 32, []string{"a", "b"}},
		{"empty lines kept", "\n\na\n", 32, []string{"", "", "a"}},
		{"CR kept for the caller to trim", "a\r\n", 32, []string{"a\r"}},
		{"line longer than the bufio buffer", long + "\nz\n", 64, []string{long, "z"}},
		{"line at the limit", long[:32] + "\n", 32, []string{long[:32]}},
		{"line over the limit skipped", long + "\nok\n", 32, []string{"!", "ok"}},
		{"unterminated line over the limit", "ok\n" + long, 32, []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			var got []string
			for {
				line, err := readLine(r, tt.limit)
				if errors.Is(err, errLineTooLong) {
					got = append(got, "!")
					continue
				}
				if err == nil || len(line) > 0 {
					got = append(got, string(line))
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("readLine() error: %v", err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLineCopies(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("first\nsecond\n"), 16)
	first, _ := readLine(r, 32)
	readLine(r, 32)
	if string(first) != "first" {
		t.Errorf("first line changed to %q after the next read", first)
	}
}

func TestValidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok ☃", "ok ☃"},
		{"\x83\x98 cut rune", " cut rune"},
		{"bad \xff byte", "bad ? byte"},
	}
	for _, tt := range tests {
		if got := validUTF8(tt.in); got != tt.want {
			t.Errorf("validUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
