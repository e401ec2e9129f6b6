package shaping

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

// b64 is a base64-looking run of n characters with upper, lower case and digits.
func b64(n int) string { return repeat("QmFzZTY0", n/8+1)[:n] }

func TestSanitizeText(t *testing.T) {
	png := "data:image/png;base64," + b64(40)
	tests := []struct {
		name, text, want string
	}{
		{name: "plain text", text: "nothing to see: data, metadata: x", want: "nothing to see: data, metadata: x"},
		{name: "data URL", text: "img " + png + " end", want: "img [data URL removed: image/png;base64, 62 chars] end"},
		{name: "data URL in markdown", text: "![x](" + png + ")", want: "![x]([data URL removed: image/png;base64, 62 chars])"},
		{name: "upper-case scheme, no media type", text: "DATA:," + repeat("%41", 20), want: "[data URL removed: text/plain, 66 chars]"},
		{name: "short data URL kept", text: "data:,Hello", want: "data:,Hello"},
		{name: "metadata: is not a data URL", text: "metadata:" + b64(40), want: "metadata:" + b64(40)},
		{name: "long base64 run", text: "blob=" + b64(1024) + "== tail", want: "blob=[base64 data removed: 1026 chars] tail"},
		{name: "base64 just under the threshold kept", text: b64(1023), want: b64(1023)},
		{name: "long run without digits kept (not base64-like)", text: repeat("abcXYZ", 300), want: repeat("abcXYZ", 300)},
		{name: "two removals", text: b64(2000) + " and " + png, want: "[base64 data removed: 2000 chars] and [data URL removed: image/png;base64, 62 chars]"},
		{name: "multi-byte text around", text: "日本 " + b64(1500) + " 語", want: "日本 [base64 data removed: 1500 chars] 語"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := SanitizeText(tt.text)
			if got != tt.want {
				t.Errorf("SanitizeText =\n%q\nwant\n%q", got, tt.want)
			}
			if changed != (tt.want != tt.text) {
				t.Errorf("changed = %v", changed)
			}
		})
	}
}

func TestSanitizeMiddleware(t *testing.T) {
	img := mcp.ImageContent{Type: "image", Data: b64(5000), MIMEType: "image/png"}
	audio := mcp.AudioContent{Type: "audio", Data: b64(3000), MIMEType: "audio/wav"}
	blob := mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "file:///x.gz", MIMEType: "application/gzip", Blob: b64(4000)}}
	link := mcp.ResourceLink{Type: "resource_link", URI: "test://static/resource/2", Name: "Text Resource 2", Description: "plaintext resource", MIMEType: "text/plain"}
	tests := []struct {
		name        string
		res         callresult.Result
		want        callresult.Result
		wantPayload string
	}{
		{name: "clean text untouched", res: textResult("hello"), want: textResult("hello")},
		{
			name:        "base64 in text replaced, payload kept",
			res:         textResult("x " + b64(2000)),
			want:        textResult("x [base64 data removed: 2000 chars]"),
			wantPayload: "x " + b64(2000),
		},
		{
			name: "images, audio and blobs kept for the caller, not turned into text",
			res:  callresult.FromMCP(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("see"), img, audio, blob}}),
			want: callresult.FromMCP(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("see"), img, audio, blob}}),
		},
		{
			name: "resource link summarized",
			res:  callresult.FromMCP(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("links:"), link}}),
			want: callresult.FromMCP(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("links:"), link,
				mcp.NewTextContent("[resource link: Text Resource 2 <test://static/resource/2> (text/plain): plaintext resource]")}}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := jsonOf(t, tt.res)
			rec := &record{}
			r, err := Sanitize()(returning(tt.res, nil))(context.Background(), callWith(rec))
			got := r.Result
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, tt.want, got)
			if diff := cmp.Diff(orig, jsonOf(t, tt.res)); diff != "" {
				t.Errorf("the server's result was mutated:\n%s", diff)
			}
			if rec.payload != tt.wantPayload || rec.sanitized != (tt.wantPayload != "") {
				t.Errorf("record: sanitized %v payload %.40q", rec.sanitized, rec.payload)
			}
			text, _ := textOf(got)
			if strings.Contains(text, b64(1000)) {
				t.Errorf("binary data was inlined as text")
			}
		})
	}
}
