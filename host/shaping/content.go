package shaping

import (
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

// textOf returns the text items of res joined with "\n", and how many there
// are.
func textOf(res *mcp.CallToolResult) (string, int) {
	var parts []string
	for _, c := range res.Content {
		if t, ok := asText(c); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 1 {
		return parts[0], 1
	}
	return strings.Join(parts, "\n"), len(parts)
}

// asText returns the text item c (a callresult.Item holding one too).
func asText(c mcp.Content) (mcp.TextContent, bool) {
	switch v := callresult.Unwrap(c).(type) {
	case mcp.TextContent:
		return v, true
	case *mcp.TextContent:
		if v != nil {
			return *v, true
		}
	}
	return mcp.TextContent{}, false
}

// withText returns a copy of res whose text items are replaced by one item
// holding text, at the place of the first (keeping its annotations, _meta
// and any member mcp-go does not model); other content keeps its order. A result without text gets the
// item first. res itself is not changed.
func withText(res *mcp.CallToolResult, text string) *mcp.CallToolResult {
	cp := *res
	cp.Content = make([]mcp.Content, 0, len(res.Content)+1)
	placed := false
	for _, c := range res.Content {
		t, ok := asText(c)
		if !ok {
			cp.Content = append(cp.Content, c)
			continue
		}
		if !placed {
			t.Text = text
			cp.Content = append(cp.Content, callresult.With(c, t))
			placed = true
		}
	}
	if !placed {
		cp.Content = append([]mcp.Content{mcp.NewTextContent(text)}, cp.Content...)
	}
	return &cp
}
