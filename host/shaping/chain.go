package shaping

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/callresult"
)

// Call is one tool call as it travels through the chain.
type Call struct {
	// Server is the configured server name.
	Server string
	// Tool is the server's own tool name.
	Tool string
	// Name is the agent-facing tool name (mcp_<server>_<tool>).
	Name string
	// Args are the call's JSON arguments.
	Args json.RawMessage
	// OutputSchema is the tool's outputSchema as the server listed it, nil
	// when it declares none (Structured keeps results valid against it).
	OutputSchema json.RawMessage
	// MapURI, when set, maps the URIs of resource links and embedded
	// resources in the result as the client must see them (Links).
	MapURI func(uri string) string
	// Meta is the request's _meta as the server gets it (a progress
	// token, …); nil for none.
	Meta json.RawMessage
	// OnID, when set, is called with the JSON-RPC id of the tools/call
	// sent to the server, before it is sent, so the caller can tie the
	// server's requests during the call to it.
	OnID func(id string)
	// Session is the id of the session making the call: a server with
	// isolation "session" runs it on that session's own connection.
	Session string
	// Client is the named gateway client making the call ("" for the
	// administrator or an embedding agent): its payloads are saved where
	// only it can read them (see ClientSaver).
	Client string

	// rec is what the chain's links of this call tell each other; nil
	// outside a Chain.
	rec *record
}

// Result is what a Handler answers a call with: the tool's result, which
// the links inspect and rewrite through its fields (Content, its items'
// Text and URI, StructuredContent, IsError — a tool's own failure has
// IsError set), and its size. What the server sent beyond those fields
// stays inside the callresult.Result, so its JSON is the server's result
// but for what the links rewrote.
type Result struct {
	callresult.Result
	// Size is about how many bytes of memory the server's result held
	// (text, binary data, structured content), as the last link measured
	// it; 0 when it did not.
	Size int
}

// Handler runs a tool call. A tool's own failure is a result with IsError;
// an error means the call could not be made or completed.
type Handler func(ctx context.Context, call Call) (Result, error)

// Middleware wraps a Handler. A disabled middleware returns next unchanged.
type Middleware func(next Handler) Handler

// Chain wraps final in mws, the first being the outermost, and gives every
// call a fresh per-call record shared by the links.
func Chain(final Handler, mws ...Middleware) Handler {
	h := final
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return func(ctx context.Context, call Call) (Result, error) {
		call.rec = &record{}
		return h(ctx, call)
	}
}

// record is what the shaping links of one call tell each other.
type record struct {
	// unwrapped is set when Unwrap rewrote the text.
	unwrapped bool
	// payload is the full text to save, set by the first link that changes
	// the text (the unwrapped text, before sanitizing); havePayload says it
	// is set.
	payload     string
	havePayload bool
	// sanitized is set when Sanitize removed data from the text.
	sanitized bool
	// path is where the payload was saved; kind is its artifact kind.
	path, kind string
	// saveErrs are the failed attempts to save it, in order.
	saveErrs []error
	// truncated and omitted describe what Bound cut.
	truncated bool
	omitted   int
}

// record returns the call's record, or a private one when the link runs
// outside a Chain (so every link works alone).
func (c Call) record() *record {
	if c.rec != nil {
		return c.rec
	}
	return &record{}
}

// keepPayload records text as the payload to save unless an inner link
// already recorded one.
func (r *record) keepPayload(text string) {
	if !r.havePayload {
		r.payload, r.havePayload = text, true
	}
}

// needsSaving reports whether the payload must be written to disk.
func (r *record) needsSaving(textChars, budget int) bool {
	return textChars > budget || r.sanitized || r.unwrapped
}

// Options configure the chain New builds.
type Options struct {
	// MaxInlineChars is the character budget of a result's text
	// (tools.mcp.max_inline_text_chars).
	MaxInlineChars int
	// Saver keeps full payloads; nil disables Artifact and Spillover.
	Saver Saver
	// Logger receives the chain's logs; nil discards them.
	Logger hclog.Logger
	// Metrics receives the counts; nil counts nothing.
	Metrics *Metrics
	// CallTimeout bounds each whole call; nil means no bound of the chain's
	// own.
	CallTimeout func(Call) time.Duration
}

// New builds the standard chain around final, in the order explained in
// the package documentation.
func New(final Handler, o Options) Handler { return Chain(final, Standard(o)...) }

// Standard returns the standard links, outermost first.
func Standard(o Options) []Middleware {
	b := o.MaxInlineChars
	return []Middleware{
		Recover(o.Logger),
		Timeout(o.CallTimeout),
		LogMetrics(o.Logger, o.Metrics),
		Structured(b, o.Saver),
		Bound(b),
		Spillover(o.Saver),
		Artifact(b, o.Saver),
		Sanitize(),
		Unwrap(b),
		Links(),
	}
}

// onResult returns a middleware that runs the next handler and passes each
// result it returns (not an error) through f.
func onResult(f func(ctx context.Context, call Call, res callresult.Result) callresult.Result) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, call Call) (Result, error) {
			res, err := next(ctx, call)
			if err != nil {
				return res, err
			}
			res.Result = f(ctx, call, res.Result)
			return res, nil
		}
	}
}
