package callresult

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncodeDecode: whatever Decode accepts, JSON writes as valid JSON
// that decodes to the same tree when written again, and — for input
// without duplicate keys, invalid UTF-8 or null members mcp-go drops —
// to the input's own tree.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"text","text":"x","x-a":[1,{"b":null}],"annotations":{"priority":0.5,"x":"y"}}],"x-t":{"a":1e400}}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png","x":1}],"_meta":{"n":12345678901234567890},"isError":false}`,
		`{"content":[{"type":"resource","resource":{"uri":"a://b","blob":"aGk=","x":true},"_meta":{}}],"structuredContent":{"k":[]}}`,
		`{"content":[{"type":"resource_link","uri":"a://b","name":"n","x":"\u00e9\ud83d\ude00"}],"resultType":"complete"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		res, err := Decode([]byte(raw))
		if err != nil {
			return
		}
		once, err := res.JSON()
		if err != nil {
			return // a value mcp-go cannot encode (a number out of float64's range in a modelled field)
		}
		first, err := tree(once)
		if err != nil {
			t.Fatalf("JSON wrote invalid JSON: %v\n%s", err, once)
		}
		res2, err := Decode(once)
		if err != nil {
			t.Fatalf("Decode of JSON's output: %v\n%s", err, once)
		}
		twice, err := res2.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if second, _ := tree(twice); !reflect.DeepEqual(first, second) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
		if in, err := tree([]byte(raw)); err == nil && utf8.ValidString(raw) && plainJSON(raw) && !reflect.DeepEqual(in, first) {
			t.Fatalf("Decode(raw).JSON() differs from raw:\n%s\n%s", raw, once)
		}
	})
}

// plainJSON reports whether raw has no duplicate object keys and no
// escaped surrogates, which a tree comparison cannot judge fairly (the last
// duplicate wins; a lone surrogate becomes U+FFFD).
func plainJSON(raw string) bool {
	if containsFold(raw, `\ud8`) || containsFold(raw, `\ud9`) || containsFold(raw, `\uda`) || containsFold(raw, `\udb`) ||
		containsFold(raw, `\udc`) || containsFold(raw, `\udd`) || containsFold(raw, `\ude`) || containsFold(raw, `\udf`) {
		return false
	}
	return !hasDuplicateKeys(raw)
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// hasDuplicateKeys reports whether an object in raw (valid JSON) names a
// key twice.
func hasDuplicateKeys(raw string) bool {
	d := json.NewDecoder(strings.NewReader(raw))
	type frame struct {
		keys     map[string]bool
		isObject bool
		wantKey  bool
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.isObject && top.wantKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, isObject: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].isObject {
			stack[len(stack)-1].wantKey = true
		}
	}
}
