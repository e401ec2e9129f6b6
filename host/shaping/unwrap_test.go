package shaping

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/internal/randjson"
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
		res          callresult.Result
		want         callresult.Result
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
			res: callresult.FromMCP(&mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: structured,
				Content: []mcp.Content{mcp.NewTextContent(wrapped)}}),
			want: callresult.FromMCP(&mcp.CallToolResult{Result: mcp.Result{Meta: meta}, StructuredContent: structured,
				Content: []mcp.Content{mcp.NewTextContent(unwrapped)}}),
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
			orig := jsonOf(t, tt.res)
			rec := &record{}
			r, err := Unwrap(20)(returning(tt.res, nil))(context.Background(), callWith(rec))
			got := r.Result
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, tt.want, got)
			if got.ToMCP().Meta != tt.res.ToMCP().Meta {
				t.Errorf("_meta was replaced")
			}
			if diff := cmp.Diff(orig, jsonOf(t, tt.res)); diff != "" {
				t.Errorf("the server's result was mutated:\n%s", diff)
			}
			if rec.unwrapped != tt.wantUnwrap || rec.payload != tt.wantRecorded {
				t.Errorf("record = unwrapped %v payload %q; want %v %q", rec.unwrapped, rec.payload, tt.wantUnwrap, tt.wantRecorded)
			}
		})
	}
}

// checkUnwrapMatchesReference compares UnwrapText with the decoder-based
// implementation it replaced.
func checkUnwrapMatchesReference(t *testing.T, text string) {
	t.Helper()
	got, ok := UnwrapText(text)
	want, wantOK := referenceUnwrapText(text)
	if got != want || ok != wantOK {
		t.Fatalf("UnwrapText(%q)\n= %q, %v\nreference: %q, %v", text, got, ok, want, wantOK)
	}
}

func TestUnwrapTextMatchesReference(t *testing.T) {
	tests := map[string]string{
		"spaces around members":       "{\"result\" :\t\"a\\nb\" ,\r\n \"status\": \"ok\" }",
		"Unicode space around object": "\u00a0\u2003{\"result\":\"a\"}\u3000\n",
		"Unicode space inside":        "{\"result\":\u00a0\"a\"}",
		"escaped key is the result":   `{"\u0072esult":"a","st\u0061tus":"ok"}`,
		"escaped key repeats result":  `{"result":"a","\u0072esult":"b"}`,
		"repeated sibling":            `{"result":"a","status":1,"status":2}`,
		"invalid UTF-8 keys collide":  "{\"result\":\"a\",\"\xff\":1,\"\xfe\":2}",
		"unknown key after result":    `{"result":"a","Status":1}`,
		"all value kinds":             `{"result":"x","total":-0.5e3,"ok":true,"error":null,"metadata":{ "a" : [1, {"b":"}"}] },"warnings":[],"message":"\u00e9"}`,
		"invalid number":              `{"result":"a","total":01}`,
		"invalid literal":             `{"result":"a","ok":nul}`,
		"trailing comma in array":     `{"result":"a","warnings":[1,]}`,
		"mismatched brackets":         `{"result":"a","warnings":[1,2}}`,
		"trailing comma in object":    `{"result":"a",}`,
		"missing colon":               `{"result" "a"}`,
		"empty object":                `{}`,
		"empty object then data":      `{} x`,
		"second object":               `{"result":"a"}{}`,
		"NUL after the object":        "{\"result\":\"a\"}\x00",
		"result with every escape":    `{"result":"\"\\\/\b\f\n\r\t\u0041\ud83d\ude00\ud800\udc00x\udc00","status":"ok"}`,
		"result of invalid UTF-8":     "{\"result\":\"\xff\xc3(\xed\xa0\x80\",\"status\":\"ok\"}",
		"result ending in \\n":        `{"result":"a\n","status":"ok"}`,
		"result ending in \\u000a":    `{"result":"a\u000a","status":"ok"}`,
		"result ending in \\\\n":      `{"result":"a\\n","status":"ok"}`,
		"result of one escape":        `{"result":"\u0000"}`,
		"control character in result": "{\"result\":\"a\x01\"}",
		"unterminated result":         `{"result":"a`,
		"nested unterminated string":  `{"result":"a","metadata":{"x":"}`,
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) { checkUnwrapMatchesReference(t, text) })
	}
}

// randomWrapped returns a random text shaped like a wrapped result, with
// known, unknown, escaped and repeated keys and all kinds of values; when
// noisy, any part may also be malformed. Each list starts with the clean
// choices, and clean[i] of them are clean.
func randomWrapped(r *rand.Rand, noisy bool) string {
	lists := [][]string{
		{"", " ", "\n\t", "\r\n ", "\u00a0"},
		{`"result"`, `"status"`, `"has_more"`, `"metadata"`, `"total"`, `"\u0072esult"`, `"st\u0061tus"`,
			"\"\xff\"", "\"\xfe\"", `"unknown"`, `"Status"`, `""`, `"result`},
		{`1`, `-0.5e3`, `true`, `null`, `{"a":[1,{"b":null}]}`, `{ "x" : [1, 2] }`, `[]`, `{}`, `"ok"`, `{"a":"}"}`,
			`"\u00e9"`, `01`, `1.`, `nul`, `[1,]`, `{"a" 1}`, `[1,2}`, `"`, ``},
		{",", ", ", ""},
		{":", ""},
		{"}", "", "]"},
		{"", "x", "{}", ","},
	}
	clean := []int{4, 9, 11, 2, 1, 1, 1}
	pick := func(list int) string {
		n := clean[list]
		if noisy {
			n = len(lists[list])
		}
		return lists[list][r.IntN(n)]
	}
	const space, key, value, comma, colon, end, trailing = 0, 1, 2, 3, 4, 5, 6
	var b strings.Builder
	b.WriteString(pick(space) + "{")
	for i := range r.IntN(5) {
		if i > 0 {
			b.WriteString(pick(comma))
		}
		k := pick(key)
		if i == 0 && r.IntN(4) > 0 {
			k = `"result"`
		}
		b.WriteString(pick(space) + k + pick(space) + pick(colon) + pick(space))
		if k == `"result"` && r.IntN(4) > 0 {
			b.WriteString(`"` + randjson.String(r, 8, noisy) + `"`)
		} else {
			b.WriteString(pick(value))
		}
		b.WriteString(pick(space))
	}
	b.WriteString(pick(end) + pick(space) + pick(trailing))
	return b.String()
}

func TestUnwrapTextMatchesReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	unwrapped := 0
	for range 20000 {
		text := randomWrapped(r, r.IntN(2) == 0)
		checkUnwrapMatchesReference(t, text)
		if _, ok := UnwrapText(text); ok {
			unwrapped++
		}
	}
	t.Logf("%d of 20000 random texts unwrapped", unwrapped)
	// Both outcomes must be well represented, or the comparison says little.
	if unwrapped < 1000 || unwrapped > 19000 {
		t.Fatalf("%d of 20000 random texts unwrapped; the generator no longer covers both outcomes", unwrapped)
	}
}
