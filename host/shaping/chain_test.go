package shaping

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/callresult"
)

func TestChainOrder(t *testing.T) {
	var trace []string
	mw := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c Call) (Result, error) {
				trace = append(trace, "in "+name)
				res, err := next(ctx, c)
				trace = append(trace, "out "+name)
				return res, err
			}
		}
	}
	Chain(returning(textResult("x"), nil), mw("a"), mw("b"))(context.Background(), testCall)
	if diff := cmp.Diff([]string{"in a", "in b", "out b", "out a"}, trace); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestStandardChainEndToEnd(t *testing.T) {
	store, err := artifacts.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("row;", 30) // 120 chars
	img := mcp.ImageContent{Type: "image", Data: b64(2000), MIMEType: "image/png"}
	meta := &mcp.Meta{AdditionalFields: map[string]any{"trace": "t1"}}
	structured := map[string]any{"rows": 30.0}
	pageable := strings.Repeat("row\n", 30) + "\n<mcp-result-metadata>\n{\"has_more\":true}\n</mcp-result-metadata>\n" // 184 chars
	tests := []struct {
		name        string
		res         callresult.Result
		wantInline  string // with {FILE} for the artifact path
		wantPayload string // "" = nothing saved
	}{
		{name: "small text passes", res: textResult("hello"), wantInline: "hello"},
		{
			name:        "oversized text bounded and saved",
			res:         textResult(body),
			wantInline:  strings.Repeat("row;", 10) + "\n[MCP RESULT TRUNCATED - 20 chars omitted out of 120 total]\n" + body[60:] + "\n[file:{FILE}]",
			wantPayload: body,
		},
		{
			name:        "wrapped JSON unwrapped, then bounded; artifact holds the pageable text",
			res:         textResult(`{"result":"` + strings.Repeat(`row\n`, 30) + `","has_more":true}`),
			wantInline:  pageable[:40] + "\n[MCP RESULT TRUNCATED - 84 chars omitted out of 184 total]\n" + pageable[124:] + "\n[file:{FILE}]",
			wantPayload: pageable,
		},
		{
			name:        "base64 removed from a small text, the original saved",
			res:         textResult("blob " + b64(1100)),
			wantInline:  "blob [base64 data removed: 1100 chars]\n[file:{FILE}]",
			wantPayload: "blob " + b64(1100),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.res.ToMCP()
			in.Meta, in.StructuredContent = meta, structured
			in.Content = append(in.Content, img)
			got := run(t, callresult.FromMCP(in), Standard(Options{MaxInlineChars: 100, Saver: store})...)
			out := got.ToMCP()
			if out.Meta != meta || string(got.StructuredContent) != `{"rows":30}` {
				t.Errorf("_meta or structuredContent changed: %+v %s", out.Meta, got.StructuredContent)
			}
			if len(out.Content) != 2 || !cmp.Equal(out.Content[1], mcp.Content(img)) {
				t.Errorf("image not kept as is: %+v", out.Content[1:])
			}
			text, _ := textOf(got)
			path := ""
			if i := strings.LastIndex(text, "[file:"); i >= 0 {
				path = strings.TrimSuffix(text[i+len("[file:"):], "]")
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.wantInline, "{FILE}", path), text); diff != "" {
				t.Errorf("inline text (-want +got):\n%s", diff)
			}
			if tt.wantPayload == "" {
				if path != "" {
					t.Errorf("saved %s, want nothing saved", path)
				}
				return
			}
			if filepath.Dir(path) != store.Dir(artifacts.KindMCP) || !strings.HasPrefix(filepath.Base(path), "srv__big-") {
				t.Errorf("artifact path %q", path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantPayload, string(b)); diff != "" {
				t.Errorf("artifact (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStandardChainRecoversFromPanics(t *testing.T) {
	boom := func(context.Context, Call) (Result, error) { panic("boom") }
	res, err := New(boom, Options{MaxInlineChars: 100})(context.Background(), testCall)
	if res.Content != nil || res.Size != 0 || err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("got %v, %v", res, err)
	}
}
