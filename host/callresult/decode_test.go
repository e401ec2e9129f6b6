package callresult

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

// Decode must give what mcp-go's generic decode gives (compared as the JSON
// each encodes to, ToMCP's plain mcp-go values), with structuredContent
// kept as sent; and JSON must give back the server's JSON.
func TestDecodeMatchesMCPGo(t *testing.T) {
	tests := map[string]string{
		"plain text":     `{"content":[{"type":"text","text":"hello"}]}`,
		"escapes":        `{"content":[{"type":"text","text":"a\nb\t\"q\" \u20ac \ud83d\ude00 \ud800 \\ /"}]}`,
		"several texts":  `{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}],"isError":true}`,
		"annotated text": `{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}}]}`,
		"mixed content": `{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"t"},` +
			`{"type":"audio","data":"aGk=","mimeType":"audio/wav"},{"type":"resource_link","uri":"file:///a","name":"a"},` +
			`{"type":"resource","resource":{"uri":"file:///b","text":"b"}}]}`,
		"structured":        `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1,"list":[1,2,{"deep":"x"}]}}`,
		"meta":              `{"_meta":{"progressToken":"p","other":{"a":1}},"content":[]}`,
		"text with extra":   `{"content":[{"type":"text","text":"x","extra":1}]}`,
		"whitespace around": " {\n \"content\" : [ { \"type\" : \"text\" , \"text\" : \"x\" } ] , \"isError\" : false } ",
		"unknown members":   `{"content":[{"type":"text","text":"x"}],"somethingNew":{"a":[1]}}`,
		"null structured":   `{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
		"non-UTF-8 text":    "{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff byte\"}]}",
		"vendor members": `{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"x-note":"n"},"_meta":{"id":12345678901234567890}},` +
			`{"type":"image","data":"aGk=","mimeType":"image/png","x-alt":"a cat"},{"type":"resource_link","uri":"file:///a","name":"a"},` +
			`{"type":"resource","resource":{"uri":"file:///b","blob":"aGk=","x-size":2},"x-origin":"disk"}],` +
			`"_meta":{"trace":{"id":12345678901234567890}},"x-trace":{"spans":[1,2]},"resultType":"complete","isError":false}`,
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			msg := json.RawMessage(raw)
			want, err := mcp.ParseCallToolResult(&msg)
			if err != nil {
				t.Fatalf("mcp-go: %v", err)
			}
			got, err := Decode([]byte(raw))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(encodeTree(t, want), encodeTree(t, got.ToMCP())); diff != "" {
				t.Errorf("Decode differs from mcp-go (-mcp-go +Decode):\n%s", diff)
			}
			back, err := got.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonTree(t, []byte(raw)), jsonTree(t, back)); diff != "" && name != "non-UTF-8 text" {
				t.Errorf("Decode(raw).JSON() differs from raw (-raw +encoded):\n%s", diff)
			}
		})
	}
}

// jsonTree decodes b with numbers as written.
func jsonTree(t *testing.T, b []byte) any {
	t.Helper()
	v, err := tree(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func encodeTree(t *testing.T, r *mcp.CallToolResult) any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecodeRejectsMalformed(t *testing.T) {
	for name, raw := range map[string]string{
		"no content":         `{"isError":true}`,
		"content not array":  `{"content":{"type":"text"}}`,
		"not an object":      `[1]`,
		"truncated":          `{"content":[{"type":"text","text":"x`,
		"unknown item type":  `{"content":[{"type":"video","url":"x"}]}`,
		"isError not a bool": `{"content":[],"isError":"yes"}`,
		"trailing data":      `{"content":[]} x`,
	} {
		t.Run(name, func(t *testing.T) {
			if res, err := Decode([]byte(raw)); err == nil {
				t.Errorf("Decode(%s) = %+v; want an error", raw, res)
			}
		})
	}
}

// A large text is decoded into the message's own bytes: no copy of it.
func TestDecodeSharesTheMessage(t *testing.T) {
	text := strings.Repeat("line of text\n", 100_000)
	lit, _ := json.Marshal(text)
	raw := []byte(`{"content":[{"type":"text","text":` + string(lit) + `}],"structuredContent":{"content":"x"}}`)
	allocs := testing.AllocsPerRun(1, func() {
		cp := append([]byte(nil), raw...)
		if _, err := Decode(cp); err != nil {
			t.Fatal(err)
		}
	})
	res, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	sharesBytes(t, res.Content[0].Text, text, raw)
	sc := res.StructuredContent
	if string(sc) != `{"content":"x"}` {
		t.Fatalf("StructuredContent = %#v; want the raw JSON as sent", res.StructuredContent)
	}
	if p, base := uintptr(unsafe.Pointer(&sc[0])), uintptr(unsafe.Pointer(&raw[0])); p >= base && p < base+uintptr(len(raw)) {
		t.Error("a small structuredContent shares the large message's buffer, keeping it alive")
	}
	if allocs > 20 { // the copy of raw above, the result, its content slice
		t.Errorf("Decode made %v allocations for a one-item result; want a handful", allocs)
	}
}

// What plughost rewrites (a text, a URI) is taken from the Content fields;
// every other member of an item the server sent with members mcp-go does
// not model stays as the server sent it.
func TestItemKeepsMembersAcrossRewrites(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"long text","x-lang":"en","annotations":{"priority":1,"x-p":true}},` +
		`{"type":"resource_link","uri":"test://a","name":"a","x-kind":"doc"},` +
		`{"type":"resource","resource":{"uri":"test://b","text":"body","x-enc":"utf8"}}],"x-trace":"t1","_meta":{"k":1}}`
	res, err := Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Content {
		if _, ok := c.from.(rawItem); !ok {
			t.Fatalf("item %d keeps a %T; want a rawItem (it has members mcp-go does not model)", i, c.from)
		}
	}
	cp := res
	cp.Content = append([]Content(nil), res.Content...)
	cp.Content[0].Text = "bounded"
	cp.Content[1].URI = "plughost://s/test://a"
	cp.Content[2].URI = "plughost://s/test://b"
	cp.Content = append(cp.Content, NewText("new"))
	cp.IsError = true
	got, err := cp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[{"type":"text","text":"bounded","x-lang":"en","annotations":{"priority":1,"x-p":true}},` +
		`{"type":"resource_link","uri":"plughost://s/test://a","name":"a","x-kind":"doc"},` +
		`{"type":"resource","resource":{"uri":"plughost://s/test://b","text":"body","x-enc":"utf8"}},{"type":"text","text":"new"}],` +
		`"x-trace":"t1","_meta":{"k":1},"isError":true}`
	if diff := cmp.Diff(jsonTree(t, []byte(want)), jsonTree(t, got)); diff != "" {
		t.Errorf("encoded (-want +got):\n%s", diff)
	}
	if orig, _ := res.JSON(); !strings.Contains(string(orig), `"text":"long text"`) || strings.Contains(string(orig), "plughost://") {
		t.Errorf("changing a copy changed the decoded result: %s", orig)
	}
	if keys := cp.raw.keys(); !cmp.Equal(keys, []string{"x-trace", "_meta"}) {
		t.Errorf("kept top-level members %q", keys)
	}
	// A _meta replaced by plughost (in mcp-go's type) is plughost's.
	m := cp.toMCP()
	m.Meta = &mcp.Meta{AdditionalFields: map[string]any{"mine": true}}
	got, _ = encode(m, cp.raw)
	if m, _ := jsonTree(t, got).(map[string]any)["_meta"].(map[string]any); m["mine"] != true || m["k"] != nil {
		t.Errorf("_meta = %v; want plughost's own", m)
	}
}

// A text item replaced by a new one (not the server's) is written as
// plain MCP; an item whose type changed drops the server's other members.
func TestNewItemsArePlain(t *testing.T) {
	res, err := Decode([]byte(`{"content":[{"type":"text","text":"a","x-lang":"en"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Content[0] = Content{Type: ContentImage, Data: "aGk=", MIMEType: "image/png"}
	got, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`; string(got) != want {
		t.Errorf("JSON = %s; want %s", got, want)
	}
}

// A large text item with a member mcp-go does not model still decodes in
// place, and what it keeps of the server's item holds no second copy of
// the text (nor a reference to it).
func TestLargeItemTextSharesTheMessage(t *testing.T) {
	text := strings.Repeat("line of text\n", 100_000)
	lit, _ := json.Marshal(text)
	raw := []byte(`{"content":[{"type":"text","x-lang":"en","text":` + string(lit) + `}]}`)
	res, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := res.Content[0].from.(rawItem)
	if !ok {
		t.Fatalf("item keeps a %T; want a rawItem", res.Content[0].from)
	}
	sharesBytes(t, res.Content[0].Text, text, raw)
	if len(it.skeleton) > 100 {
		t.Errorf("the rawItem's skeleton holds %d bytes; want the item without its text", len(it.skeleton))
	}
	if tc := it.Content.(mcp.TextContent); tc.Text != "" {
		t.Errorf("the rawItem's mcp-go value holds a text of %d bytes; want none (Content.Text has it)", len(tc.Text))
	}
}

// Items decoded with mcp-go's decoder (an image, an embedded resource)
// keep their large strings in the Content fields only, so a result whose
// data shaping replaced does not keep the server's alive.
func TestKeptItemsHoldNoLargeStrings(t *testing.T) {
	res, err := Decode([]byte(`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png","annotations":{"priority":1}},` +
		`{"type":"resource","resource":{"uri":"a://b","blob":"aGk="}},{"type":"resource","resource":{"uri":"a://c","text":"body"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Content[0].Data != "aGk=" || res.Content[1].Data != "aGk=" || res.Content[2].Text != "body" {
		t.Fatalf("content %+v", res.Content)
	}
	for i, c := range res.Content {
		b, err := json.Marshal(c.from)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "aGk=") || strings.Contains(string(b), "body") {
			t.Errorf("item %d keeps its large string beside the field: %s", i, b)
		}
	}
}

// sharesBytes checks that got, a decoded text, equals want and lies inside
// raw, the message it was decoded from: decoded in place, not copied.
func sharesBytes(t *testing.T, got, want string, raw []byte) {
	t.Helper()
	if got != want {
		t.Fatalf("text of %d bytes differs from the %d sent", len(got), len(want))
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(got)))
	base := uintptr(unsafe.Pointer(&raw[0]))
	if start < base || start >= base+uintptr(len(raw)) {
		t.Error("the text does not share the message's bytes")
	}
}

// Every field of Content is written when changed, for an item the server
// sent with members mcp-go does not model too, and the server's members
// stay; an unchanged field stays as the server wrote it.
func TestChangedFieldsOfRawItems(t *testing.T) {
	raw := `{"content":[{"type":"resource_link","uri":"a://l","name":"l","x-kind":"doc"},` +
		`{"type":"image","data":"aGk=","mimeType":"image/png","x-alt":"a cat"},` +
		`{"type":"resource","resource":{"uri":"a://r","text":"t","mimeType":"text/plain","x-enc":"utf8"}},` +
		`{"type":"resource_link","uri":"a://m","name":"m\u00e9","description":"d","x-kind":"doc"}]}`
	res, err := Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Content {
		if _, ok := c.from.(rawItem); !ok {
			t.Fatalf("item %d keeps a %T; want a rawItem", i, c.from)
		}
	}
	res.Content[0].Name, res.Content[0].Description, res.Content[0].MIMEType = "renamed", "now described", "text/markdown"
	res.Content[1].MIMEType = "image/jpeg"
	res.Content[2].MIMEType = "text/html"
	got, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[{"type":"resource_link","uri":"a://l","name":"renamed","x-kind":"doc","mimeType":"text/markdown","description":"now described"},` +
		`{"type":"image","data":"aGk=","mimeType":"image/jpeg","x-alt":"a cat"},` +
		`{"type":"resource","resource":{"uri":"a://r","text":"t","mimeType":"text/html","x-enc":"utf8"}},` +
		`{"type":"resource_link","uri":"a://m","name":"m\u00e9","description":"d","x-kind":"doc"}]}`
	if string(got) != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
}

func TestSetMember(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		path []string
		want string
	}{
		{`{"a":1}`, []string{"a"}, `{"a":"v"}`},
		{`{"a":1}`, []string{"b"}, `{"a":1,"b":"v"}`},
		{`{ }`, []string{"b"}, `{ "b":"v"}`},
		{`{"r":{"u":1} ,"x":2}`, []string{"r", "m"}, `{"r":{"u":1,"m":"v"} ,"x":2}`},
		{`{"r":{}}`, []string{"r", "m"}, `{"r":{"m":"v"}}`},
		{`{"x":2}`, []string{"r", "m"}, `{"x":2}`},
	} {
		if got := setMember([]byte(tt.raw), []byte(`"v"`), tt.path...); string(got) != tt.want {
			t.Errorf("setMember(%s, %q) = %s; want %s", tt.raw, tt.path, got, tt.want)
		}
	}
}

// A result of text items and nothing else is written without mcp-go's
// encoder, byte for byte as that encoder writes it: HTML characters,
// control characters, line separators, invalid UTF-8, no items, many, an
// error.
func TestTextResultJSONAsTheGeneralPath(t *testing.T) {
	texts := []string{"", "hello", `<a href="x">&</a>`, "tab\tnew\nline\r\x00\x1f\x7f", "\u2028\u2029",
		"bad \xff\xfe utf-8", "emoji 🙂 and ünïcode", strings.Repeat("long ", 10000)}
	var results []Result
	for _, text := range texts {
		results = append(results, Result{Content: []Content{NewText(text)}})
	}
	results = append(results, Result{}, Result{IsError: true, Content: []Content{NewText("failed")}},
		Result{Content: []Content{NewText("a"), NewText("b"), NewText("c")}})
	for _, r := range results {
		fast, ok := r.textJSON()
		if !ok {
			t.Fatalf("%+v: not written by the text path", r)
		}
		slow, err := encode(r.toMCP(), r.raw)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			t.Errorf("text path:\n %q\ngeneral path:\n %q", fast, slow)
		}
	}
	for _, raw := range []string{
		`{"content":[{"type":"text","text":"x"}],"isError":false}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}`,
		`{"content":[{"type":"text","text":"x"}],"_meta":{"k":"v"}}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
	} {
		r, err := Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.textJSON(); ok {
			t.Errorf("%s: written by the text path, which would lose what the server sent", raw)
		}
	}
}
