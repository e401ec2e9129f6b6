package search

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// MaxPatternLen is the longest pattern Regex accepts, in characters.
const MaxPatternLen = 200

// ErrPatternTooLong is returned (wrapped) for a pattern longer than
// MaxPatternLen characters.
var ErrPatternTooLong = errors.New("pattern too long")

// Regex returns at most k documents whose ID, server, tool name, description
// or parameters (names and descriptions) match the RE2 pattern,
// case-insensitively. Documents matching on the ID or tool name come first,
// then on the server, then on the rest; ties are ordered by ID. A pattern
// that does not compile gets an error that wraps the *syntax.Error, whose
// message shows the problem.
func (ix *Index) Regex(pattern string, k int) ([]Hit, error) {
	if n := utf8.RuneCountInString(pattern); n > MaxPatternLen {
		return nil, fmt.Errorf("search: regex: %w: %d characters, at most %d", ErrPatternTooLong, n, MaxPatternLen)
	}
	// Parse first so the error quotes the caller's pattern, not "(?i)"+pattern.
	if _, err := syntax.Parse(pattern, syntax.Perl|syntax.FoldCase); err != nil {
		return nil, fmt.Errorf("search: regex: %w", err)
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, fmt.Errorf("search: regex: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	hits, err := ix.scan(re)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(hits, compareHits)
	return hits[:min(k, len(hits))], nil
}

func (ix *Index) scan(re *regexp.Regexp) ([]Hit, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, ErrClosed
	}
	var hits []Hit
	for id, e := range ix.docs {
		if s := regexScore(re, e); s > 0 {
			hits = append(hits, Hit{ID: id, Score: s})
		}
	}
	return hits, nil
}

// regexScore ranks where re matched: the tool's name (3), its server (2), or
// only its description or parameters (1); 0 means no match.
func regexScore(re *regexp.Regexp, e *entry) float64 {
	switch {
	case re.MatchString(e.doc.ID) || re.MatchString(e.doc.Name):
		return 3
	case re.MatchString(e.doc.Server):
		return 2
	case re.MatchString(e.doc.Description) || re.MatchString(e.params):
		return 1
	}
	return 0
}
