package search

import (
	"unicode"
)

// A query is a request written for a model or by a person ("Get me the
// content of note "abc123" so I can review it"), not a list of keywords.
// Three kinds of words in it say little about which tool is wanted, and
// the query analysis weighs them down:
//
//   - Quoted literals ("abc123", 'report.csv', "Meeting Minutes") are mostly
//     argument values: file names, IDs, search terms. Their terms count with
//     Weights.Quoted unless they also occur outside the quotes.
//   - Number literals ("20", "5th") are argument values too: they are
//     dropped ("s3", "ipv4" and other identifiers with digits are kept).
//   - Request phrasing ("please", "I need", "can you give me") says that
//     something is asked, not what: those words are dropped. The English
//     stop words are dropped everywhere already.
//
// A query made only of such words keeps them: searching for "10" still
// finds a tool called "10".

// splitQuoted returns the text of query outside quotes (each quoted span
// replaced by a space) and the text inside them. Double quotes, curly
// quotes and single quotes count; an apostrophe inside or at the end of a
// word ("user's", "users'") does not open a quote, and a quote that is never
// closed is kept as text.
func splitQuoted(query string) (outside, inside string) {
	rs := []rune(query)
	out := make([]rune, 0, len(rs))
	var in []rune
	isWord := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	for i := 0; i < len(rs); i++ {
		closer, ok := quoteCloser(rs[i])
		if !ok || (rs[i] == '\'' || rs[i] == '‘') && isWord(i-1) {
			out = append(out, rs[i])
			continue
		}
		j := i + 1
		for ; j < len(rs); j++ {
			// A single quote closes only where a word ends ("'don't'").
			if rs[j] == closer && (closer == '"' || closer == '”' || !isWord(j+1)) {
				break
			}
		}
		if j == len(rs) {
			out = append(out, rs[i])
			continue
		}
		in = append(in, rs[i+1:j]...)
		in = append(in, ' ')
		out = append(out, ' ')
		i = j
	}
	return string(out), string(in)
}

// quoteCloser returns the rune that closes a quote opened by r.
func quoteCloser(r rune) (rune, bool) {
	switch r {
	case '"':
		return '"', true
	case '“':
		return '”', true
	case '\'':
		return '\'', true
	case '‘':
		return '’', true
	}
	return 0, false
}

// isNumberLiteral reports whether term is a number or an ordinal ("20",
// "5th", "2nd"), as the analyzer leaves them.
func isNumberLiteral(term string) bool {
	i := 0
	for i < len(term) && term[i] >= '0' && term[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	switch term[i:] {
	case "", "st", "nd", "rd", "th":
		return true
	}
	return false
}

// requestWords are the words of request phrasing ("could you please give me
// …", "I need …", "make sure …") that the English stop word list keeps.
var requestWords = setOf(
	"please", "kindly", "want", "need", "like", "would", "could", "can",
	"help", "give", "tell", "let", "know", "wondering", "also", "just",
	"sure", "make", "able", "ok", "okay", "thanks", "thank", "hey", "hi",
	"hello",
)

// actionSynonyms groups the verbs that tool descriptions and requests use
// for the same few operations on a resource. A query term from a group also
// searches the group's other words (with Weights.Synonym), so "fetch the
// file" finds a read_file whose description says "retrieve". Only the
// generic operation verbs are here: domain words are left to the index.
var actionSynonyms = synonymTable(
	[]string{"get", "fetch", "retrieve", "read", "obtain", "show", "display", "view", "access"},
	[]string{"create", "add", "new", "make", "generate", "insert"},
	[]string{"delete", "remove", "erase", "destroy", "drop"},
	[]string{"update", "modify", "edit", "change", "alter"},
	[]string{"list", "enumerate"},
	[]string{"search", "find", "query", "lookup", "look"},
	[]string{"send", "post", "submit"},
	[]string{"run", "execute", "invoke", "launch"},
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// synonymTable maps every word of every group to the other words of its
// group, in group order.
func synonymTable(groups ...[]string) map[string][]string {
	m := map[string][]string{}
	for _, g := range groups {
		for _, w := range g {
			for _, o := range g {
				if o != w {
					m[w] = append(m[w], o)
				}
			}
		}
	}
	return m
}
