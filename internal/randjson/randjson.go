// Package randjson makes random JSON string contents for tests of code that
// reads JSON strings by hand: every escape, surrogate pairs and lone
// surrogates, and bytes that are not UTF-8.
package randjson

import (
	"math/rand/v2"
	"strings"
)

// Fragments are the pieces String joins; the last Bad of them make a
// literal invalid JSON.
var Fragments = []string{
	"a", "plain text ", "é", "日本", "😀", "\x7f", "\uFFFD", "'",
	`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u20AC`, `\u0000`, `\uFFFD`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\ud83d`, `\ude00`, `\udbff\udfff`, `\ud800\ud800`, `\u0041\udc00`,
	"\xff", "\xc3", "\xc3(", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xf0\x9f\x98",
	`\x`, `\u12`, `\uZZZZ`, `\'`, `\`, "\x01", "\x1f", "\n", `"`,
}

// Bad is how many of the last Fragments are not valid string content.
const Bad = 9

// String joins up to n random fragments (the content between the quotes
// of a JSON string literal), only valid ones unless bad.
func String(r *rand.Rand, n int, bad bool) string {
	pool := Fragments
	if !bad {
		pool = pool[:len(pool)-Bad]
	}
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(pool[r.IntN(len(pool))])
	}
	return b.String()
}
