// Package shaping is the middleware chain every MCP tool call runs through:
// it keeps oversized results from flooding the model without losing any of
// them.
//
// A Middleware is func(next Handler) Handler, net/http style, built once
// when the host is configured. A Handler answers a Result, which carries the
// tool result as plughost's own callresult.Result: links read and rewrite
// its fields (Content and its items' Type, Text, URI …, StructuredContent,
// IsError), and what the server sent beyond them stays inside the value,
// so the client still gets it (callresult.Result.JSON). Chain(final, m1, m2, …) makes m1 the
// outermost: it sees the call first and the result last. Shaping works on
// results, which travel from the innermost link outwards, so the order of
// New's chain (outermost first) is
//
//	Recover, Timeout, LogMetrics, Structured, Bound, Spillover, Artifact, Sanitize, Unwrap, Links
//
// and a result from the server meets them in reverse:
//
//  0. Links maps the URIs of resource links and embedded resources through
//     the call's MapURI (the gateway's per-server URI form), so everything
//     after it — the link summaries of Sanitize too — shows the URIs a
//     client can read.
//  1. Unwrap rewrites an oversized text that is a JSON object
//     {"result": "<text>", <known keys>…} into the text with real newlines
//     plus a <mcp-result-metadata> block with the other keys.
//  2. Sanitize replaces data: URLs and long base64 runs in text with short
//     placeholders and adds a one-line summary after each resource link;
//     images, audio and embedded resources stay as they are, for the caller.
//  3. Artifact writes the full payload (the unwrapped text, before
//     sanitizing) to <workspace>/.artifacts/mcp/ when the text is over
//     budget or sanitizing removed something.
//  4. Spillover writes it to <workspace>/.artifacts/tool/ if that failed.
//  5. Bound keeps the first 40% and the last 60% of the budget around
//     "[MCP RESULT TRUNCATED - N chars omitted out of T total]" and ends the
//     text with the [file:<path>] reference, or says why the payload could
//     not be saved.
//  6. Structured bounds an oversized structuredContent: saved whole as an
//     artifact, then cut (long strings shortened, when the tool's
//     outputSchema still accepts the copy) or taken out of the result, with
//     a line in the text saying so.
//
// The links share one per-call record (the payload to save, the file it went
// to, why saving failed), installed by Chain; each link still works alone.
// No link mutates a result it did not create: a rewrite copies the Content
// slice before changing an item; _meta and the result's other members are
// passed through untouched (no link can reach them), and structuredContent
// too unless it is over the budget (Structured).
package shaping
