// Package oauth is the OAuth 2.1 client plughost uses to log in to remote MCP
// servers, as the MCP authorization spec (2025-11-25) describes it:
//
//   - discovery of the protected resource's metadata (RFC 9728: the
//     resource_metadata URL of the server's WWW-Authenticate challenge, then
//     the path-suffixed well-known URL, then the root one) and of its
//     authorization server's metadata (RFC 8414 path-inserted, then OpenID
//     Connect discovery; for an issuer without a path, the root well-known
//     URLs), with the issuer checked against the metadata;
//   - dynamic client registration (RFC 7591) when no client id is
//     configured, or a client id metadata document URL where the server
//     supports one;
//   - the authorization-code flow with PKCE S256, state, and the RFC 8707
//     resource indicator, answered on a loopback callback server
//     (127.0.0.1) or by a redirect URL the user pastes;
//   - token exchange and refresh through golang.org/x/oauth2.
//
// The package holds no state between calls and knows nothing of plughost's
// servers or token files (package tokens owns those). Tokens and client
// secrets never appear in its errors.
package oauth
