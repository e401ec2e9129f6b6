package shaping

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzBoundText(f *testing.F) {
	for _, seed := range []struct {
		text   string
		budget int
	}{
		{"abcdefghijklmnopqrstuvwxyz", 10}, {"héllo wörld 日本語テキスト", 7}, {"😀😀😀😀", 3},
		{"a\xffb\xc3", 2}, {"", 1}, {"\xe2\x82", 1}, {strings.Repeat("ab\n", 100), 33},
	} {
		f.Add(seed.text, seed.budget)
	}
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if budget < 1 || budget > 1<<16 {
			return
		}
		total := utf8.RuneCountInString(text)
		got, omitted := BoundText(text, total, budget)
		if total <= budget {
			if got != text || omitted != 0 {
				t.Fatalf("text within budget changed")
			}
			return
		}
		head, tail := budget*40/100, budget-budget*40/100
		notice := fmt.Sprintf("\n[MCP RESULT TRUNCATED - %d chars omitted out of %d total]\n", total-head-tail, total)
		i := strings.Index(got, notice)
		if i < 0 || omitted != total-head-tail {
			t.Fatalf("notice missing or wrong count in %q", got)
		}
		h, tl := got[:i], got[i+len(notice):]
		if !strings.HasPrefix(text, h) || !strings.HasSuffix(text, tl) {
			t.Fatalf("head/tail are not the text's ends")
		}
		if utf8.RuneCountInString(h) != head || utf8.RuneCountInString(tl) != tail {
			t.Fatalf("head %d tail %d chars, want %d/%d", utf8.RuneCountInString(h), utf8.RuneCountInString(tl), head, tail)
		}
		if utf8.ValidString(text) && (!utf8.ValidString(h) || !utf8.ValidString(tl)) {
			t.Fatalf("a UTF-8 character was split")
		}
	})
}

func FuzzUnwrapText(f *testing.F) {
	for _, s := range []string{
		`{"result":"a\nb","status":"ok"}`, `{"result":""}`, `{"result":1}`, `{"result":"a","x":1}`,
		`{"result":"{\"result\":\"b\"}"}`, `{"result":"a","result":"b"}`, `{"result":"a"} x`, `[1]`, `{`, `{"result":"\u00e9\ud83d\ude00","metadata":{"a":[1,{"b":null}]}}`,
	} {
		f.Add(s)
	}
	keys := KnownResultKeys()
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := UnwrapText(text)
		if !ok {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			t.Fatalf("unwrapped text that is not a JSON object: %v", err)
		}
		var result string
		if err := json.Unmarshal(obj["result"], &result); err != nil || result == "" {
			t.Fatalf("unwrapped without a non-empty string result")
		}
		if !strings.HasPrefix(got, result) {
			t.Fatalf("unwrapped text does not start with the result")
		}
		delete(obj, "result")
		for k := range obj {
			found := false
			for _, known := range keys {
				found = found || k == known
			}
			if !found {
				t.Fatalf("unknown key %q was unwrapped", k)
			}
		}
		if len(obj) == 0 {
			if got != result {
				t.Fatalf("no siblings, but more than the result: %q", got)
			}
			return
		}
		rest := strings.TrimPrefix(got, result)
		i, j := strings.Index(rest, metadataOpen+"\n"), strings.LastIndex(rest, "\n"+metadataClose+"\n")
		if i < 0 || j < i {
			t.Fatalf("metadata block missing: %q", rest)
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal([]byte(rest[i+len(metadataOpen)+1:j]), &meta); err != nil || len(meta) != len(obj) {
			t.Fatalf("metadata block is not the siblings as JSON: %v %q", err, rest)
		}
	})
}

// FuzzUnwrapTextMatchesReference compares UnwrapText with the decoder-based
// implementation it replaced, on any text.
func FuzzUnwrapTextMatchesReference(f *testing.F) {
	for _, s := range []string{
		`{"result":"a\nb","status":"ok"}`, `{"result":""}`, `{"result":1}`, `{"result":"a","x":1}`,
		`{"result":"{\"result\":\"b\"}"}`, `{"result":"a","result":"b"}`, `{"result":"a"} x`, `[1]`, `{`,
		`{"result":"\u00e9\ud83d\ude00\udc00","metadata":{"a":[1,{"b":null}]}}`, "\u00a0{ \"\\u0072esult\" : \"a\xff\" }",
		`{"result":"a","total":-1.5e3,"ok":true,"error":null,"warnings":[]}`, `{"result":"a","ok":nul}`,
	} {
		f.Add(s)
	}
	f.Fuzz(checkUnwrapMatchesReference)
}
