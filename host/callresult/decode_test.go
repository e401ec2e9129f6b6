package callresult

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

// Decode must give what mcp-go's generic decode gives (compared as the JSON
// each encodes to), with structuredContent kept as sent.
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
			if diff := cmp.Diff(encode(t, want), encode(t, got)); diff != "" {
				t.Errorf("Decode differs from mcp-go (-mcp-go +Decode):\n%s", diff)
			}
		})
	}
}

func encode(t *testing.T, r *mcp.CallToolResult) any {
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
	got := res.Content[0].(mcp.TextContent).Text
	if got != text {
		t.Fatalf("text of %d bytes differs from the %d sent", len(got), len(text))
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(got)))
	base := uintptr(unsafe.Pointer(&raw[0]))
	if start < base || start >= base+uintptr(len(raw)) {
		t.Error("the text does not share the message's bytes")
	}
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok || string(sc) != `{"content":"x"}` {
		t.Fatalf("StructuredContent = %#v; want the raw JSON as sent", res.StructuredContent)
	}
	if p := uintptr(unsafe.Pointer(&sc[0])); p >= base && p < base+uintptr(len(raw)) {
		t.Error("a small structuredContent shares the large message's buffer, keeping it alive")
	}
	if allocs > 20 { // the copy of raw above, the result, its content slice
		t.Errorf("Decode made %v allocations for a one-item result; want a handful", allocs)
	}
}
