package host

import (
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

// ToolResult is a tool's answer as plughost hands it over: content items of
// plughost's own type, the structured content, and whether the tool itself
// failed. JSON writes it for an MCP client with every member of the
// server's result that plughost did not rewrite; ToMCP converts it to
// mcp-go's type for code built on mcp-go (FromMCP the other way).
type ToolResult struct {
	// Content is the result's items, in order.
	Content []Content
	// StructuredContent is the result's structuredContent as the server
	// sent it (or as result shaping replaced an oversized one); nil when
	// it has none.
	StructuredContent json.RawMessage
	// IsError is set when the tool reports its own failure.
	IsError bool

	// from is the result this one was made from and extra what the
	// server's result held beyond it: JSON and ToMCP keep from them what
	// Content does not model (annotations, _meta, a newer spec's members).
	from  *mcp.CallToolResult
	extra callresult.Extra
}

// The content item types (Content.Type), as MCP names them.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource" // an embedded resource
)

// Content is one item of a tool's result; Type (ContentText, …) says which
// fields it uses.
type Content struct {
	// Type is the item's type: ContentText, ContentImage, ContentAudio,
	// ContentResourceLink or ContentResource; empty for an item of another
	// kind, which is passed on as it came.
	Type string
	// Text is a text item's text, or an embedded text resource's.
	Text string
	// Data is an image's or audio's base64 data, or an embedded binary
	// resource's blob.
	Data string
	// MIMEType is the item's MIME type (of the resource, for a link or an
	// embedded resource).
	MIMEType string
	// URI is a resource link's or an embedded resource's URI.
	URI string
	// Name is a resource link's name.
	Name string

	// from is the item this one was made from (nil for a new item).
	from mcp.Content
}

// Text returns the result's text items joined by newlines.
func (r ToolResult) Text() string {
	var b strings.Builder
	n := 0
	for _, c := range r.Content {
		if c.Type != ContentText {
			continue
		}
		if n++; n > 1 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// newToolResult makes a ToolResult of an mcp-go result (as shaped) and what
// the server's result held beyond it.
func newToolResult(res *mcp.CallToolResult, extra callresult.Extra) ToolResult {
	if res == nil {
		return ToolResult{}
	}
	r := ToolResult{IsError: res.IsError, from: res, extra: extra}
	if len(res.Content) > 0 {
		r.Content = make([]Content, len(res.Content))
		for i, c := range res.Content {
			r.Content[i] = contentOf(c)
		}
	}
	r.StructuredContent = rawStructured(res)
	return r
}

// DecodeToolResult decodes a tools/call result as an MCP server sends it
// (JSON writes it back as it was). It takes ownership of raw: a large
// text's bytes are shared, not copied (callresult.Decode).
func DecodeToolResult(raw []byte) (ToolResult, error) {
	res, extra, err := callresult.Decode(raw)
	if err != nil {
		return ToolResult{}, err
	}
	return newToolResult(res, extra), nil
}

// FromMCP converts an mcp-go result to a ToolResult; every field of its
// items is kept (ToMCP gives them back).
func FromMCP(res *mcp.CallToolResult) ToolResult { return newToolResult(res, callresult.Extra{}) }

// ToMCP converts the result to mcp-go's type: plain mcp-go content values,
// with what Content does not model (annotations, _meta, a title) kept from
// the result it was made from.
func (r ToolResult) ToMCP() *mcp.CallToolResult {
	res := r.toMCP()
	for i, c := range res.Content {
		res.Content[i] = callresult.Unwrap(c)
	}
	return res
}

// JSON returns the result as an MCP client gets it: as the server sent it
// but for what plughost rewrote (result shaping's text, resource URIs, an
// oversized structuredContent) and for changes made to r — every member
// and item field mcp-go's types do not model included (callresult.Encode).
func (r ToolResult) JSON() (json.RawMessage, error) { return callresult.Encode(r.toMCP(), r.extra) }

// toMCP converts r to mcp-go's type, items the server sent with members
// mcp-go does not model staying callresult.Items.
func (r ToolResult) toMCP() *mcp.CallToolResult {
	var res mcp.CallToolResult
	if r.from != nil {
		res = *r.from
	}
	res.IsError = r.IsError
	res.Content = make([]mcp.Content, len(r.Content))
	for i, c := range r.Content {
		res.Content[i] = c.toMCP()
	}
	res.StructuredContent, res.RawStructuredContent = nil, nil
	if r.StructuredContent != nil {
		res.StructuredContent, res.RawStructuredContent = r.StructuredContent, r.StructuredContent
	}
	return &res
}

// rawStructured returns res's structuredContent as JSON.
func rawStructured(res *mcp.CallToolResult) json.RawMessage {
	if res.RawStructuredContent != nil {
		return res.RawStructuredContent
	}
	switch v := res.StructuredContent.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil
	}
	return b
}

// contentOf converts one mcp-go item (or callresult.Item).
func contentOf(c mcp.Content) Content {
	out := Content{from: c}
	switch v := callresult.Unwrap(c).(type) {
	case mcp.TextContent:
		out.Type, out.Text = ContentText, v.Text
	case mcp.ImageContent:
		out.Type, out.Data, out.MIMEType = ContentImage, v.Data, v.MIMEType
	case mcp.AudioContent:
		out.Type, out.Data, out.MIMEType = ContentAudio, v.Data, v.MIMEType
	case mcp.ResourceLink:
		out.Type, out.URI, out.Name, out.MIMEType = ContentResourceLink, v.URI, v.Name, v.MIMEType
	case mcp.EmbeddedResource:
		out.Type = ContentResource
		switch rc := v.Resource.(type) {
		case mcp.TextResourceContents:
			out.URI, out.MIMEType, out.Text = rc.URI, rc.MIMEType, rc.Text
		case mcp.BlobResourceContents:
			out.URI, out.MIMEType, out.Data = rc.URI, rc.MIMEType, rc.Blob
		}
	}
	return out
}

// toMCP converts the item back: its fields over the item it was made from
// (whose other members stay), or a new mcp-go item.
func (c Content) toMCP() mcp.Content {
	base := callresult.Unwrap(c.from)
	var v mcp.Content
	switch c.Type {
	case ContentText:
		t, _ := base.(mcp.TextContent)
		t.Type, t.Text = mcp.ContentTypeText, c.Text
		v = t
	case ContentImage:
		img, _ := base.(mcp.ImageContent)
		img.Type, img.Data, img.MIMEType = mcp.ContentTypeImage, c.Data, c.MIMEType
		v = img
	case ContentAudio:
		a, _ := base.(mcp.AudioContent)
		a.Type, a.Data, a.MIMEType = mcp.ContentTypeAudio, c.Data, c.MIMEType
		v = a
	case ContentResourceLink:
		l, _ := base.(mcp.ResourceLink)
		l.Type, l.URI, l.Name, l.MIMEType = mcp.ContentTypeLink, c.URI, c.Name, c.MIMEType
		v = l
	case ContentResource:
		v = c.embedded(base)
	default:
		return c.from
	}
	if c.from == nil {
		return v
	}
	return callresult.With(c.from, v)
}

// embedded converts an embedded resource item over base.
func (c Content) embedded(base mcp.Content) mcp.Content {
	e, _ := base.(mcp.EmbeddedResource)
	e.Type = mcp.ContentTypeResource
	_, isBlob := e.Resource.(mcp.BlobResourceContents)
	if isBlob || (e.Resource == nil && c.Data != "") {
		b, _ := e.Resource.(mcp.BlobResourceContents)
		b.URI, b.MIMEType, b.Blob = c.URI, c.MIMEType, c.Data
		e.Resource = b
		return e
	}
	t, _ := e.Resource.(mcp.TextResourceContents)
	t.URI, t.MIMEType, t.Text = c.URI, c.MIMEType, c.Text
	e.Resource = t
	return e
}
