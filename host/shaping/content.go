package shaping

import (
	"strings"

	"github.com/plughost/plughost/host/callresult"
)

// textOf returns the text items of res joined with "\n", and how many there
// are. A single item's text is returned as it is, not copied.
func textOf(res callresult.Result) (string, int) {
	var parts []string
	for _, c := range res.Content {
		if c.Type == callresult.ContentText {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 1 {
		return parts[0], 1
	}
	return strings.Join(parts, "\n"), len(parts)
}

// withText returns a copy of res whose text items are replaced by one item
// holding text, at the place of the first (keeping what the server sent
// with it: annotations, _meta, members mcp-go does not model); other
// content keeps its order. A result without text gets the item first. res
// itself is not changed.
func withText(res callresult.Result, text string) callresult.Result {
	out := make([]callresult.Content, 0, len(res.Content)+1)
	placed := false
	for _, c := range res.Content {
		if c.Type != callresult.ContentText {
			out = append(out, c)
			continue
		}
		if !placed {
			c.Text = text
			out = append(out, c)
			placed = true
		}
	}
	if !placed {
		out = append([]callresult.Content{callresult.NewText(text)}, out...)
	}
	res.Content = out
	return res
}
