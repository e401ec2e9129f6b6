package pluginapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", lineBufferSize+100) // longer than the read buffer
	huge := strings.Repeat("0123456789", 250_000)   // 2.5 MB: three spill chunks
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // "!" stands for a too-large error, after which reading stops
	}{
		{"lines", "a\nbb\n", 32, []string{"a", "bb"}},
		{"unterminated last line", "a\nb", 32, []string{"a", "b"}},
		{"empty lines kept", "\n\na\n", 32, []string{"", "", "a"}},
		{"CR kept for the caller to trim", "a\r\n", 32, []string{"a\r"}},
		{"line at the limit", strings.Repeat("y", 32) + "\n", 32, []string{strings.Repeat("y", 32)}},
		{"line over the limit", "ok\n" + strings.Repeat("y", 33) + "\nnever\n", 32, []string{"ok", "!"}},
		{"unterminated line over the limit", "ok\n" + strings.Repeat("y", 33), 32, []string{"ok", "!"}},
		{"line longer than the read buffer", long + "\nz\n", 1 << 20, []string{long, "z"}},
		{"line over several spill chunks", huge + "\nz\n", 4 << 20, []string{huge, "z"}},
		{"unterminated long last line", "a\n" + huge, 4 << 20, []string{"a", huge}},
		{"long line over the limit", "a\n" + huge + "\nz\n", 2 << 20, []string{"a", "!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewLineReader(strings.NewReader(tt.input), tt.limit)
			var got []string
			for {
				line, err := r.ReadLine()
				if KindOf(err) == KindMessageTooLarge {
					got = append(got, "!")
					break
				}
				if err == nil || len(line) > 0 {
					got = append(got, string(line))
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("ReadLine() error: %v", err)
				}
				if len(line) > lineBufferSize && cap(line) != len(line) {
					t.Errorf("line of %d bytes has capacity %d; want an exact-size slice", len(line), cap(line))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineReaderLinesAreCopies(t *testing.T) {
	r := NewLineReader(strings.NewReader("first\nsecond\n"), 32)
	first, _ := r.ReadLine()
	r.ReadLine()
	if string(first) != "first" {
		t.Errorf("first line changed to %q after the next read", first)
	}
}

// endless is a stream of 'x' with no newline, counting what was read.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

// A server writing an endless line must cost at most the limit (plus one
// read buffer), never the whole line: the reader stops and says why.
func TestLineReaderStopsAtTheLimit(t *testing.T) {
	const limit = 3 << 20
	src := &endless{}
	_, err := NewLineReader(src, limit).ReadLine()
	var tooLarge *MessageTooLargeError
	if !errors.As(err, &tooLarge) || KindOf(err) != KindMessageTooLarge {
		t.Fatalf("ReadLine() error = %v; want a *MessageTooLargeError of kind %s", err, KindMessageTooLarge)
	}
	if src.read > limit+2*lineBufferSize {
		t.Errorf("read %d bytes of an endless line with a limit of %d; want at most the limit plus a buffer", src.read, limit)
	}
	if tooLarge.Limit != limit || !strings.Contains(err.Error(), "3 MiB") {
		t.Errorf("error = %q (limit %d); want it to name the 3 MiB limit", err, tooLarge.Limit)
	}
}

func TestLineReaderDefaultLimit(t *testing.T) {
	if got := NewLineReader(bytes.NewReader(nil), 0).Limit(); got != DefaultMaxMessageBytes {
		t.Errorf("Limit() = %d; want DefaultMaxMessageBytes (%d)", got, DefaultMaxMessageBytes)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int]string{64 << 20: "64 MiB", 1 << 20: "1 MiB", 1500: "1500 bytes", 3<<20 + 1: "3145729 bytes"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q; want %q", n, got, want)
		}
	}
}
