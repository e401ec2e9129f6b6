package search

import (
	"fmt"

	"github.com/blugelabs/bluge"
)

// Candidates is the lexical stage of a search: what [Index.Search] starts
// from before the dense re-rank, the exact-match promotion and the cut to
// k. Search does not need it; it is there to measure other re-ranks of
// the same candidates offline (search/research/ltr).
type Candidates struct {
	// Hits are the exact BM25 top k, best first (ties by ID), with their
	// BM25 scores.
	Hits []Hit
	// Exact are the IDs of the tools whose ID or name equals the query,
	// sorted: Search puts them first.
	Exact []string
	// Terms are the query's plain terms in order, as the analyzer gives
	// them: outside quotes, without number literals and request phrasing
	// (see the package doc). A term may repeat.
	Terms []string
	// Idf is the idf of each distinct term of Terms in the tools'
	// composite text (name, server, description, parameter names); a term
	// no tool holds has 0.
	Idf map[string]float64
}

// Candidates returns the lexical stage of searching query with depth k
// (see [Candidates]). The Hits are those Search ranks before any re-rank.
func (ix *Index) Candidates(query string, k int) (Candidates, error) {
	exact, reader, err := ix.snapshot(exactKey(query))
	if err != nil {
		return Candidates{}, err
	}
	defer reader.Close()
	plain, inside := splitQuery(query)
	c := Candidates{Exact: exact, Terms: plain, Idf: map[string]float64{}}
	distinct := uniq(plain)
	idf, err := ix.termIdf(reader, distinct)
	if err != nil {
		return Candidates{}, err
	}
	for i, t := range distinct {
		c.Idf[t] = idf[i]
	}
	terms := ix.queryTerms(plain, inside)
	if terms == nil || k <= 0 {
		return c, nil
	}
	if c.Hits, err = ix.topN(reader, terms, k); err != nil {
		return Candidates{}, fmt.Errorf("search: query %q: %w", query, err)
	}
	return c, nil
}

// termIdf returns the idf of each of terms in the composite text field
// (0 for a term no tool holds).
func (ix *Index) termIdf(reader *bluge.Reader, terms []string) ([]float64, error) {
	out := make([]float64, len(terms))
	if len(terms) == 0 {
		return out, nil
	}
	snap, err := snapshotOf(reader)
	if err != nil {
		return nil, err
	}
	cs, err := snap.CollectionStats(fieldText)
	if err != nil {
		return nil, fmt.Errorf("search: text field statistics: %w", err)
	}
	for i, t := range terms {
		pi, err := snap.PostingsIterator([]byte(t), fieldText, false, false, false)
		if err != nil {
			return nil, fmt.Errorf("search: postings of %q: %w", t, err)
		}
		if n := pi.Count(); n > 0 {
			out[i] = Idf(n, cs.DocumentCount())
		}
		_ = pi.Close()
	}
	return out, nil
}
