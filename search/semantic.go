package search

import (
	"math"
	"slices"
	"sync"
)

// Semantic configures the semantic signal that vectors add to the BM25
// ranking: static word vectors ([WordVectors], offline) and, optionally,
// an embedding endpoint ([Embedder]). Each part is off at 0.
//
//   - Expansion (word vectors): a query term also searches the index terms
//     nearest to it in the vector space — at most Neighbors of them, with a
//     cosine of at least MinSimilarity — with boost Expansion × cosine × the
//     term's own boost. Only the index's own vocabulary is searched, so
//     every added lookup can match, and the lookups are ordinary weighted
//     terms: the max-score early stopping stays exact. With ExpandAll
//     false only query terms the index does not hold are expanded (they
//     add nothing lexically; "jot" finds "note").
//   - Dense: the exact BM25 top Depth are re-ranked by
//     bm25/bm25max + Dense × cos(query, tool), the vectors coming from the
//     Embedder when there is one, else from the word vectors (the
//     frequency-weighted average of a text's word vectors). Exact name
//     matches still rank first.
type Semantic struct {
	Expansion     float64
	Neighbors     int
	MinSimilarity float64
	ExpandAll     bool
	Dense         float64
	Depth         int
}

// DefaultSemantic returns the settings used when WithSemantic is given the
// zero Semantic: the expansion of query words no tool uses, the piece
// aimed at people's wording. On the development queries no piece helped on
// both halves of a two-fold cross-validation (`plughost search eval --cv`,
// docs/benchmarks.md), which is why the host leaves word vectors off
// unless configured.
func DefaultSemantic() Semantic {
	return Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.6}
}

// WithSemantic adds the semantic signal of word vectors wv to the ranking.
// A nil wv leaves the index lexical; a zero s means DefaultSemantic.
func WithSemantic(wv *WordVectors, s Semantic) Option {
	return func(ix *Index) {
		if wv == nil {
			return
		}
		if s == (Semantic{}) {
			s = DefaultSemantic()
		}
		ix.vectors, ix.semantic = wv, s
	}
}

// sifA is the smoothing constant of the word weights a/(a + p(w)) (Arora
// et al., "A simple but tough-to-beat baseline for sentence embeddings",
// 2017): frequent words weigh little in a text's vector.
const sifA = 1e-3

// wordWeight is the weight of the word of rank r in a text vector, with
// p(w) estimated by Zipf's law for English, p ≈ 0.1 / (rank + 1).
func wordWeight(r int) float32 {
	p := 0.1 / float64(r+1)
	return float32(sifA / (sifA + p))
}

// TextVector returns the unit vector of terms (as [Analyze] gives them):
// the sum of the vectors of the terms the table has, each weighted by how
// rare its word is (SIF), or nil when it has none. It is the vector the
// dense re-rank gives a query (its plain terms) and a tool (its name,
// description and parameter names).
func (wv *WordVectors) TextVector(terms []string) []float32 {
	var sum []float32
	for _, t := range terms {
		r, ok := wv.lookup(t)
		if !ok {
			continue
		}
		if sum == nil {
			sum = make([]float32, wv.dims)
		}
		wv.addTo(sum, r, wordWeight(r))
	}
	return normalize(sum)
}

// normalize scales v to unit length in place; it returns nil for a zero
// or empty v.
func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return nil
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// dot returns the dot product of a and b (0 when their lengths differ).
func dot(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// docTerms returns the analysed terms of d's own text (name, description,
// parameter names): what its word-vector average and the expansion
// vocabulary are made of.
func docTerms(d Doc) []string {
	terms := Analyze(d.Name)
	terms = append(terms, Analyze(d.Description)...)
	for _, p := range d.Params {
		terms = append(terms, Analyze(p.Name)...)
	}
	return terms
}

// vocabulary is the set of index terms that have a word vector, with the
// number of tool documents holding each; the matrix the expansion searches
// (rebuilt when the set changed) and a cache of the neighbours found.
type vocabulary struct {
	mu     sync.Mutex
	count  map[string]int
	dirty  bool
	terms  []string
	matrix []float32 // len(terms) × dims, unit rows
	cache  map[string][]neighbor
}

// maxNeighborCache bounds the neighbour cache (it is emptied when full).
const maxNeighborCache = 20000

// update adds (delta 1) or removes (delta -1) the distinct terms of a
// document.
func (v *vocabulary) update(wv *WordVectors, terms []string, delta int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.count == nil {
		v.count = map[string]int{}
	}
	for _, t := range uniq(terms) {
		if _, ok := wv.lookup(t); !ok {
			continue
		}
		n := v.count[t] + delta
		switch {
		case n <= 0:
			delete(v.count, t)
			v.dirty = true
		case n == delta:
			v.count[t] = n
			v.dirty = true
		default:
			v.count[t] = n
		}
	}
}

// has reports whether some tool document holds term.
func (v *vocabulary) has(term string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.count[term] > 0
}

func uniq(terms []string) []string {
	s := slices.Clone(terms)
	slices.Sort(s)
	return slices.Compact(s)
}

// neighbor is an index term near a query term.
type neighbor struct {
	term string
	sim  float32
}

// neighbors returns, best first (ties by term), at most n index terms
// whose cosine with word is at least minSim, leaving out word itself.
// Results are cached until the vocabulary changes.
func (v *vocabulary) neighbors(wv *WordVectors, word string, n int, minSim float32) []neighbor {
	r, ok := wv.lookup(word)
	if !ok || n <= 0 {
		return nil
	}
	v.mu.Lock()
	if v.dirty || (v.terms == nil && len(v.count) > 0) {
		v.rebuild(wv)
	}
	if nbs, ok := v.cache[word]; ok {
		v.mu.Unlock()
		return filterNeighbors(nbs, n, minSim)
	}
	terms, matrix := v.terms, v.matrix
	v.mu.Unlock()

	q := normalize(wv.addTo(make([]float32, wv.dims), r, 1))
	// Keep the best cachedNeighbors (≥ n) so the cache serves any n and
	// minSim up to it.
	keep := max(n, cachedNeighbors)
	var out []neighbor
	dims := wv.dims
	for i, t := range terms {
		s := dot(q, matrix[i*dims:(i+1)*dims])
		if t == word || s <= 0 || (len(out) == keep && !better(neighbor{t, s}, out[keep-1])) {
			continue
		}
		if len(out) < keep {
			out = append(out, neighbor{t, s})
		} else {
			out[keep-1] = neighbor{t, s}
		}
		slices.SortFunc(out, compareNeighbors)
	}

	v.mu.Lock()
	if slices.Equal(v.terms, terms) { // not rebuilt meanwhile
		if len(v.cache) >= maxNeighborCache {
			clear(v.cache)
		}
		v.cache[word] = out
	}
	v.mu.Unlock()
	return filterNeighbors(out, n, minSim)
}

// cachedNeighbors is how many neighbours a cache entry keeps.
const cachedNeighbors = 8

func better(a, b neighbor) bool { return compareNeighbors(a, b) < 0 }

func compareNeighbors(a, b neighbor) int {
	switch {
	case a.sim > b.sim:
		return -1
	case a.sim < b.sim:
		return 1
	case a.term < b.term:
		return -1
	case a.term > b.term:
		return 1
	}
	return 0
}

// filterNeighbors returns the first n of nbs (best first) with a cosine
// of at least minSim.
func filterNeighbors(nbs []neighbor, n int, minSim float32) []neighbor {
	out := make([]neighbor, 0, n)
	for _, nb := range nbs {
		if len(out) == n || nb.sim < minSim {
			break
		}
		out = append(out, nb)
	}
	return out
}

// rebuild makes the matrix of the current vocabulary (sorted terms, so
// the result does not depend on map order) and empties the cache. The
// caller holds v.mu.
func (v *vocabulary) rebuild(wv *WordVectors) {
	terms := make([]string, 0, len(v.count))
	for t := range v.count {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	matrix := make([]float32, len(terms)*wv.dims)
	for i, t := range terms {
		r, _ := wv.lookup(t)
		normalize(wv.addTo(matrix[i*wv.dims:(i+1)*wv.dims], r, 1))
	}
	v.terms, v.matrix, v.dirty = terms, matrix, false
	v.cache = map[string][]neighbor{}
}

// expansion returns the lookups the word vectors add to a query whose
// lookups so far are terms (seen holds their terms and is updated): the
// neighbours of each composite-field term (see [Semantic]).
func (ix *Index) expansion(terms []weightedTerm, seen map[string]bool) []weightedTerm {
	s := ix.semantic
	if ix.vectors == nil || s.Expansion <= 0 || s.Neighbors <= 0 {
		return nil
	}
	var out []weightedTerm
	for _, t := range terms {
		if t.field != fieldText || (!s.ExpandAll && ix.vocab.has(t.term)) {
			continue
		}
		for _, nb := range ix.vocab.neighbors(ix.vectors, t.term, s.Neighbors, float32(s.MinSimilarity)) {
			if !seen[nb.term] {
				seen[nb.term] = true
				out = append(out, weightedTerm{term: nb.term, field: fieldText, boost: t.boost * s.Expansion * float64(nb.sim)})
			}
		}
	}
	return out
}

// denseOn reports whether Search re-ranks with tool vectors.
func (ix *Index) denseOn() bool {
	return ix.semantic.Dense > 0 && ix.semantic.Depth > 0 && (ix.vectors != nil || ix.embedder != nil)
}

// rerank re-orders hits (BM25, best first) by bm25/bm25max + Dense ×
// cos(q, tool), ties by ID. A tool without a vector, or a nil q, keeps its
// BM25 part only.
func (ix *Index) rerank(hits []Hit, q []float32) []Hit {
	if len(hits) == 0 || q == nil {
		return hits
	}
	top := hits[0].Score
	ix.mu.RLock()
	for i := range hits {
		s := hits[i].Score / top
		if e, ok := ix.docs[hits[i].ID]; ok && e.vec != nil {
			s += ix.semantic.Dense * float64(dot(q, e.vec))
		}
		hits[i].Score = s
	}
	ix.mu.RUnlock()
	slices.SortFunc(hits, compareHits)
	return hits
}
