package callresult

import (
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Result is a tool's answer as plughost handles it, from the decode of the
// server's message through result shaping to the front end: content items
// of plughost's own type, the structured content, and whether the tool
// itself failed. What the server sent beyond these fields (its _meta, a
// newer spec's or a vendor's members, an item's annotations) is kept inside
// the value, unexported: JSON writes the result with all of it, ToMCP
// converts it to mcp-go's type, FromMCP the other way.
//
// A Result is a value; its Content slice is shared by copies, so code that
// changes items of a result it did not make copies the slice first.
type Result struct {
	// Content is the result's items, in order.
	Content []Content
	// StructuredContent is the result's structuredContent as the server
	// sent it (or as result shaping replaced an oversized one); nil when
	// it has none.
	StructuredContent json.RawMessage
	// IsError is set when the tool reports its own failure.
	IsError bool

	// base holds the result's fields besides the three above, as mcp-go
	// decoded them (_meta, a multi round-trip's members); nil for none.
	// Its Content and structured content are always empty.
	base *mcp.CallToolResult
	// raw is what the server's result held at its top level as sent.
	raw rawMembers
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
// fields it uses. Change an item by changing its fields: what the server
// sent beyond them (annotations, _meta, members mcp-go does not model)
// stays with the item, and JSON writes it as the server sent it.
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
	// Description is a resource link's description.
	Description string

	// from is the item this one was made from, its large strings (text,
	// data, blob) left out since the fields above hold them: an mcp-go
	// value, or a rawItem when the server sent more than it models. Nil
	// for a new item, and for a plain text item.
	from mcp.Content
}

// NewText returns a new text item.
func NewText(text string) Content { return Content{Type: ContentText, Text: text} }

// NewTextResult returns a result of one text item.
func NewTextResult(text string) Result { return Result{Content: []Content{NewText(text)}} }

// Text returns the result's text items joined by newlines.
func (r Result) Text() string {
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

// FromMCP converts an mcp-go result; every field of its items is kept
// (ToMCP gives them back). A nil res is the zero Result.
func FromMCP(res *mcp.CallToolResult) Result {
	if res == nil {
		return Result{}
	}
	base := *res
	base.Content, base.StructuredContent, base.RawStructuredContent = nil, nil, nil
	r := Result{IsError: res.IsError, StructuredContent: rawStructured(res), base: &base}
	if len(res.Content) > 0 {
		r.Content = make([]Content, len(res.Content))
		for i, c := range res.Content {
			r.Content[i] = contentOf(c)
		}
	}
	return r
}

// ToMCP converts the result to mcp-go's type: plain mcp-go content values,
// with what Content does not model (annotations, _meta, a title) kept from
// the item it was made from.
func (r Result) ToMCP() *mcp.CallToolResult {
	res := r.toMCP()
	for i, c := range res.Content {
		res.Content[i] = plain(c)
	}
	return res
}

// JSON returns the result as an MCP client gets it: as the server sent it
// but for what plughost rewrote (result shaping's text, resource URIs, an
// oversized structuredContent) and for changes made to r — every member
// and item field mcp-go's types do not model included.
func (r Result) JSON() (json.RawMessage, error) {
	if b, ok := r.textJSON(); ok {
		return b, nil
	}
	return encode(r.toMCP(), r.raw)
}

// textJSON writes the commonest result — text items and nothing else, no
// member kept from the server beyond them — straight to bytes, as the
// general path (mcp-go's map-based encoder) would write it, byte for byte;
// ok is false for any other result.
func (r Result) textJSON() (json.RawMessage, bool) {
	if r.base != nil || !r.raw.empty() || r.StructuredContent != nil {
		return nil, false
	}
	size := 32
	for _, c := range r.Content {
		if c.Type != ContentText || c.from != nil {
			return nil, false
		}
		size += len(c.Text) + 32
	}
	out := make([]byte, 0, size)
	out = append(out, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			out = append(out, ',')
		}
		text, err := json.Marshal(c.Text)
		if err != nil { // a string always encodes
			return nil, false
		}
		out = append(append(append(out, `{"type":"text","text":`...), text...), '}')
	}
	out = append(out, ']')
	if r.IsError {
		out = append(out, `,"isError":true`...)
	}
	return append(out, '}'), true
}

// toMCP converts r to mcp-go's type, items the server sent with members
// mcp-go does not model staying rawItems.
func (r Result) toMCP() *mcp.CallToolResult {
	var res mcp.CallToolResult
	if r.base != nil {
		res = *r.base
	}
	res.IsError = r.IsError
	res.Content = make([]mcp.Content, len(r.Content))
	for i, c := range r.Content {
		res.Content[i] = c.toMCP()
	}
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

// contentOf converts one mcp-go item (or rawItem). The item kept as from
// leaves out the large strings the fields hold, so a shaped result whose
// text was replaced does not keep the server's text alive.
func contentOf(c mcp.Content) Content {
	var out Content
	var rest mcp.Content
	switch v := deref(plain(c)).(type) {
	case mcp.TextContent:
		out.Type, out.Text = ContentText, v.Text
		v.Text = ""
		rest = v
	case mcp.ImageContent:
		out.Type, out.Data, out.MIMEType = ContentImage, v.Data, v.MIMEType
		v.Data = ""
		rest = v
	case mcp.AudioContent:
		out.Type, out.Data, out.MIMEType = ContentAudio, v.Data, v.MIMEType
		v.Data = ""
		rest = v
	case mcp.ResourceLink:
		out.Type, out.URI, out.Name, out.MIMEType, out.Description = ContentResourceLink, v.URI, v.Name, v.MIMEType, v.Description
		rest = v
	case mcp.EmbeddedResource:
		out.Type = ContentResource
		switch rc := v.Resource.(type) {
		case mcp.TextResourceContents:
			out.URI, out.MIMEType, out.Text = rc.URI, rc.MIMEType, rc.Text
			rc.Text = ""
			v.Resource = rc
		case mcp.BlobResourceContents:
			out.URI, out.MIMEType, out.Data = rc.URI, rc.MIMEType, rc.Blob
			rc.Blob = ""
			v.Resource = rc
		}
		rest = v
	default:
		out.from = c
		return out
	}
	out.from = rewrap(c, rest)
	return out
}

// deref returns the value a pointer item points to (mcp-go accepts both).
func deref(c mcp.Content) mcp.Content {
	switch v := c.(type) {
	case *mcp.TextContent:
		if v != nil {
			return *v
		}
	case *mcp.ImageContent:
		if v != nil {
			return *v
		}
	case *mcp.AudioContent:
		if v != nil {
			return *v
		}
	case *mcp.ResourceLink:
		if v != nil {
			return *v
		}
	case *mcp.EmbeddedResource:
		if v != nil {
			return *v
		}
	}
	return c
}

// toMCP converts the item back: its fields over the item it was made from
// (whose other members stay), or a new mcp-go item.
func (c Content) toMCP() mcp.Content {
	base := plain(c.from)
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
		l.Type, l.URI, l.Name, l.MIMEType, l.Description = mcp.ContentTypeLink, c.URI, c.Name, c.MIMEType, c.Description
		v = l
	case ContentResource:
		v = c.embedded(base)
	default:
		return c.from
	}
	if c.from == nil {
		return v
	}
	return rewrap(c.from, v)
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

// Meta returns the result's _meta as mcp-go decoded it, nil when it has
// none. The caller must not change it; WithMeta replaces it.
func (r Result) Meta() *mcp.Meta {
	if r.base == nil {
		return nil
	}
	return r.base.Meta
}

// WithMeta returns r with its _meta replaced by m (nil removes it); r
// itself is unchanged.
func (r Result) WithMeta(m *mcp.Meta) Result {
	var base mcp.CallToolResult
	if r.base != nil {
		base = *r.base
	}
	base.Meta = m
	r.base = &base
	return r
}
