package rawjson

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file decodes JSON string literals without encoding/json, so that a
// result string of many megabytes is decoded once, straight into its final
// buffer. The decoding matches json.Unmarshal into a string byte for byte:
// escapes are resolved, a \uXXXX surrogate pair becomes one character, an
// unpaired surrogate and every byte that is not part of valid UTF-8 become
// U+FFFD.

// replacement is U+FFFD as UTF-8, what encoding/json writes for invalid input.
const replacement = "\uFFFD"

// stringStop marks the bytes that end a run of plain characters inside a
// JSON string: the closing quote, the backslash of an escape, and the control
// characters JSON forbids there. Read-only after initialisation.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// StringEnd returns the index just past the JSON string literal that starts
// with the quote at s[i], and false when the literal is not valid JSON (a
// control character, an unknown escape, a \u without four hex digits, no
// closing quote). Bytes that are not valid UTF-8 are valid here, as they are
// for encoding/json.
func StringEnd(s string, i int) (int, bool) {
	j := i + 1
	for {
		for j < len(s) && !stringStop[s[j]] {
			j++
		}
		if j >= len(s) {
			return 0, false
		}
		switch s[j] {
		case '"':
			return j + 1, true
		case '\\':
			n := escapeLen(s[j:])
			if n == 0 {
				return 0, false
			}
			j += n
		default: // a control character
			return 0, false
		}
	}
}

// escapeLen returns the length of the valid JSON escape at the start of s
// (which starts with a backslash), or 0 if it is not one.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) >= 6 && hex4(s[2:6]) >= 0 {
			return 6
		}
	}
	return 0
}

// Unquote decodes the content of a valid JSON string literal (without its
// quotes), writing it to b unless b is nil, and returns the decoded length in
// bytes — so a first call with nil sizes the buffer for the second. Plain
// runs between escapes are copied whole.
func Unquote(s string, b *strings.Builder) int {
	n := 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return n + writeUTF8(s, b)
		}
		n += writeUTF8(s[:i], b)
		r, size := decodeEscape(s[i:])
		n += utf8.RuneLen(r)
		if b != nil {
			b.WriteRune(r)
		}
		s = s[i+size:]
	}
	return n
}

// writeUTF8 writes s to b (unless b is nil) with every byte that is not part
// of valid UTF-8 replaced by U+FFFD, and returns the length written.
func writeUTF8(s string, b *strings.Builder) int {
	if utf8.ValidString(s) {
		if b != nil {
			b.WriteString(s)
		}
		return len(s)
	}
	n, done := 0, 0 // s[:done] is accounted for
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		n += i - done + len(replacement)
		if b != nil {
			b.WriteString(s[done:i])
			b.WriteString(replacement)
		}
		i++
		done = i
	}
	if b != nil {
		b.WriteString(s[done:])
	}
	return n + len(s) - done
}

// decodeEscape decodes the escape at the start of s (a backslash followed by
// a valid JSON escape) and returns the character and the bytes consumed. A
// high surrogate followed by an escaped low one is one character; any other
// surrogate is U+FFFD and consumes only its own escape, as in encoding/json.
func decodeEscape(s string) (rune, int) {
	if len(s) < 2 {
		return utf8.RuneError, len(s)
	}
	switch s[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if len(s) < 6 {
			return utf8.RuneError, len(s)
		}
		r := hex4(s[2:6])
		if r < 0 {
			return utf8.RuneError, 6
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if pair := utf16.DecodeRune(r, hex4(s[8:12])); pair != utf8.RuneError {
				return pair, 12
			}
		}
		return utf8.RuneError, 6
	}
	return rune(s[1]), 2 // '"', '\\' and '/' stand for themselves
}

// hex4 returns the value of four hex digits, or -1 if s is not that.
func hex4(s string) rune {
	if len(s) != 4 {
		return -1
	}
	var r rune
	for _, c := range []byte(s) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// DecodeString returns the decoded text of a valid JSON string literal (with
// its quotes): a substring of it when there is nothing to decode.
func DecodeString(lit string) string {
	s := lit[1 : len(lit)-1]
	if strings.IndexByte(s, '\\') < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(Unquote(s, nil))
	Unquote(s, &b)
	return b.String()
}
