//go:build unix

package host_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host"
)

// A decoded result reads as plughost's own items, writes back as the server
// sent it (every member mcp-go does not model included, a change made to an
// item taken in), and converts to plain mcp-go values.
func TestToolResultRoundTrip(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"hello","x-lang":"en","annotations":{"priority":1}},` +
		`{"type":"image","data":"aGk=","mimeType":"image/png"},` +
		`{"type":"resource_link","uri":"test://a","name":"a","description":"the a"},` +
		`{"type":"resource","resource":{"uri":"test://b","text":"body"}}],` +
		`"structuredContent":{"n":1},"x-trace":"t1","_meta":{"k":1},"isError":true}`
	res, err := host.DecodeToolResult([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []host.Content{
		{Type: host.ContentText, Text: "hello"},
		{Type: host.ContentImage, Data: "aGk=", MIMEType: "image/png"},
		{Type: host.ContentResourceLink, URI: "test://a", Name: "a", Description: "the a"},
		{Type: host.ContentResource, URI: "test://b", Text: "body"},
	}
	if diff := cmp.Diff(want, res.Content, cmp.Comparer(sameContent)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if !res.IsError || string(res.StructuredContent) != `{"n":1}` || res.Text() != "hello" {
		t.Errorf("result %+v", res)
	}
	out, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree(t, raw), tree(t, string(out))); diff != "" {
		t.Errorf("JSON differs from what the server sent (-sent +written):\n%s", diff)
	}
	res.Content[0].Text = "changed"
	out, _ = res.JSON()
	if got := tree(t, string(out)).(map[string]any)["content"].([]any)[0].(map[string]any); got["text"] != "changed" || got["x-lang"] != "en" {
		t.Errorf("changed item written as %v; want the new text and the server's other members", got)
	}
	m := res.ToMCP()
	tc, ok := m.Content[0].(mcp.TextContent)
	if !ok || tc.Text != "changed" || tc.Annotations == nil || tc.Annotations.Priority == nil {
		t.Errorf("ToMCP item 0 = %#v; want a plain mcp.TextContent keeping its annotations", m.Content[0])
	}
	back := host.FromMCP(mcp.NewToolResultText("plain"))
	if b, _ := back.JSON(); string(b) != `{"content":[{"type":"text","text":"plain"}]}` {
		t.Errorf("FromMCP(...).JSON() = %s", b)
	}
}

func sameContent(a, b host.Content) bool {
	return a.Type == b.Type && a.Text == b.Text && a.Data == b.Data && a.MIMEType == b.MIMEType && a.URI == b.URI && a.Name == b.Name &&
		a.Description == b.Description
}

func tree(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}
