package search

import (
	"fmt"
	"slices"

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
	plain, inside := splitQuery(query)
	terms := ix.queryTerms(plain, inside)
	if terms == nil && len(exact) == 0 {
		return nil, nil
	}
	var hits []Hit
	if terms != nil {
		n := k + len(exact)
		dense := ix.denseOn()
		if dense {
			n = max(n, ix.semantic.Depth)
		}
		hits, err = ix.topN(reader, terms, n)
		if err != nil {
			return nil, fmt.Errorf("search: query %q: %w", query, err)
		}
		if dense {
			hits = ix.rerank(hits, ix.queryVector(query, plain))
		}
	}
	return promoteExact(hits, exact, k), nil
}

// splitQuery returns the analysed terms of query outside quotes, minus
// number literals and request phrasing (see querytext.go) unless nothing
// else is left, and the text inside quotes.
func splitQuery(query string) (plain []string, inside string) {
	outside, inside := splitQuoted(query)
	plain = Analyze(outside)
	if kept := slices.DeleteFunc(slices.Clone(plain), func(t string) bool {
		return isNumberLiteral(t) || requestWords[t]
	}); len(kept) > 0 || inside != "" {
		plain = kept
	}
	return plain, inside
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

// queryTerms returns the lookups of a query (split by splitQuery): every
// distinct term in every weighted field, or nil when the query has no
// searchable term. The plain terms count fully; quoted terms count with
// Weights.Quoted; each text term also searches its action synonyms with
// Weights.Synonym and, with word vectors, its nearest index terms (see
// [Semantic]). A term repeated in the query counts once, so a long query
// that repeats a word does not drown the others.
func (ix *Index) queryTerms(plain []string, inside string) []weightedTerm {
	w := ix.weights
	fields := w.fields()
	seen := map[string]bool{}
	var out []weightedTerm
	add := func(terms []string, weight float64) {
		for _, t := range terms {
			if seen[t] {
				continue
			}
			seen[t] = true
			for _, f := range fields {
				out = append(out, weightedTerm{term: t, field: f.name, boost: f.weight * weight})
			}
			if w.ServerContext > 0 {
				out = append(out, weightedTerm{term: t, field: fieldServerCtx, boost: w.ServerContext * weight})
			}
		}
	}
	add(plain, 1)
	plainTerms := len(out)
	if w.Quoted > 0 {
		add(Analyze(inside), w.Quoted)
	}
	textTerms := len(out)
	if w.Synonym > 0 {
		for i := 0; i < textTerms; i++ {
			t := out[i]
			if t.field != fieldText {
				continue
			}
			for _, syn := range actionSynonyms[t.term] {
				if !seen[syn] {
					seen[syn] = true
					out = append(out, weightedTerm{term: syn, field: fieldText, boost: t.boost * w.Synonym})
				}
			}
		}
	}
	out = append(out, ix.expansion(out[:plainTerms], seen)...)
	return out
}

// topN scores the documents matching terms (see [scoreRequest]) and returns
// up to n hits ordered by score, then ID.
func (ix *Index) topN(reader *bluge.Reader, terms []weightedTerm, n int) ([]Hit, error) {
	return ix.rank(reader, terms, n, true)
}

// rank is topN; with prune false it reads every postings list whole (the
// tests compare the two).
func (ix *Index) rank(reader *bluge.Reader, terms []weightedTerm, n int, prune bool) ([]Hit, error) {
	acc := accPool.Get().(*accumulator)
	defer func() {
		acc.reset()
		accPool.Put(acc)
	}()
	req := &scoreRequest{n: n, prune: prune, sim: ix.sim, acc: acc, topServers: topServers}
	for _, t := range terms {
		if t.field == fieldServerCtx {
			req.serverTerms = append(req.serverTerms, t)
		} else {
			req.terms = append(req.terms, t)
		}
	}
	snap, err := snapshotOf(reader)
	if err != nil {
		return nil, err
	}
	if err := req.score(snap); err != nil {
		return nil, err
	}
	return acc.top(snap, n)
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

// topServers is how many of the best-matching servers lend their score
// (see Weights.ServerContext) to their tools.
const topServers = 50
