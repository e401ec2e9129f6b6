package eval

import (
	"fmt"
	"strings"
)

// Misses sorts the single-tool queries whose first result is not an
// acceptable tool by what was ranked first instead, so that a ranking
// change can be judged against what is left to gain: a sibling (another
// tool of a server that has an acceptable tool), a namesake (a tool of
// another server whose name is the same as an acceptable tool's, up to
// case and punctuation — often the same operation, which the labels do
// not list), or another tool.
type Misses struct {
	// N is the number of queries.
	N int `json:"n"`
	// NotFirst counts the queries whose first result is not acceptable;
	// it is Sibling + Namesake + Other.
	NotFirst int `json:"not_first"`
	Sibling  int `json:"sibling"`
	Namesake int `json:"namesake"`
	Other    int `json:"other"`
	// NotInTop5 counts the queries with no acceptable tool in the top 5.
	NotInTop5 int `json:"not_in_top5"`
}

// R1IfNamesakesCounted is R@1 when a namesake ranked first counts as
// acceptable: how much of the gap to 1 the labels, not the ranking, make.
func (m Misses) R1IfNamesakesCounted() float64 {
	if m.N == 0 {
		return 0
	}
	return float64(m.N-m.NotFirst+m.Namesake) / float64(m.N)
}

// CountMisses runs qs through s and sorts its misses (see Misses).
func CountMisses(s Searcher, qs []Query) (Misses, error) {
	var m Misses
	for _, q := range qs {
		hits, err := s.Search(q.Query, 5)
		if err != nil {
			return m, fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		m.N++
		ok := IDSet(q.Relevant)
		if r := Rank(hits, ok); r == 0 || r > 5 {
			m.NotInTop5++
		}
		if len(hits) > 0 && ok[hits[0].ID] {
			continue
		}
		m.NotFirst++
		if len(hits) == 0 {
			m.Other++
			continue
		}
		server, name, _ := strings.Cut(hits[0].ID, "\x00")
		switch {
		case hasServer(q.Relevant, server):
			m.Sibling++
		case hasName(q.Relevant, name):
			m.Namesake++
		default:
			m.Other++
		}
	}
	return m, nil
}

func hasServer(refs []ToolRef, server string) bool {
	for _, r := range refs {
		if r[0] == server {
			return true
		}
	}
	return false
}

func hasName(refs []ToolRef, name string) bool {
	for _, r := range refs {
		if foldName(r[1]) == foldName(name) {
			return true
		}
	}
	return false
}

// foldName keeps the lower-cased letters and digits of a tool name:
// get_note, get-note and getNote are one name.
func foldName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
