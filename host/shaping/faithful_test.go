package shaping

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/callresult"
)

// The standard chain rewrites what it must — an oversized text, a data URL,
// a resource URI — and keeps every member the server sent besides: item
// members mcp-go does not model, annotations, _meta, the result's own.
func TestChainKeepsMembersItDoesNotRewrite(t *testing.T) {
	long := strings.Repeat("0123456789", 100)
	raw := `{"content":[` +
		`{"type":"text","text":"` + long + `","x-lang":"en","annotations":{"priority":1,"x-p":true}},` +
		`{"type":"text","text":"second","_meta":{"n":12345678901234567890}},` +
		`{"type":"resource_link","uri":"test://a","name":"a","x-kind":"doc"}],` +
		`"x-trace":{"id":"t"},"_meta":{"k":[1,2]}}`
	res, err := callresult.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	saver := newMemSaver()
	call := testCall
	call.MapURI = func(u string) string { return "plughost://srv/" + u }
	got, err := New(returning(res, nil), Options{MaxInlineChars: 100, Saver: saver})(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	out, err := got.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatal(err)
	}
	content := tree["content"].([]any)
	first := content[0].(map[string]any)
	text, _ := first["text"].(string)
	if !strings.Contains(text, "[MCP RESULT TRUNCATED") {
		t.Errorf("the joined text was not bounded: %q", text)
	}
	if first["x-lang"] != "en" || !cmp.Equal(first["annotations"], map[string]any{"priority": 1.0, "x-p": true}) {
		t.Errorf("the bounded item lost the server's members: %v", first)
	}
	link := content[1].(map[string]any)
	if link["uri"] != "plughost://srv/test://a" || link["x-kind"] != "doc" {
		t.Errorf("resource link = %v; want its URI mapped and x-kind kept", link)
	}
	if !cmp.Equal(tree["x-trace"], map[string]any{"id": "t"}) || !cmp.Equal(tree["_meta"], map[string]any{"k": []any{1.0, 2.0}}) {
		t.Errorf("the result's own members: x-trace %v, _meta %v", tree["x-trace"], tree["_meta"])
	}
}
