package shaping

import (
	"context"
	"slices"

	"github.com/plughost/plughost/host/callresult"
)

// Links maps the URIs of resource links and embedded resources in a result
// through the call's MapURI (the gateway's per-server URI form, so a client
// can read what a tool pointed to). A call without MapURI, or a result with
// nothing to change, passes as is; otherwise the result is a copy with the
// changed items replaced (the server's result is never modified).
func Links() Middleware {
	return onResult(func(_ context.Context, call Call, res callresult.Result) callresult.Result {
		if call.MapURI == nil {
			return res
		}
		var out []callresult.Content
		for i, c := range res.Content {
			if c.Type != callresult.ContentResourceLink && c.Type != callresult.ContentResource {
				continue
			}
			u := call.MapURI(c.URI)
			if u == c.URI {
				continue
			}
			if out == nil {
				out = slices.Clone(res.Content)
			}
			out[i].URI = u
		}
		if out != nil {
			res.Content = out
		}
		return res
	})
}
