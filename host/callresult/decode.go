// Package callresult decodes the result of an MCP tools/call from its raw
// JSON without the copies a generic decode makes: a text item of many
// megabytes is decoded into the message's own bytes and shared, and
// structuredContent is kept as the raw JSON the server sent. Decoding a
// 50 MB text result allocates a few hundred bytes.
package callresult

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/rawjson"
)

// Decode decodes raw, the "result" value of a tools/call response, and takes
// ownership of it: text items are decoded in place and their Text shares
// raw's bytes, so the caller must not change or reuse raw afterwards.
//
// The result is what mcp.ParseCallToolResult returns, field for field, but
// for structuredContent: StructuredContent and RawStructuredContent both hold
// the JSON as the server sent it (a json.RawMessage, byte-faithful, encoded
// as is by mcp.CallToolResult.MarshalJSON) instead of a decoded map; it
// shares raw's bytes only when it is most of the message. Members
// of the result that mcp.CallToolResult has no field for are not kept.
func Decode(raw []byte) (*mcp.CallToolResult, error) {
	d := decoder{raw: raw, view: rawjson.View(raw)}
	if err := d.result(); err != nil {
		return nil, fmt.Errorf("malformed tools/call result: %w", err)
	}
	return d.finish(), nil
}

// decoder holds one decode. The view shares raw's bytes; it is not used
// once the texts are decoded in place (finish).
type decoder struct {
	raw   []byte
	view  string
	res   mcp.CallToolResult
	texts []textSpan
}

// textSpan is a text item whose literal is decoded at the end.
type textSpan struct {
	item       int // index in res.Content
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
			d.res.StructuredContent, d.res.RawStructuredContent = sc, sc
		case "isError":
			err = json.Unmarshal([]byte(v), &d.res.IsError)
		case "_meta":
			err = json.Unmarshal([]byte(v), &d.res.Meta)
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

// item decodes one content item at raw[start:end]: a plain text item here,
// anything else with mcp-go's decoder (on a copy, so raw stays the text's).
func (d *decoder) item(start, end int) error {
	if tc, lit, ok := d.textItem(start, end); ok {
		d.texts = append(d.texts, textSpan{item: len(d.res.Content), start: lit[0], end: lit[1]})
		d.res.Content = append(d.res.Content, tc)
		return nil
	}
	c, err := mcp.UnmarshalContent([]byte(d.view[start:end]))
	if err != nil {
		return fmt.Errorf("content item %d: %w", len(d.res.Content), err)
	}
	d.res.Content = append(d.res.Content, c)
	return nil
}

// textItem recognises a text item with only the members mcp.TextContent
// has, and returns it without its text, and the text literal's bounds.
func (d *decoder) textItem(start, end int) (mcp.TextContent, [2]int, bool) {
	var tc mcp.TextContent
	var lit [2]int
	isText := false
	ok := rawjson.ScanMembers(d.view[start:end], func(key string, s, e int) bool {
		v := d.view[start+s : start+e]
		switch key {
		case "type":
			isText = v == `"text"`
			return isText
		case "text":
			lit = [2]int{start + s, start + e}
			return v[0] == '"'
		case "annotations":
			return json.Unmarshal([]byte(v), &tc.Annotations) == nil
		case "_meta":
			return json.Unmarshal([]byte(v), &tc.Meta) == nil
		}
		return false // a member mcp.TextContent cannot hold: the generic decoder decides
	})
	tc.Type = mcp.ContentTypeText
	return tc, lit, ok && isText && lit[1] > 0
}

// finish decodes the texts into raw's own bytes.
func (d *decoder) finish() *mcp.CallToolResult {
	d.view = ""
	for _, t := range d.texts {
		tc := d.res.Content[t.item].(mcp.TextContent)
		tc.Text = rawjson.DecodeInPlace(d.raw[t.start:t.end])
		d.res.Content[t.item] = tc
	}
	return &d.res
}
