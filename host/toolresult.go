package host

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

// ToolResult is a tool's answer as plughost hands it over: content items of
// plughost's own type, the structured content, and whether the tool itself
// failed. JSON writes it for an MCP client with every member of the
// server's result that plughost did not rewrite; ToMCP converts it to
// mcp-go's type for code built on mcp-go (FromMCP the other way). It is
// callresult.Result, the type of the whole call path: result shaping
// (host/shaping) works on the same value.
type ToolResult = callresult.Result

// Content is one item of a tool's result; Type (ContentText, …) says which
// fields it uses (callresult.Content).
type Content = callresult.Content

// The content item types (Content.Type), as MCP names them.
const (
	ContentText         = callresult.ContentText
	ContentImage        = callresult.ContentImage
	ContentAudio        = callresult.ContentAudio
	ContentResourceLink = callresult.ContentResourceLink
	ContentResource     = callresult.ContentResource // an embedded resource
)

// DecodeToolResult decodes a tools/call result as an MCP server sends it
// (JSON writes it back as it was). It takes ownership of raw: a large
// text's bytes are shared, not copied (callresult.Decode).
func DecodeToolResult(raw []byte) (ToolResult, error) { return callresult.Decode(raw) }

// FromMCP converts an mcp-go result to a ToolResult; every field of its
// items is kept (ToMCP gives them back).
func FromMCP(res *mcp.CallToolResult) ToolResult { return callresult.FromMCP(res) }
