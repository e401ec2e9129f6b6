package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blugelabs/bluge"
)

// Search ranks documents against query with BM25 and returns at most k hits,
// best first. Documents whose ID or tool name equals the query (see the
// package doc) come first. Equal scores are ordered by ID. A query with no
// searchable term returns no hits.
func (ix *Index) Search(query string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	exact, reader, err := ix.snapshot(exactKey(query))
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	q := ix.buildQuery(Analyze(query))
	if q == nil && len(exact) == 0 {
		return nil, nil
	}
	var hits []Hit
	if q != nil {
		hits, err = ix.topN(reader, q, k+len(exact))
		if err != nil {
			return nil, fmt.Errorf("search: query %q: %w", query, err)
		}
	}
	return promoteExact(hits, exact, k), nil
}

// snapshot returns the IDs exactly matching key and a reader on the current
// index.
func (ix *Index) snapshot(key string) ([]string, *bluge.Reader, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, nil, ErrClosed
	}
	exact := slices.Clone(ix.exact[key])
	reader, err := ix.writer.Reader()
	if err != nil {
		return nil, nil, fmt.Errorf("search: open reader: %w", err)
	}
	return exact, reader, nil
}

// buildQuery returns the disjunction of every distinct term in every
// weighted field, or nil when terms is empty. A term repeated in the query
// counts once, so a long query that repeats a word does not drown the others.
func (ix *Index) buildQuery(terms []string) bluge.Query {
	if len(terms) == 0 {
		return nil
	}
	seen := map[string]bool{}
	q := bluge.NewBooleanQuery()
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		for _, f := range ix.weights.fields() {
			q.AddShould(bluge.NewTermQuery(t).SetField(f.name).SetBoost(f.weight))
		}
	}
	return q
}

// topN runs q and returns up to n hits ordered by score, then ID.
//
// bluge sorts by score alone here (sorting on "_id" loads the ID of every
// matching document and made queries ten times slower); ties are broken by
// ID afterwards. When the n-th hit's score may continue past the cut, the
// search is repeated deeper so a tie at the boundary keeps the lowest IDs.
func (ix *Index) topN(reader *bluge.Reader, q bluge.Query, n int) ([]Hit, error) {
	for depth := n + 8; ; depth *= 4 {
		hits, err := ix.run(reader, q, depth)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(hits, compareHits)
		if len(hits) < depth || len(hits) <= n || hits[depth-1].Score != hits[n-1].Score {
			return hits[:min(n, len(hits))], nil
		}
	}
}

// compareHits orders by score, higher first, then by ID.
func compareHits(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

func (ix *Index) run(reader *bluge.Reader, q bluge.Query, depth int) ([]Hit, error) {
	it, err := reader.Search(context.Background(), bluge.NewTopNSearch(depth, q))
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for {
		m, err := it.Next()
		if err != nil {
			return nil, err
		}
		if m == nil {
			return hits, nil
		}
		var id string
		err = m.VisitStoredFields(func(field string, value []byte) bool {
			if field == "_id" {
				id = string(value)
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		hits = append(hits, Hit{ID: id, Score: m.Score})
	}
}

// promoteExact moves the exact matches to the front (in their BM25 order,
// then by ID; an exact match BM25 did not return scores 0 before the
// promotion), lifts their scores above every other hit so Score still orders
// the list, and cuts it to k.
func promoteExact(hits []Hit, exact []string, k int) []Hit {
	if len(exact) == 0 {
		return hits[:min(k, len(hits))]
	}
	isExact := map[string]bool{}
	for _, id := range exact {
		isExact[id] = true
	}
	var front, rest []Hit
	for _, h := range hits {
		if isExact[h.ID] {
			front = append(front, h)
			delete(isExact, h.ID)
		} else {
			rest = append(rest, h)
		}
	}
	for _, id := range exact {
		if isExact[id] {
			front = append(front, Hit{ID: id})
		}
	}
	lift := 1.0
	if len(rest) > 0 {
		lift += rest[0].Score
	}
	for i := range front {
		front[i].Score += lift
	}
	out := append(front, rest...)
	return out[:min(k, len(out))]
}
