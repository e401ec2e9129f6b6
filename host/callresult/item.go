package callresult

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/lib/rawjson"
)

// rawItem is a content item whose JSON says more than its mcp-go type can
// hold: a member the type has no field for (a newer spec's, a vendor's),
// annotations with such a member, an embedded resource with one, a _meta
// number mcp-go's float64 would change. It holds the mcp-go value
// (Content) and encodes as the server's JSON with only the parts plughost
// may rewrite taken from Content: the text of a text item, the data of an
// image or audio item, the URI of a resource link, the URI and text or blob
// of an embedded resource, and, where they differ from the server's, the
// MIME type, a link's name and description. Every other member is written
// as the server sent it.
//
// Items that mcp-go's type holds exactly stay plain mcp-go values; only the
// others are rawItems. It never leaves the package: a Content keeps it
// (Content.from), plain reads the mcp-go value and rewrap puts a changed
// value back, so the server's other members stay.
type rawItem struct {
	mcp.Content
	// skeleton is the item as sent, its large strings (text, data, the
	// resource's text or blob) replaced by "": Content holds those, and a
	// second copy of a large text would double its memory.
	skeleton json.RawMessage
	// sent is the item as Decode made it (nil: Content is still that):
	// MarshalJSON writes a modelled field only where Content differs from
	// it. Comparing with the skeleton's member instead would write a
	// second member for one the server spelt in another case ("mimeTYpe"),
	// which encoding/json decodes into the same field.
	sent mcp.Content
}

// original returns the item as Decode made it.
func (it rawItem) original() mcp.Content {
	if it.sent != nil {
		return it.sent
	}
	return it.Content
}

// plain returns the mcp-go value of a content item: c itself, or a
// rawItem's Content.
func plain(c mcp.Content) mcp.Content {
	if it, ok := c.(rawItem); ok {
		return it.Content
	}
	return c
}

// rewrap returns v in the place of the item old: a rawItem with old's
// other members when old is a rawItem of the same mcp-go type, else v
// itself.
func rewrap(old, v mcp.Content) mcp.Content {
	it, ok := old.(rawItem)
	if !ok {
		return v
	}
	v = plain(v)
	if reflect.TypeOf(v) != reflect.TypeOf(it.Content) {
		return v
	}
	return rawItem{Content: v, skeleton: it.skeleton, sent: it.original()}
}

// MarshalJSON writes the server's item with the rewritable parts taken from
// Content (see rawItem).
func (it rawItem) MarshalJSON() ([]byte, error) {
	if it.skeleton == nil {
		return json.Marshal(it.Content)
	}
	out := it.skeleton
	var err error
	set := func(v any, path ...string) {
		if err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(v); err == nil {
			out, _ = rawjson.Replace(out, b, path...)
		}
	}
	// The item's other fields plughost's Content models are written only
	// when they differ from what the server's item decoded to, so an
	// unchanged one stays as sent.
	changed := func(v, was string, path ...string) {
		if err == nil && v != was {
			var b []byte
			if b, err = json.Marshal(v); err == nil {
				out = setMember(out, b, path...)
			}
		}
	}
	was := deref(plain(it.original()))
	switch v := it.Content.(type) {
	case mcp.TextContent:
		set(v.Text, "text")
	case mcp.ImageContent:
		w, _ := was.(mcp.ImageContent)
		set(v.Data, "data")
		changed(v.MIMEType, w.MIMEType, "mimeType")
	case mcp.AudioContent:
		w, _ := was.(mcp.AudioContent)
		set(v.Data, "data")
		changed(v.MIMEType, w.MIMEType, "mimeType")
	case mcp.ResourceLink:
		w, _ := was.(mcp.ResourceLink)
		set(v.URI, "uri")
		changed(v.Name, w.Name, "name")
		changed(v.MIMEType, w.MIMEType, "mimeType")
		changed(v.Description, w.Description, "description")
	case mcp.EmbeddedResource:
		w, _ := was.(mcp.EmbeddedResource)
		switch r := v.Resource.(type) {
		case mcp.TextResourceContents:
			wr, _ := w.Resource.(mcp.TextResourceContents)
			set(r.URI, "resource", "uri")
			set(r.Text, "resource", "text")
			changed(r.MIMEType, wr.MIMEType, "resource", "mimeType")
		case mcp.BlobResourceContents:
			wr, _ := w.Resource.(mcp.BlobResourceContents)
			set(r.URI, "resource", "uri")
			set(r.Blob, "resource", "blob")
			changed(r.MIMEType, wr.MIMEType, "resource", "mimeType")
		}
	default:
		return json.Marshal(it.Content)
	}
	if err != nil {
		return nil, fmt.Errorf("encode a content item: %w", err)
	}
	return out, nil
}

// setMember returns a copy of the object raw with value at path: in the
// place of the member there, or added at the end of its object when it is
// absent (raw returned as it is when that object is absent too).
func setMember(raw, value []byte, path ...string) []byte {
	if out, ok := rawjson.Replace(raw, value, path...); ok {
		return out
	}
	start, end := 0, len(raw)
	if parent := path[:len(path)-1]; len(parent) > 0 {
		var ok bool
		if start, end, ok = rawjson.Member(raw, parent...); !ok {
			return raw
		}
	}
	obj := bytes.TrimRight(raw[start:end], " \t\r\n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return raw
	}
	closing := start + len(obj) - 1
	key, _ := json.Marshal(path[len(path)-1]) // a string always encodes
	out := make([]byte, 0, len(raw)+len(key)+len(value)+2)
	out = append(out, raw[:closing]...)
	if len(bytes.TrimSpace(obj[1:len(obj)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, raw[closing:]...)
}

// largeStrings are the members whose values a rawItem takes from Content, so
// its skeleton holds "" in their place.
var largeStrings = [][]string{{"data"}, {"resource", "text"}, {"resource", "blob"}}

// skeletonOf returns a copy of the item raw with its large strings replaced
// by "" (the text of a text item is cut out by its caller, which knows
// where it is). It never shares raw's bytes.
func skeletonOf(raw []byte) json.RawMessage {
	out, copied := raw, false
	for _, path := range largeStrings {
		if s, e, ok := rawjson.Member(out, path...); ok && out[s] == '"' && e-s > 2 {
			out, _ = rawjson.Replace(out, []byte(`""`), path...)
			copied = true
		}
	}
	if !copied {
		out = bytes.Clone(raw)
	}
	return out
}

// exact reports whether mcp-go's type for the item skeleton holds all of
// it: decoded and encoded again, it gives the same JSON tree (numbers
// compared as written, so a precision float64 would lose counts).
func exact(skeleton []byte) bool {
	c, err := mcp.UnmarshalContent(skeleton)
	if err != nil {
		return false
	}
	again, err := json.Marshal(c)
	if err != nil {
		return false
	}
	a, errA := tree(skeleton)
	b, errB := tree(again)
	return errA == nil && errB == nil && reflect.DeepEqual(a, b)
}

// tree decodes JSON into maps, slices and json.Numbers.
func tree(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
