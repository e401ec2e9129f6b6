package shaping

import (
	"context"
	"fmt"
	"strings"

	"github.com/plughost/plughost/host/callresult"
)

// Thresholds of Sanitize.
const (
	// MinBase64Run is the shortest run of base64 characters (with upper
	// case, lower case and digits in it) that Sanitize replaces.
	MinBase64Run = 1024
	// MinDataURLPayload is the shortest data: URL payload Sanitize replaces;
	// shorter ones cost the model less than a placeholder would.
	MinDataURLPayload = 32
	// maxMediaType bounds the media type of a data: URL.
	maxMediaType = 128
)

// Sanitize makes text content fit for a model: data: URLs and long base64
// runs become short placeholders saying what was removed, and each resource
// link gets a one-line text summary after it. Images, audio and embedded
// resources are kept for the caller as they are and never turned into text.
// When data was removed, the full text is kept as the payload to save, so
// nothing is lost.
func Sanitize() Middleware {
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		out, removed, changed := sanitizeContent(res.Content)
		if !changed {
			return res
		}
		if removed {
			rec := call.record()
			text, _ := textOf(res)
			rec.keepPayload(text)
			rec.sanitized = true
		}
		res.Content = out
		return res
	})
}

// sanitizeContent returns a new content list; removed says whether data was
// taken out of a text, changed whether anything differs.
func sanitizeContent(in []callresult.Content) (out []callresult.Content, removed, changed bool) {
	out = make([]callresult.Content, 0, len(in))
	for _, c := range in {
		switch c.Type {
		case callresult.ContentText:
			if clean, did := SanitizeText(c.Text); did {
				c.Text, removed, changed = clean, true, true
			}
			out = append(out, c)
		case callresult.ContentResourceLink:
			out = append(out, c, callresult.NewText(linkSummary(c)))
			changed = true
		default:
			out = append(out, c)
		}
	}
	return out, removed, changed
}

// linkSummary is the line of text that follows the resource link l.
func linkSummary(l callresult.Content) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	if l.Name != "" {
		b.WriteString(l.Name + " ")
	}
	b.WriteString("<" + l.URI + ">")
	if l.MIMEType != "" {
		b.WriteString(" (" + l.MIMEType + ")")
	}
	if l.Description != "" {
		b.WriteString(": " + l.Description)
	}
	b.WriteString("]")
	return b.String()
}

// Character classes for the scanner.
const (
	clLower = 1 << iota
	clUpper
	clDigit
	clSym // '+' and '/'
	clB64 = clLower | clUpper | clDigit | clSym
)

var classes = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	t['+'], t['/'] = clSym, clSym
	return t
}()

// SanitizeText replaces data: URLs with a payload of at least
// MinDataURLPayload characters by "[data URL removed: <media type>, N chars]"
// and runs of at least MinBase64Run base64 characters that mix upper case,
// lower case and digits by "[base64 data removed: N chars]". It reports
// whether it replaced anything; it runs in one pass, in linear time.
func SanitizeText(s string) (string, bool) {
	var b strings.Builder
	done := 0 // s[:done] is already in b
	for i := 0; i < len(s); {
		if classes[s[i]]&clB64 == 0 {
			i++
			continue
		}
		j, seen := i, uint8(0)
		for j < len(s) && classes[s[j]]&clB64 != 0 {
			seen |= classes[s[j]]
			j++
		}
		end, placeholder := j, ""
		switch {
		case j-i == 4 && j < len(s) && s[j] == ':' && strings.EqualFold(s[i:j], "data"):
			end, placeholder = dataURL(s, i)
		case j-i >= MinBase64Run && seen&(clLower|clUpper|clDigit) == clLower|clUpper|clDigit:
			for end < len(s) && end-j < 2 && s[end] == '=' {
				end++
			}
			placeholder = fmt.Sprintf("[base64 data removed: %d chars]", end-i)
		}
		if placeholder == "" {
			i = j
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s) / 2)
		}
		b.WriteString(s[done:i])
		b.WriteString(placeholder)
		done, i = end, end
	}
	if done == 0 {
		return s, false
	}
	b.WriteString(s[done:])
	return b.String(), true
}

// dataURL parses a data: URL starting at s[i] ("data:<media type>,<payload>")
// and returns its end and placeholder, or a placeholder of "" when it is no
// data URL or its payload is short.
func dataURL(s string, i int) (int, string) {
	start := i + len("data:")
	comma := start
	for comma < len(s) && comma-start <= maxMediaType && isMediaTypeChar(s[comma]) {
		comma++
	}
	if comma >= len(s) || s[comma] != ',' || comma-start > maxMediaType {
		return i + 4, ""
	}
	end := comma + 1
	for end < len(s) && !isURLEnd(s[end]) {
		end++
	}
	if end-comma-1 < MinDataURLPayload {
		return i + 4, ""
	}
	media := s[start:comma]
	if media == "" {
		media = "text/plain"
	}
	return end, fmt.Sprintf("[data URL removed: %s, %d chars]", media, end-i)
}

func isMediaTypeChar(c byte) bool {
	return classes[c]&(clLower|clUpper|clDigit) != 0 || strings.IndexByte("!#$&^_.+-/;=", c) >= 0
}

func isURLEnd(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'`<>()[]{}\\", c) >= 0
}
