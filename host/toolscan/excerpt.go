package toolscan

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// excerptChars is about how long an excerpt is, in characters.
const excerptChars = 120

// Visible returns s with the characters the hidden-text rule looks for
// (zero-width, bidi, tag and control characters) written as <U+XXXX>, so
// a tool name can be shown as what it is.
func Visible(s string) string {
	if hiddenChar(s) == nil {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// excerpt returns the text around s[loc[0]:loc[1]]: from a little before
// the match, at most about excerptChars characters, on one line, with
// invisible characters written as <U+XXXX> so a reader sees them.
func excerpt(s string, loc []int) string {
	start := loc[0]
	for n := 0; start > 0 && n < 24; n++ { // a little context before
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	n := 0
	rest := s[start:]
	for i, r := range rest {
		if n >= excerptChars {
			if strings.TrimSpace(rest[i:]) != "" {
				b.WriteString("…")
			}
			break
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			if !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
				n++
			}
		case invisible(r):
			code := fmt.Sprintf("<U+%04X>", r)
			b.WriteString(code)
			n += len(code)
		default:
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}
