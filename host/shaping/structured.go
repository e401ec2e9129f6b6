package shaping

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/plughost/plughost/host/callresult"
)

// stubChars is how many characters of a long string a cut structuredContent
// keeps (40% head, 60% tail, as Bound does for text), at most a quarter of
// the budget.
const stubChars = 200

// Structured bounds a result's structuredContent, which the unwrap rewrite
// never touches (the spec's rule) but which would otherwise carry past the
// budget what the text was cut to spare — servers often copy their whole
// text there. A structuredContent whose JSON is at most budget characters
// passes as sent. A longer one is saved whole (indented JSON) as an
// artifact, and then:
//
//   - when the tool declares an outputSchema, the result keeps a cut copy —
//     every string longer than 200 characters shortened to its head and
//     tail around a note naming the file — provided the copy fits the budget
//     and still validates against the schema, so a client that validates
//     gets a valid result;
//   - otherwise structuredContent leaves the result. A success result of a
//     tool with an outputSchema is then marked isError, because clients that
//     validate refuse a success result without structuredContent.
//
// Either way the text ends with a line saying what happened and where the
// whole value is. A nil saver or a budget of 0 or less disables the link.
func Structured(budget int, saver Saver) Middleware {
	if saver == nil || budget <= 0 {
		return func(next Handler) Handler { return next }
	}
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		raw := res.StructuredContent
		if raw == nil || utf8.RuneCount(raw) <= budget {
			return res
		}
		return boundStructured(ctx, call, res, raw, budget, saver)
	})
}

// boundStructured saves raw, res's oversized structuredContent, and cuts
// it or takes it out (see Structured).
func boundStructured(ctx context.Context, call Call, res callresult.Result, raw []byte, budget int, saver Saver) callresult.Result {
	total := utf8.RuneCount(raw)
	where, path := saveStructured(ctx, call, raw, saver)
	cp := res
	cp.StructuredContent = nil
	var note string
	if len(call.OutputSchema) > 0 {
		if cut, ok := cutStrings(raw, path, min(stubChars, budget/4)); ok && utf8.RuneCount(cut) <= budget && conforms(call.OutputSchema, cut) {
			cp.StructuredContent = cut
			note = fmt.Sprintf("[structuredContent cut to fit: %d chars of JSON, its long strings shortened; %s]", total, where)
		}
	}
	if cp.StructuredContent == nil {
		note = fmt.Sprintf("[structuredContent omitted: %d chars of JSON, over the %d-char budget; %s]", total, budget, where)
		if len(call.OutputSchema) > 0 && !cp.IsError {
			cp.IsError = true
			note += "\n[reported as an error: the tool declares an outputSchema, and a success result without structuredContent would not satisfy it]"
		}
	}
	text, _ := textOf(cp)
	if text != "" {
		text += "\n"
	}
	return withText(cp, text+note)
}

// saveStructured saves the whole value, indented so read_file can page it,
// in .artifacts/mcp or else .artifacts/tool, and says where it went (or why
// it could not be saved) for the note; path is "" when it was not saved.
func saveStructured(ctx context.Context, call Call, raw []byte, saver Saver) (where, path string) {
	var b bytes.Buffer
	b.Grow(len(raw) + len(raw)/8)
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	var errs []string
	for _, kind := range []string{KindMCP, KindTool} {
		p, err := save(ctx, call, saver, kind, call.Tool+"-structured", b.String())
		if err == nil {
			return "the whole value is in [file:" + p + "]", p
		}
		errs = append(errs, fmt.Sprintf("saving to .artifacts/%s failed: %v", kind, err))
	}
	return "it could not be saved: " + strings.Join(errs, "; "), ""
}

// cutStrings returns raw with every string value longer than keep
// characters replaced by its head and tail around a note pointing at path.
// Keys, numbers and the order of members are kept exactly.
func cutStrings(raw []byte, path string, keep int) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	c := cutter{dec: dec, out: &out, path: path, keep: keep}
	if err := c.value(); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

// cutter copies JSON from dec to out, cutting strings longer than keep.
type cutter struct {
	dec  *json.Decoder
	out  *bytes.Buffer
	path string
	keep int
}

// value copies one JSON value.
func (c cutter) value() error {
	tok, err := c.dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		return c.composite(v)
	case string:
		return c.write(c.cut(v))
	default: // json.Number, bool, nil
		return c.write(v)
	}
}

// composite copies the rest of the object or array opened by open.
func (c cutter) composite(open json.Delim) error {
	c.out.WriteByte(byte(open))
	for i := 0; c.dec.More(); i++ {
		if i > 0 {
			c.out.WriteByte(',')
		}
		if open == '{' {
			key, err := c.dec.Token()
			if err != nil {
				return err
			}
			if err := c.write(key); err != nil {
				return err
			}
			c.out.WriteByte(':')
		}
		if err := c.value(); err != nil {
			return err
		}
	}
	end, err := c.dec.Token()
	if err != nil {
		return err
	}
	d, ok := end.(json.Delim)
	if !ok || (d != '}' && d != ']') {
		return errors.New("unbalanced JSON")
	}
	c.out.WriteByte(byte(d))
	return nil
}

func (c cutter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.out.Write(b)
	return nil
}

// cut shortens s to its head and tail around a note when it is longer than
// keep characters.
func (c cutter) cut(s string) string {
	total := utf8.RuneCountInString(s)
	if total <= c.keep {
		return s
	}
	cut, omitted := BoundText(s, total, c.keep)
	where := "the whole structuredContent could not be saved"
	if c.path != "" {
		where = "whole structuredContent in file:" + c.path
	}
	return strings.Replace(cut, fmt.Sprintf("[MCP RESULT TRUNCATED - %d chars omitted out of %d total]", omitted, total),
		fmt.Sprintf("[STRING CUT - %d chars omitted out of %d total; %s]", omitted, total, where), 1)
}

// conforms reports whether doc validates against schema (JSON Schema,
// 2020-12 unless the schema says otherwise, format assertions on, no
// remote references). A schema that does not compile cannot be checked by
// a client either, so the copy is sent.
func conforms(schema, doc []byte) bool {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil || c.AddResource("outputSchema.json", s) != nil {
		return true
	}
	sch, err := c.Compile("outputSchema.json")
	if err != nil {
		return true
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	return err == nil && sch.Validate(v) == nil
}

// noLoader refuses to load schema references: validation never reaches
// the network or the file system.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("outputSchema reference %s is not loaded", url)
}
