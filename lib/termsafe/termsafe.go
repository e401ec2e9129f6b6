// Package termsafe makes text that came from a server safe to print on a
// terminal: the control characters a terminal acts on — a colour code, an
// OSC window title, a cursor move, an 8-bit CSI — are written out as text
// instead. Every CLI print of a server's text (its stderr, errors, names,
// descriptions, results) goes through Text.
package termsafe

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text returns s with every character a terminal would act on written out
// the way strconv.Quote writes it: C0 controls (ESC as \x1b, BEL as \a, …)
// but newline and tab, a carriage return unless a newline follows it (it
// would let the rest of a line overwrite what came before), DEL, the C1
// controls U+0080–U+009F (\u009b), and bytes that are not UTF-8 (\x9b: a
// lone 0x9B is CSI to an 8-bit terminal). Everything else, other scripts
// included, is kept; s itself is returned when nothing needs writing out.
func Text(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case unsafeRune(r, s[i+size:]):
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\a', '\u009b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hex = "0123456789abcdef"

// firstUnsafe is the index of the first byte Text writes out, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII: the common case
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r, s[i+size:]) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether a terminal acts on r; rest is what follows it.
func unsafeRune(r rune, rest string) bool {
	switch {
	case r == '\n', r == '\t':
		return false
	case r == '\r':
		return !strings.HasPrefix(rest, "\n")
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// JSON returns a JSON document with the C1 controls in its strings written
// as \u0080–\u009f escapes and bytes that are not UTF-8 as \ufffd: encoders
// escape C0 controls but pass C1 ones through as UTF-8, which some
// terminals act on. Outside strings JSON has neither, so the result is
// the same JSON; b itself is returned when it holds none.
func JSON(b []byte) []byte {
	var out []byte // nil until something is written out
	done := 0
	for i := 0; i < len(b); {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r >= 0x80 && r <= 0x9f:
			esc = `\u00` + string(hex[r>>4]) + string(hex[r&0xf])
		default:
			i += size
			continue
		}
		out = append(append(out, b[done:i]...), esc...)
		i += size
		done = i
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// Writer returns a writer that passes each Write through Text: for a log
// whose lines may quote a server or a plugin. Each Write should be whole
// lines (hclog writes one line per Write); a character split between two
// writes is written out as bytes.
func Writer(w io.Writer) io.Writer { return textWriter{w} }

type textWriter struct{ w io.Writer }

// Write writes Text(p) and reports p as written.
func (t textWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
