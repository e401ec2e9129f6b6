// Package naming turns the tools of MCP servers into agent tool names of the form
// mcp_<server>_<tool>.
//
// Each component is cleaned by [Sanitize]: characters outside [A-Za-z0-9_-] become "_",
// runs of "_" collapse, outer "_" are trimmed and an empty component becomes "unnamed".
// Case is kept. A name gets a suffix of "_" and 8 lowercase hex characters (the first four
// bytes of the SHA-256 of the original server+"\x00"+tool) when sanitizing changed one of
// its components, when it would exceed [MaxLen], or when another pair of the set would get
// the same plain name. The part before the suffix is cut so the whole fits in [MaxLen].
//
// [Assign] is a pure function of the set of pairs: neither input order nor duplicates
// change the result. Adding a pair can change the names of pairs it collides with, so
// callers rebuild the [Table] from the whole set whenever a server's tools change.
//
// Names map back to pairs through a [Table], never by splitting the string: both
// components may themselves contain "_".
package naming
