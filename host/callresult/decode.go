package callresult

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/lib/rawjson"
)

// Decode decodes raw, the "result" value of a tools/call response, and takes
// ownership of it: text items are decoded in place and their Text shares
// raw's bytes, so the caller must not change or reuse raw afterwards.
//
// The result holds what mcp.ParseCallToolResult would (ToMCP gives it, field
// for field), but for structuredContent, kept as the JSON the server sent
// (byte-faithful; it shares raw's bytes only when it is most of the
// message), and for what mcp-go's types cannot hold: item members, the
// result's own members, its _meta and isError as sent, which the Result
// keeps so that JSON writes the result as the server sent it but for what
// plughost rewrote.
func Decode(raw []byte) (Result, error) {
	d := decoder{raw: raw, view: rawjson.View(raw)}
	if err := d.result(); err != nil {
		return Result{}, fmt.Errorf("malformed tools/call result: %w", err)
	}
	d.extra.meta, d.extra.isError = d.res.Meta, d.res.IsError
	return d.finish(), nil
}

// decoder holds one decode. The view shares raw's bytes; it is not used
// once the texts are decoded in place (finish).
type decoder struct {
	raw   []byte
	view  string
	res   mcp.CallToolResult // the fields besides content and structuredContent
	items []Content
	sc    json.RawMessage
	extra rawMembers
	texts []textSpan
}

// textSpan is a text item whose literal is decoded at the end.
type textSpan struct {
	item       int // index in items
	start, end int // the literal's bounds in raw
}

func (d *decoder) result() error {
	var err error
	sawContent := false
	ok := rawjson.ScanMembers(d.view, func(key string, start, end int) bool {
		v := d.view[start:end]
		switch key {
		case "content":
			sawContent = true
			err = d.content(start, end)
		case "structuredContent":
			sc := json.RawMessage(d.raw[start:end:end]) // even null: kept as sent
			if 4*len(sc) < len(d.raw) {
				// Small beside the message: a copy, so it does not keep a
				// large text's buffer alive after the text is dropped.
				sc = append(json.RawMessage(nil), sc...)
			}
			d.sc = sc
		case "isError":
			err = json.Unmarshal([]byte(v), &d.res.IsError)
			d.keep(key, start, end)
		case "_meta":
			err = json.Unmarshal([]byte(v), &d.res.Meta)
			d.keep(key, start, end)
		case "resultType", "inputRequests", "requestState":
			// Decoded for Go callers as mcp-go does; written as sent.
			err = d.multiRoundTrip(key, v)
			d.keep(key, start, end)
		default:
			d.keep(key, start, end)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return err
	case !ok:
		return errors.New("not a valid JSON object")
	case !sawContent:
		return errors.New(`"content" is missing`)
	}
	return nil
}

// multiRoundTrip decodes a member of a multi round-trip result (SEP-2322).
func (d *decoder) multiRoundTrip(key, v string) error {
	switch key {
	case "resultType":
		return json.Unmarshal([]byte(v), &d.res.ResultType)
	case "inputRequests":
		return json.Unmarshal([]byte(v), &d.res.InputRequests)
	}
	return json.Unmarshal([]byte(v), &d.res.RequestState)
}

// keep records a top-level member as the server sent it, in d.extra. A
// copy, unless it is most of the message: a large member of its own would
// otherwise be held twice.
func (d *decoder) keep(key string, start, end int) {
	v := json.RawMessage(d.raw[start:end:end])
	if 4*len(v) < len(d.raw) {
		v = append(json.RawMessage(nil), v...)
	}
	d.extra.members = append(d.extra.members, member{key: key, value: v})
}

// content decodes the content array at raw[start:end].
func (d *decoder) content(start, end int) error {
	if d.view[start:end] == "null" {
		return nil
	}
	var err error
	ok := rawjson.ScanElements(d.view[start:end], func(s, e int) bool {
		err = d.item(start+s, start+e)
		return err == nil
	})
	if err == nil && !ok {
		err = errors.New(`"content" is not an array`)
	}
	return err
}

// item decodes one content item at raw[start:end]: a text item here, its
// text decoded in place at the end, anything else with mcp-go's decoder (on
// a copy, so raw stays the text's). An item mcp-go's type does not hold
// exactly keeps a rawItem.
func (d *decoder) item(start, end int) error {
	if lit, bare, ok := d.textItem(start, end); ok {
		c := Content{Type: ContentText}
		if !bare {
			var err error
			if c.from, err = d.annotatedText(start, end, lit); err != nil {
				return fmt.Errorf("content item %d: %w", len(d.items), err)
			}
		}
		d.texts = append(d.texts, textSpan{item: len(d.items), start: lit[0], end: lit[1]})
		d.items = append(d.items, c)
		return nil
	}
	raw := d.raw[start:end]
	c, err := mcp.UnmarshalContent(bytes.Clone(raw))
	if err != nil {
		return fmt.Errorf("content item %d: %w", len(d.items), err)
	}
	if skel := skeletonOf(raw); !exact(skel) {
		c = rawItem{Content: c, skeleton: skel}
	}
	d.items = append(d.items, contentOf(c))
	return nil
}

// textItem recognises a text item whose text is a string, and returns the
// text literal's bounds, and whether the item has no other member than
// type and text.
func (d *decoder) textItem(start, end int) (lit [2]int, plain, ok bool) {
	isText, others := false, false
	valid := rawjson.ScanMembers(d.view[start:end], func(key string, s, e int) bool {
		switch key {
		case "type":
			isText = d.view[start+s:start+e] == `"text"`
			return isText
		case "text":
			lit = [2]int{start + s, start + e}
			return d.view[start+s] == '"'
		}
		others = true
		return true
	})
	return lit, !others, valid && isText && lit[1] > 0
}

// annotatedText decodes a text item with members besides type and text at
// raw[start:end], without its text (decoded in place at the end): a rawItem
// when mcp.TextContent does not hold every member.
func (d *decoder) annotatedText(start, end int, lit [2]int) (mcp.Content, error) {
	skel := make(json.RawMessage, 0, (lit[0]-start)+2+(end-lit[1]))
	skel = append(skel, d.raw[start:lit[0]]...)
	skel = append(skel, `""`...)
	skel = append(skel, d.raw[lit[1]:end]...)
	var tc mcp.TextContent
	if err := json.Unmarshal(skel, &tc); err != nil {
		return nil, err
	}
	tc.Type = mcp.ContentTypeText
	if !exact(skel) {
		return rawItem{Content: tc, skeleton: skel}, nil
	}
	return tc, nil
}

// finish decodes the texts into raw's own bytes and makes the Result.
func (d *decoder) finish() Result {
	d.view = ""
	for _, t := range d.texts {
		d.items[t.item].Text = rawjson.DecodeInPlace(d.raw[t.start:t.end])
	}
	r := Result{Content: d.items, StructuredContent: d.sc, IsError: d.res.IsError, raw: d.extra}
	if d.res.Meta != nil || d.res.ResultType != "" || d.res.InputRequests != nil || d.res.RequestState != "" {
		base := d.res
		r.base = &base
	}
	return r
}
