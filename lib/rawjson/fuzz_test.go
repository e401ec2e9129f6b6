package rawjson

import (
	"testing"

	"github.com/plughost/plughost/internal/randjson"
)

// FuzzUnquote compares the JSON string decoder with encoding/json on the
// fuzzed text as the content of a string literal.
func FuzzUnquote(f *testing.F) {
	for _, s := range randjson.Fragments {
		f.Add(s)
	}
	f.Add(`a\ud83d\ude00\ud800\n` + "\xff\xc3(")
	f.Fuzz(func(t *testing.T, content string) {
		checkString(t, `"`+content+`"`)
	})
}
