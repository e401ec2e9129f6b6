package shaping

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

// Links maps the URIs of resource links and embedded resources in a result
// through the call's MapURI (the gateway's per-server URI form, so a client
// can read what a tool pointed to). A call without MapURI, or a result with
// nothing to change, passes as is; otherwise the result is a copy with the
// changed items replaced (the server's result is never modified).
func Links() Middleware {
	return onResult(func(_ context.Context, call Call, res *mcp.CallToolResult) *mcp.CallToolResult {
		if call.MapURI == nil {
			return res
		}
		var out *mcp.CallToolResult
		for i, c := range res.Content {
			mapped, changed := mapLink(callresult.Unwrap(c), call.MapURI)
			if !changed {
				continue
			}
			if out == nil {
				cp := *res
				cp.Content = append([]mcp.Content(nil), res.Content...)
				out = &cp
			}
			out.Content[i] = callresult.With(c, mapped)
		}
		if out == nil {
			return res
		}
		return out
	})
}

// mapLink returns c with its resource URI mapped, and whether it changed.
func mapLink(c mcp.Content, mapURI func(string) string) (mcp.Content, bool) {
	switch v := c.(type) {
	case mcp.ResourceLink:
		if u := mapURI(v.URI); u != v.URI {
			v.URI = u
			return v, true
		}
	case *mcp.ResourceLink:
		if v != nil {
			return mapLink(*v, mapURI)
		}
	case mcp.EmbeddedResource:
		switch r := v.Resource.(type) {
		case mcp.TextResourceContents:
			if u := mapURI(r.URI); u != r.URI {
				r.URI = u
				v.Resource = r
				return v, true
			}
		case mcp.BlobResourceContents:
			if u := mapURI(r.URI); u != r.URI {
				r.URI = u
				v.Resource = r
				return v, true
			}
		}
	case *mcp.EmbeddedResource:
		if v != nil {
			return mapLink(*v, mapURI)
		}
	}
	return c, false
}
