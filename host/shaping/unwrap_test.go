package shaping

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestUnwrapText(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		want   string
		wantOK bool
	}{
		{name: "result alone", text: `{"result":"line 1\nline 2"}`, want: "line 1\nline 2", wantOK: true},
		{
			name: "known keys become a metadata block", text: ` {"status":"ok","result":"a\nb","truncated":false,"total":12.50} `,
			want:   "a\nb\n\n<mcp-result-metadata>\n{\"status\":\"ok\",\"total\":12.50,\"truncated\":false}\n</mcp-result-metadata>\n",
			wantOK: true,
		},
		{
			name: "result ending in a newline", text: `{"result":"a\n","metadata":{ "x" : [1, 2] }}`,
			want:   "a\n\n<mcp-result-metadata>\n{\"metadata\":{\"x\":[1,2]}}\n</mcp-result-metadata>\n",
			wantOK: true,
		},
		{
			name: "nested JSON in the result is unwrapped once only", text: `{"result":"{\"result\":\"inner\"}"}`,
			want: `{"result":"inner"}`, wantOK: true,
		},
		{name: "unknown key stays verbatim", text: `{"result":"a","secret_sauce":1}`},
		{name: "non-string result", text: `{"result":{"a":1}}`},
		{name: "number result", text: `{"result":42}`},
		{name: "null result", text: `{"result":null}`},
		{name: "empty result", text: `{"result":""}`},
		{name: "no result key", text: `{"status":"ok"}`},
		{name: "repeated key", text: `{"result":"a","result":"b"}`},
		{name: "array", text: `[{"result":"a"}]`},
		{name: "trailing data", text: `{"result":"a"} {"result":"b"}`},
		{name: "invalid JSON", text: `{"result":"a"`},
		{name: "plain text", text: `result: a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := UnwrapText(tt.text)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("UnwrapText = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestUnwrapMiddleware(t *testing.T) {
	big := repeat("x", 40)
	wrapped := `{"result":"` + big + `\n","status":"done"}`
	unwrapped := big + "\n\n<mcp-result-metadata>\n{\"status\":\"done\"}\n</mcp-result-metadata>\n"
	meta := &mcp.Meta{AdditionalFields: map[string]any{"trace": "t1"}}
	structured := map[string]any{"result": "structured stays"}
	tests := []struct {
		name         string
		res          *mcp.CallToolResult
		want         *mcp.CallToolResult
		wantUnwrap   bool
		wantRecorded string
	}{
		{name: "small wrapped text stays verbatim", res: textResult(`{"result":"a\nb"}`), want: textResult(`{"result":"a\nb"}`)},
		{
			name: "oversized wrapped text is unwrapped", res: textResult(wrapped), want: textResult(unwrapped),
			wantUnwrap: true, wantRecorded: unwrapped,
		},
		{
			name: "structuredContent and _meta untouched",
			res: &mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: structured,
				Content: []mcp.Content{mcp.NewTextContent(wrapped)}},
			want: &mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: structured,
				Content: []mcp.Content{mcp.NewTextContent(unwrapped)}},
			wantUnwrap: true, wantRecorded: unwrapped,
		},
		{
			name: "two text items are not unwrapped", res: textResult(wrapped, wrapped), want: textResult(wrapped, wrapped),
		},
		{
			name: "oversized unknown key stays verbatim", res: textResult(`{"result":"` + big + `","x":1}`),
			want: textResult(`{"result":"` + big + `","x":1}`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := cloneResult(tt.res)
			rec := &record{}
			got, err := Unwrap(20)(returning(tt.res, nil))(contextWith(rec), testCall)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if got.Meta != tt.res.Meta {
				t.Errorf("_meta was replaced")
			}
			if diff := cmp.Diff(orig, tt.res); diff != "" {
				t.Errorf("the server's result was mutated:\n%s", diff)
			}
			if rec.unwrapped != tt.wantUnwrap || rec.payload != tt.wantRecorded {
				t.Errorf("record = unwrapped %v payload %q; want %v %q", rec.unwrapped, rec.payload, tt.wantUnwrap, tt.wantRecorded)
			}
		})
	}
}
