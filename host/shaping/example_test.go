package shaping_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/host/shaping"
)

// A middleware sees every call and its result on the way back. This one
// upper-cases the text items of one server's results; Chain puts it around
// the final handler, which in the host calls the server. Every item is a
// callresult.Content whatever the server sent with it, so checking Type
// finds every text item; changing a field keeps the rest of the item (its
// annotations, members mcp-go does not model) for the client. The Content
// slice is the inner link's, so it is copied before it is changed.
func ExampleChain() {
	shout := func(server string) shaping.Middleware {
		return func(next shaping.Handler) shaping.Handler {
			return func(ctx context.Context, call shaping.Call) (shaping.Result, error) {
				res, err := next(ctx, call)
				if err != nil || call.Server != server {
					return res, err
				}
				res.Content = slices.Clone(res.Content)
				for i, c := range res.Content {
					if c.Type == callresult.ContentText {
						res.Content[i].Text = strings.ToUpper(c.Text)
					}
				}
				return res, nil
			}
		}
	}
	final := func(_ context.Context, call shaping.Call) (shaping.Result, error) {
		// What a server sends: a text item with a member mcp-go has no
		// field for.
		raw := `{"content":[{"type":"text","text":"hello from ` + call.Tool + `","x-lang":"en"}]}`
		res, err := callresult.Decode([]byte(raw))
		return shaping.Result{Result: res}, err
	}
	h := shaping.Chain(final, shout("loud"))
	for _, server := range []string{"loud", "quiet"} {
		res, err := h(context.Background(), shaping.Call{Server: server, Tool: "greet", Name: "mcp_" + server + "_greet"})
		if err != nil {
			fmt.Println(err)
			continue
		}
		out, err := res.JSON()
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Text(), string(out))
	}
	// Output:
	// HELLO FROM GREET {"content":[{"type":"text","text":"HELLO FROM GREET","x-lang":"en"}]}
	// hello from greet {"content":[{"type":"text","text":"hello from greet","x-lang":"en"}]}
}
