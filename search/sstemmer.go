package search

import "github.com/blugelabs/bluge/analysis"

// sStemmer is a minimal English stemmer in the spirit of Harman's "S"
// stemmer (1991): it only folds plurals ("-ies" → "-y", "-s" → ""), with
// the classic exceptions. Tool names and descriptions are short and full of identifiers
// and product names, which an aggressive stemmer conflates ("organization"
// and "organ", "general" and "generate" share a snowball stem); plural
// folding keeps nearly all the benefit of stemming for them.
type sStemmer struct{}

// Filter stems every token in place.
func (sStemmer) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if s, ok := sStem(string(t.Term)); ok {
			t.Term = []byte(s)
		}
	}
	return in
}

// sStem applies the S-stemmer rules to a lower-case word, reporting whether
// it changed it: words ending in "us" or "ss" keep their "s"; "-ies" becomes
// "-y" unless preceded by "a" or "e"; "-ies", "-aes", "-oes" and "-ees" stay
// otherwise; any other final "s" is dropped. Words under three letters are
// left alone.
func sStem(w string) (string, bool) {
	n := len(w)
	if n < 3 || w[n-1] != 's' {
		return w, false
	}
	switch w[n-2] {
	case 'u', 's':
		return w, false
	case 'e':
		if n > 3 && w[n-3] == 'i' && w[n-4] != 'a' && w[n-4] != 'e' {
			return w[:n-3] + "y", true
		}
		switch w[n-3] {
		case 'i', 'a', 'o', 'e':
			return w, false
		}
	}
	return w[:n-1], true
}
