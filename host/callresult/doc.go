// Package callresult is the result of an MCP tools/call as plughost handles
// it: Result, with content items of plughost's own type (Content), from the
// decode of the server's message through result shaping (host/shaping) to
// the front ends (host.ToolResult is the same type).
//
// Decode reads a result from its raw JSON without the copies a generic
// decode makes: a text item of many megabytes is decoded into the message's
// own bytes and shared (decoding a 50 MB text result allocates a few
// hundred bytes), and structuredContent is kept as the raw JSON the server
// sent. What the server sent beyond the fields Result and Content model
// (an item's annotations and _meta, members of a newer spec or a vendor,
// the result's own _meta and members) stays inside the values, unexported,
// so Result.JSON writes the result back as the server sent it but for what
// plughost rewrote. ToMCP and FromMCP convert to and from mcp-go's types.
package callresult
