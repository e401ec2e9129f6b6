package shaping

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/host/callresult"
)

// fileSchema is server-filesystem's read_text_file outputSchema.
const fileSchema = `{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`

func structuredResult(text string, structured string) callresult.Result {
	res := textResult(text)
	res.StructuredContent = json.RawMessage(structured)
	return res
}

func TestStructured(t *testing.T) {
	const budget = 600
	long := strings.Repeat("0123456789", 100) // 1,000 chars
	bigDoc := `{"content":"` + long + `","n":12345678901234567890,"nested":{"z":1,"a":[true,null]}}`
	manySmall := `{"items":[` + strings.TrimSuffix(strings.Repeat(`"short",`, 200), ",") + `]}`
	tests := []struct {
		name, structured, schema string
		isError                  bool
		// want: "same" (untouched), "cut" (a cut copy), "gone"
		want        string
		wantIsError bool
		wantNote    string
	}{
		{name: "within budget", structured: `{"content":"small"}`, schema: fileSchema, want: "same"},
		{name: "no schema: taken out", structured: bigDoc, want: "gone", wantNote: "[structuredContent omitted: 1072 chars of JSON, over the 600-char budget; the whole value is in [file:"},
		{name: "schema: cut copy that validates", structured: `{"content":"` + long + `"}`, schema: fileSchema, want: "cut",
			wantNote: "[structuredContent cut to fit: 1014 chars of JSON, its long strings shortened; the whole value is in [file:"},
		{name: "schema rejects the cut copy: out, isError", structured: `{"content":"` + long + `"}`,
			schema: `{"type":"object","properties":{"content":{"type":"string","pattern":"^[0-9]*$"}}}`, want: "gone", wantIsError: true,
			wantNote: "[reported as an error: the tool declares an outputSchema"},
		{name: "cut copy still over budget: out, isError", structured: manySmall, schema: `{"type":"object"}`, want: "gone", wantIsError: true},
		{name: "error result stays an error, no second note", structured: manySmall, schema: `{"type":"object"}`, isError: true, want: "gone", wantIsError: true,
			wantNote: "[structuredContent omitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saver := newMemSaver()
			res := structuredResult("the text", tt.structured)
			res.IsError = tt.isError
			call := testCall
			call.OutputSchema = json.RawMessage(tt.schema)
			r, err := Chain(returning(res, nil), Structured(budget, saver))(context.Background(), call)
			got := r.Result
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "same" {
				if jsonOf(t, got) != jsonOf(t, res) || &got.Content[0] != &res.Content[0] {
					t.Errorf("a structuredContent within budget changed the result: %+v", got)
				}
				return
			}
			path, saved := saver.only(t)
			var indented any
			if json.Unmarshal([]byte(saved), &indented) != nil || !strings.Contains(saved, "\n  ") || compact(t, saved) != compact(t, tt.structured) {
				t.Errorf("artifact is not the whole structuredContent, indented: %.200s", saved)
			}
			text := onlyText(t, got)
			if !strings.HasPrefix(text, "the text\n") || !strings.Contains(text, tt.wantNote) || !strings.Contains(text, path) {
				t.Errorf("text %q; want the original text, then a note containing %q and the path %s", text, tt.wantNote, path)
			}
			if got.IsError != tt.wantIsError {
				t.Errorf("isError = %v; want %v", got.IsError, tt.wantIsError)
			}
			switch tt.want {
			case "gone":
				if got.StructuredContent != nil {
					t.Errorf("structuredContent kept: %s", got.StructuredContent)
				}
			case "cut":
				cut := string(got.StructuredContent)
				if len([]rune(cut)) > budget || !strings.Contains(cut, "[STRING CUT - 850 chars omitted out of 1000 total; whole structuredContent in file:"+path+"]") ||
					!strings.HasPrefix(cut, `{"content":"0123456789`) {
					t.Errorf("cut copy %s; want the string's head and tail around a note, within %d chars", cut, budget)
				}
				if !conforms([]byte(tt.schema), got.StructuredContent) {
					t.Error("the cut copy does not validate against the outputSchema")
				}
			}
			if string(res.StructuredContent) != tt.structured || res.Text() != "the text" {
				t.Error("the server's result was modified")
			}
		})
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// The cut copy keeps keys in order and numbers exactly; only long strings
// change.
func TestCutStringsKeepsEverythingElse(t *testing.T) {
	long := strings.Repeat("é", 300)
	in := `{"z":1,"a":{"big":12345678901234567890.5,"s":"` + long + `","list":["x",false,null,-0.0]},"m":"short"}`
	got, ok := cutStrings([]byte(in), "/p", 200)
	if !ok {
		t.Fatal("cutStrings failed")
	}
	want := `{"z":1,"a":{"big":12345678901234567890.5,"s":"` + strings.Repeat("é", 80) +
		`\n[STRING CUT - 100 chars omitted out of 300 total; whole structuredContent in file:/p]\n` + strings.Repeat("é", 120) +
		`","list":["x",false,null,-0.0]},"m":"short"}`
	if string(got) != want {
		t.Errorf("cutStrings:\n got %s\nwant %s", got, want)
	}
}

func TestStructuredSaveFailureSaysWhy(t *testing.T) {
	saver := newMemSaver(KindMCP, KindTool)
	res := structuredResult("t", `{"content":"`+strings.Repeat("x", 500)+`"}`)
	got := run(t, res, Structured(100, saver))
	if text := onlyText(t, got); !strings.Contains(text, "it could not be saved: saving to .artifacts/mcp failed: disk full; saving to .artifacts/tool failed: disk full") {
		t.Errorf("text %q; want both save failures named", text)
	}
}
