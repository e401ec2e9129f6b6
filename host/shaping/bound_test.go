package shaping

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
)

func TestBoundText(t *testing.T) {
	alpha := "abcdefghijklmnopqrstuvwxyz"
	tests := []struct {
		name       string
		text       string
		budget     int
		want       string
		wantOmited int
	}{
		{name: "within budget", text: "short", budget: 10, want: "short"},
		{name: "exactly at budget", text: "0123456789", budget: 10, want: "0123456789"},
		{
			name: "40/60 split", text: alpha, budget: 10,
			want:       "abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\nuvwxyz",
			wantOmited: 16,
		},
		{
			name: "odd budget rounds the head down", text: alpha, budget: 11,
			want:       "abcd\n[MCP RESULT TRUNCATED - 15 chars omitted out of 26 total]\ntuvwxyz",
			wantOmited: 15,
		},
		{
			name: "one over budget", text: "0123456789X", budget: 10,
			want:       "0123\n[MCP RESULT TRUNCATED - 1 chars omitted out of 11 total]\n56789X",
			wantOmited: 1,
		},
		{
			name: "multi-byte characters are counted, never split", text: "héllo wörld ünïcödé ✓✓✓ 日本語テキスト", budget: 10,
			want:       "héll\n[MCP RESULT TRUNCATED - 21 chars omitted out of 31 total]\n本語テキスト",
			wantOmited: 21,
		},
		{
			name: "four-byte characters", text: repeat("😀", 20), budget: 5,
			want:       "😀😀\n[MCP RESULT TRUNCATED - 15 chars omitted out of 20 total]\n😀😀😀",
			wantOmited: 15,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, omitted := BoundText(tt.text, utf8.RuneCountInString(tt.text), tt.budget)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if omitted != tt.wantOmited {
				t.Errorf("omitted = %d, want %d", omitted, tt.wantOmited)
			}
		})
	}
}

func TestBoundDefaultBudget(t *testing.T) {
	text := repeat("a", 6553) + repeat("b", 100_000) + repeat("c", 9831)
	got, _ := BoundText(text, len(text), 16384)
	want := repeat("a", 6553) + "\n[MCP RESULT TRUNCATED - 100000 chars omitted out of 116384 total]\n" + repeat("c", 9831)
	if got != want {
		t.Errorf("16384 budget: head/tail not 6553/9831 around the notice")
	}
}

func TestBoundMiddleware(t *testing.T) {
	alpha := "abcdefghijklmnopqrstuvwxyz"
	img := mcp.ImageContent{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"}
	meta := &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
	fromMCP := callresult.FromMCP
	tests := []struct {
		name string
		res  callresult.Result
		rec  record
		want callresult.Result
	}{
		{name: "small result untouched", res: textResult("hi"), want: textResult("hi")},
		{
			name: "truncated with file reference", res: textResult(alpha), rec: record{path: "/ws/a.txt"},
			want: textResult("abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\nuvwxyz\n[file:/ws/a.txt]"),
		},
		{
			name: "saved but within budget: reference only", res: textResult("[x]"), rec: record{path: "/ws/a.txt"},
			want: textResult("[x]\n[file:/ws/a.txt]"),
		},
		{
			name: "not saved: says why", res: textResult(alpha), rec: record{saveErrs: []error{errDiskFull}},
			want: textResult("abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\nuvwxyz\n[the full payload could not be saved: disk full]"),
		},
		{
			name: "error results are bounded the same way",
			res:  fromMCP(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(alpha)}}),
			want: fromMCP(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent("abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\nuvwxyz")}}),
		},
		{
			name: "several text items become one, other content and _meta kept",
			res: fromMCP(&mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: map[string]any{"a": 1},
				Content: []mcp.Content{mcp.NewTextContent("abcdefghijklm"), img, mcp.NewTextContent("nopqrstuvwxy")}}),
			want: fromMCP(&mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: map[string]any{"a": 1},
				Content: []mcp.Content{mcp.NewTextContent("abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\ntuvwxy"), img}}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := jsonOf(t, tt.res)
			rec := tt.rec
			r, err := Bound(10)(returning(tt.res, nil))(context.Background(), callWith(&rec))
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, tt.want, r.Result)
			if diff := cmp.Diff(orig, jsonOf(t, tt.res)); diff != "" {
				t.Errorf("the server's result was mutated (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBoundNeverSplitsInvalidUTF8(t *testing.T) {
	text := strings.Repeat("a\xffé", 50)
	got, _ := BoundText(text, utf8.RuneCountInString(text), 20)
	if strings.Contains(got, "\xc3\n") || strings.Contains(got, "\n\xa9") {
		t.Errorf("a character was split: %q", got)
	}
}
