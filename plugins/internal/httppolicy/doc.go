// Package httppolicy holds the HTTP safety rules shared by the remote transport
// plugins (sse and streamable http): which headers a request carries, which
// origin may receive the configured headers, and which redirects are followed.
//
// The plugins hand the *http.Client built by [NewClient] to mcp-go
// (transport.WithHTTPClient for SSE, transport.WithHTTPBasicClient for
// streamable HTTP) and must not also pass the configured headers through
// mcp-go's own header options: mcp-go sets those after its protocol headers
// and on every request whatever its origin, which would break both the
// precedence rule and the origin rule enforced here.
//
// The rules, from the transport section of the spec:
//
//   - Configured headers are applied to every request sent to the server's
//     origin (scheme, host and effective port of the configured URL) and never
//     to another origin. The https upgrade of an http origin (same host, same
//     port or 80 → 443) counts as the server's origin, since that is where the
//     one redirect we follow leads.
//   - Protocol headers ([IsProtocolHeader]) already on a request win over a
//     configured header of the same name; every other configured header
//     replaces what the request carries.
//   - Only an http → https redirect to the same host and effective port is
//     followed, at most once, and only when it keeps the method (and body);
//     any other redirect fails the request with a [*RedirectError].
//
// Header values are secrets: nothing in this package logs them or puts them
// in an error.
package httppolicy
