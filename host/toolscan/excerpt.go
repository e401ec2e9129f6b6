package toolscan

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// excerptChars is about how long an excerpt is, in characters.
const excerptChars = 120

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
