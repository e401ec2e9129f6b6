package search

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
	"github.com/blugelabs/bluge/analysis/token"
)

// newAnalyzer returns the analyzer used for every indexed field and for
// queries: identifier tokenizer, possessive filter, lower case, English stop
// words, minimal (plural-folding) English stemmer — see sStemmer for why not
// snowball.
func newAnalyzer() *analysis.Analyzer {
	return &analysis.Analyzer{
		Tokenizer: identTokenizer{},
		TokenFilters: []analysis.TokenFilter{
			en.NewPossessiveFilter(),
			token.NewLowerCaseFilter(),
			en.StopWordsFilter(),
			sStemmer{},
		},
	}
}

// sharedAnalyzer is the one analyzer of the package: its tokenizer and
// filters keep no state between calls, so it is safe for concurrent use, and
// building it (the stop word map) costs more than analysing a query.
var sharedAnalyzer = sync.OnceValue(newAnalyzer)

// Analyze returns the terms the index stores for text (and searches for when
// text is a query), in order. It is exported so callers and tests can see
// why a document does or does not match.
func Analyze(text string) []string {
	ts := sharedAnalyzer().Analyze([]byte(text))
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}

// identTokenizer splits text into words and identifiers into their parts.
// A word split at camelCase boundaries is also kept whole, because product
// names are written both ways: "GitHub" gives github, git and hub, so it
// matches a query for "github" as well as one for "git hub".
type identTokenizer struct{}

// Tokenize implements analysis.Tokenizer.
func (identTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var ts analysis.TokenStream
	add := func(span [2]int) {
		ts = append(ts, &analysis.Token{
			Start:        span[0],
			End:          span[1],
			Term:         append([]byte(nil), input[span[0]:span[1]]...),
			PositionIncr: 1,
			Type:         analysis.AlphaNumeric,
		})
	}
	spans := identSpans(input)
	for i := 0; i < len(spans); {
		j := i + 1
		for j < len(spans) && spans[j][0] == spans[j-1][1] { // parts of one word
			j++
		}
		if j-i > 1 {
			add([2]int{spans[i][0], spans[j-1][1]})
		}
		for ; i < j; i++ {
			add(spans[i])
		}
	}
	return ts
}

type runeClass int

const (
	classSep runeClass = iota
	classLower
	classUpper
	classDigit
	classApos
)

func classify(r rune) runeClass {
	switch {
	case unicode.IsUpper(r):
		return classUpper
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return classLower
	case unicode.IsDigit(r):
		return classDigit
	case r == '\'' || r == '’':
		return classApos
	}
	return classSep
}

type runeAt struct {
	r     rune
	class runeClass
	off   int
}

// identSpans returns the byte spans of the tokens of input.
func identSpans(input []byte) [][2]int {
	var runes []runeAt
	for off := 0; off < len(input); {
		r, n := utf8.DecodeRune(input[off:])
		runes = append(runes, runeAt{r, classify(r), off})
		off += n
	}
	var spans [][2]int
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			spans = append(spans, [2]int{start, end})
		}
		start = -1
	}
	for i, cur := range runes {
		if cur.class == classSep || (cur.class == classApos && !aposInWord(runes, i)) {
			flush(cur.off)
			continue
		}
		if start >= 0 && boundaryBefore(runes, i) {
			flush(cur.off)
		}
		if start < 0 {
			start = cur.off
		}
	}
	flush(len(input))
	return spans
}

// aposInWord reports whether the apostrophe at i sits between two letters
// ("user's", "don't"), where it belongs to the word.
func aposInWord(runes []runeAt, i int) bool {
	isLetter := func(c runeClass) bool { return c == classLower || c == classUpper }
	return i > 0 && i+1 < len(runes) && isLetter(runes[i-1].class) && isLetter(runes[i+1].class)
}

// boundaryBefore reports whether a new token starts at rune i inside a run of
// letters and digits: lower→Upper ("createPull"), digit→Upper ("s3Bucket"),
// and the last capital of an acronym followed by a word of two or more lower
// case letters ("HTTPServer" → HTTP Server, but "IPv4" and "URLs" stay whole).
func boundaryBefore(runes []runeAt, i int) bool {
	prev, cur := runes[i-1].class, runes[i].class
	if cur != classUpper {
		return false
	}
	if prev == classLower || prev == classDigit {
		return true
	}
	if prev != classUpper {
		return false
	}
	lowers := 0
	for j := i + 1; j < len(runes) && runes[j].class == classLower; j++ {
		lowers++
	}
	return lowers >= 2
}
