package rawjson

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/plughost/plughost/internal/randjson"
)

// checkString compares StringEnd, Unquote, DecodeString and DecodeInPlace
// with encoding/json on the literal lit (quotes included).
func checkString(t *testing.T, lit string) {
	t.Helper()
	wantValid := json.Valid([]byte(lit))
	end, ok := StringEnd(lit, 0)
	if gotValid := ok && end == len(lit); gotValid != wantValid {
		t.Fatalf("StringEnd(%q) = %d, %v; json.Valid says %v", lit, end, ok, wantValid)
	}
	if !wantValid {
		return
	}
	var want string
	if err := json.Unmarshal([]byte(lit), &want); err != nil {
		t.Fatalf("json.Unmarshal(%q): %v", lit, err)
	}
	content := lit[1 : len(lit)-1]
	var b strings.Builder
	n := Unquote(content, nil)
	if m := Unquote(content, &b); m != n {
		t.Fatalf("Unquote(%q) counted %d bytes but wrote %d", lit, n, m)
	}
	if b.String() != want || n != len(want) {
		t.Fatalf("Unquote(%q) = %q (%d bytes); json.Unmarshal = %q (%d)", lit, b.String(), n, want, len(want))
	}
	if k := DecodeString(lit); k != want {
		t.Fatalf("DecodeString(%q) = %q; want %q", lit, k, want)
	}
	if got := DecodeInPlace([]byte(lit)); got != want {
		t.Fatalf("DecodeInPlace(%q) = %q; want %q", lit, got, want)
	}
}

// DecodeInPlace shares the literal's bytes when they are UTF-8, and leaves
// them alone (decoding into a new string) when they are not.
func TestDecodeInPlaceSharesTheBuffer(t *testing.T) {
	lit := []byte(`"line 1\nline 2 \u20ac\ud83d\ude00"`)
	got := DecodeInPlace(lit)
	if got != "line 1\nline 2 €😀" {
		t.Fatalf("DecodeInPlace = %q", got)
	}
	if unsafe.StringData(got) != &lit[1] {
		t.Error("the text does not share the literal's bytes")
	}
	bad := []byte("\"x\xff\\n\"")
	before := string(bad)
	if got := DecodeInPlace(bad); got != "x\uFFFD\n" || string(bad) != before {
		t.Errorf("DecodeInPlace on non-UTF-8 = %q, literal now %q; want a new string and the literal unchanged", got, bad)
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	tests := map[string]string{
		"empty":                     ``,
		"plain":                     `plain`,
		"all short escapes":         `\"\\\/\b\f\n\r\t`,
		"escaped backslash then u":  `\\u0041`,
		"BMP escapes":               `\u0041\u00e9\u20ac\u0000\uFFFD`,
		"surrogate pair":            `x\ud83d\ude00y`,
		"upper-case pair":           `\uD83D\uDE00`,
		"lone high at the end":      `a\ud800`,
		"lone high before text":     `\ud800x`,
		"lone low":                  `\udc00`,
		"high, high, low":           `\ud800\ud800\udc00`,
		"high before \\n":           `\ud800\n`,
		"high before non-surrogate": `\ud800\u0041`,
		"invalid UTF-8 bytes":       "a\xffb\xfe",
		"truncated UTF-8":           "\xc3",
		"truncated before ASCII":    "\xe2\x82(",
		"UTF-8 surrogate":           "\xed\xa0\x80",
		"beyond U+10FFFF":           "\xf4\x90\x80\x80",
		"U+FFFD as sent":            "\xef\xbf\xbd",
		"invalid byte after escape": `\n` + "\xff" + `\t`,
		"multi-byte text":           "héllo 日本 😀 \x7f",
		"unknown escape":            `\x`,
		"short \\u":                 `\u12`,
		"bad hex":                   `\u12G4`,
		"single quote escape":       `\'`,
		"control character":         "a\x01b",
		"last control character":    "a\x1fb",
		"raw newline":               "a\nb",
		"trailing backslash":        `a\`,
		"inner quote":               `a"b`,
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) { checkString(t, `"`+content+`"`) })
	}
}

func TestUnquoteMatchesEncodingJSONRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		checkString(t, `"`+randjson.String(r, 12, true)+`"`)
	}
}
