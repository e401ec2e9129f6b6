package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/blugelabs/bluge"
)

// The features of a (query, tool) pair that the learned re-rank weighs
// (see [Rerank]). Each is computed from the query's plain terms (the
// analysed words outside quotes, minus request phrasing) and the tool.
const (
	// FeatScore is the tool's BM25 score over the best score of the query.
	FeatScore = iota
	// FeatRank is 1/(1 + r), r the tool's 0-based BM25 rank.
	FeatRank
	// FeatDense is the cosine of the query's and the tool's word-vector
	// averages (name and description; 0 without word vectors).
	FeatDense
	// FeatNameCover is the share of the tool name's distinct terms the
	// query holds: 1 for send_invoice and 0.5 for
	// send_invoice_overdue_reminder when the query says "send the invoice".
	FeatNameCover
	// FeatNameLen is log(1 + the number of distinct terms of the name).
	FeatNameLen
	// FeatQueryCover is the share of the query's distinct terms found in
	// the tool's text (name, server, description, parameter names).
	FeatQueryCover
	// FeatIDFCover is FeatQueryCover with each term weighted by its idf.
	FeatIDFCover
	// FeatServer is the share of the server name's distinct terms the query
	// holds.
	FeatServer
	// FeatNameMiss is log(1 + the number of the name's distinct terms the
	// query does not hold): the words a longer sibling name adds.
	FeatNameMiss
	// FeatNameHits is log(1 + the number of the name's distinct terms the
	// query holds).
	FeatNameHits
	// FeatServerMass is the share of the candidates' summed FeatScore
	// held by the other candidates of the tool's server: how much the
	// query points to the server as a whole.
	FeatServerMass
	// FeatServerRank is 1/(1 + r), r the 0-based rank of the tool's server
	// among the candidates' servers (ordered by their best candidate).
	FeatServerRank
	// NumFeatures is the number of features.
	NumFeatures
)

// FeatureName returns the short name of feature f (as the evaluation
// prints it), or "" for an unknown f.
func FeatureName(f int) string {
	names := [NumFeatures]string{"bm25", "rank", "dense", "name_cover", "name_len", "query_cover", "idf_cover", "server", "name_miss", "name_hits", "server_mass", "server_rank"}
	if f < 0 || f >= NumFeatures {
		return ""
	}
	return names[f]
}

// Features are the feature values of one (query, tool) pair, indexed by
// the Feat constants.
type Features [NumFeatures]float64

// Rerank is a learned, linear re-rank of the exact BM25 top Depth (or of
// the top k when a search asks for more): each hit scores Weights · its
// [Features], and the hits are ordered by that score (then by BM25 score
// and ID). Only the order of those top hits changes: the BM25 stage and
// its early stopping stay exact, and exact name matches still rank first. The weights are learned offline on a benchmark
// (`plughost search eval --ltr`, package search/eval).
type Rerank struct {
	Depth   int
	Weights Features
}

// on reports whether the re-rank changes anything.
func (r Rerank) on() bool { return r.Depth > 0 && r.Weights != (Features{}) }

// Score returns Weights · f.
func (r Rerank) Score(f Features) float64 {
	var s float64
	for i, w := range r.Weights {
		s += w * f[i]
	}
	return s
}

// WithRerank re-ranks the BM25 top r.Depth with r; a Rerank with no
// depth or no weight changes nothing. wv gives the FeatDense feature its
// word vectors; a nil wv leaves that feature 0 (unless WithSemantic gave
// the index vectors). With WithEmbedder, the embedder's vectors give
// FeatDense instead.
//
// No weights are shipped: on the development benchmark no learned re-rank
// chosen by cross-validation was better on both halves of the queries
// (docs/benchmarks.md, "Learned re-rank"), so the host does not use one.
func WithRerank(r Rerank, wv *WordVectors) Option {
	return func(ix *Index) {
		if !r.on() {
			return
		}
		ix.rerankModel = r
		ix.features = true
		if ix.vectors == nil && wv != nil {
			ix.vectors = wv
		}
	}
}

// WithFeatures makes the index keep what [Index.Candidates] needs to
// compute features, without re-ranking: for training a [Rerank]. wv is as
// in WithRerank.
func WithFeatures(wv *WordVectors) Option {
	return func(ix *Index) {
		ix.features = true
		if ix.vectors == nil && wv != nil {
			ix.vectors = wv
		}
	}
}

// featureData is what an entry keeps for the features: the distinct
// analysed terms (as termDict IDs, sorted) of the name, of the server
// name and of the whole text, and the word-vector average of name and
// description.
type featureData struct {
	name, server, text []uint32
	vec                []float32
}

// termDict numbers the terms of the feature data, so an entry keeps 4
// bytes per term instead of a string. It only grows (by the vocabulary
// of the tools ever indexed).
type termDict struct {
	mu  sync.RWMutex
	ids map[string]uint32
}

// add returns the sorted, distinct IDs of terms, numbering new terms.
func (d *termDict) add(terms []string) []uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ids == nil {
		d.ids = map[string]uint32{}
	}
	out := make([]uint32, 0, len(terms))
	for _, t := range terms {
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.ids))
			d.ids[t] = id
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return slices.Clip(slices.Compact(out))
}

// queryTerms returns the IDs of the terms the dictionary has, sorted,
// with the value of each in vals (aligned with terms); the other terms are
// in no tool.
func (d *termDict) queryTerms(terms []string, vals []float64) []idValue {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]idValue, 0, len(terms))
	for i, t := range terms {
		if id, ok := d.ids[t]; ok {
			out = append(out, idValue{id, vals[i]})
		}
	}
	slices.SortFunc(out, func(a, b idValue) int { return cmp.Compare(a.id, b.id) })
	return out
}

// idValue is a term ID with a value (its idf).
type idValue struct {
	id  uint32
	val float64
}

// overlap returns how many of q (sorted, distinct) are in set (sorted) and
// the sum of their values.
func overlap(q []idValue, set []uint32) (n int, sum float64) {
	j := 0
	for _, x := range q {
		for j < len(set) && set[j] < x.id {
			j++
		}
		if j == len(set) {
			break
		}
		if set[j] == x.id {
			n++
			sum += x.val
		}
	}
	return n, sum
}

// newFeatureData returns the feature data of d; it is nil when the index
// computes no features.
func (ix *Index) newFeatureData(d Doc) *featureData {
	if !ix.features {
		return nil
	}
	name, server := Analyze(d.Name), Analyze(d.Server)
	fd := &featureData{
		name:   ix.terms.add(name),
		server: ix.terms.add(server),
		text:   ix.terms.add(append(docTerms(d), server...)),
	}
	if ix.vectors != nil {
		fd.vec = ix.vectors.textVector(append(name, Analyze(d.Description)...))
	}
	return fd
}

// Candidate is one hit of the BM25 top k with its features.
type Candidate struct {
	ID       string
	BM25     float64
	Features Features
}

// Candidates returns the BM25 top depth of query (before any re-rank),
// best first, with their features, and the IDs of the tools whose name
// or ID equals the query (which Search puts first). The index must have
// been built WithFeatures or WithRerank.
func (ix *Index) Candidates(query string, depth int) (cands []Candidate, exact []string, err error) {
	if !ix.features {
		return nil, nil, fmt.Errorf("search: Candidates needs an index built WithFeatures or WithRerank")
	}
	exact, reader, err := ix.snapshot(exactKey(query))
	if err != nil {
		return nil, nil, err
	}
	defer reader.Close()
	plain, inside := splitQuery(query)
	terms := ix.queryTerms(plain, inside)
	if terms == nil || depth <= 0 {
		return nil, exact, nil
	}
	hits, err := ix.topN(reader, terms, depth)
	if err != nil {
		return nil, nil, fmt.Errorf("search: query %q: %w", query, err)
	}
	fs, err := ix.featuresOf(reader, query, plain, hits)
	if err != nil {
		return nil, nil, err
	}
	cands = make([]Candidate, len(hits))
	for i, h := range hits {
		cands[i] = Candidate{ID: h.ID, BM25: h.Score, Features: fs[i]}
	}
	return cands, exact, nil
}

// featuresOf computes the features of hits (BM25, best first) for query,
// whose plain terms are plain.
func (ix *Index) featuresOf(reader *bluge.Reader, query string, plain []string, hits []Hit) ([]Features, error) {
	q := uniq(plain)
	idf, err := ix.termIdf(reader, q)
	if err != nil {
		return nil, err
	}
	qids := ix.terms.queryTerms(q, idf)
	var idfSum float64
	for _, v := range idf {
		idfSum += v
	}
	var qvec []float32
	if ix.vectors != nil || ix.embedder != nil {
		qvec = ix.queryVector(query, plain)
	}
	out := make([]Features, len(hits))
	top := 0.0
	if len(hits) > 0 {
		top = hits[0].Score
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	servers := make([]string, len(hits))
	mass := map[string]float64{}
	serverRank := map[string]int{}
	var total float64
	for i, h := range hits {
		if top > 0 {
			out[i][FeatScore] = h.Score / top
		}
		if e, ok := ix.docs[h.ID]; ok {
			servers[i] = e.doc.Server
		}
		if _, seen := serverRank[servers[i]]; !seen {
			serverRank[servers[i]] = len(serverRank)
		}
		mass[servers[i]] += out[i][FeatScore]
		total += out[i][FeatScore]
	}
	for i, h := range hits {
		f := &out[i]
		f[FeatRank] = 1 / float64(1+i)
		if total > 0 {
			f[FeatServerMass] = (mass[servers[i]] - f[FeatScore]) / total
		}
		f[FeatServerRank] = 1 / float64(1+serverRank[servers[i]])
		e, ok := ix.docs[h.ID]
		if !ok || e.feat == nil {
			continue
		}
		fd := e.feat
		if qvec != nil && fd.vec != nil {
			f[FeatDense] = float64(dot(qvec, fd.vec))
		}
		if len(fd.name) > 0 {
			n, _ := overlap(qids, fd.name)
			f[FeatNameCover] = float64(n) / float64(len(fd.name))
			f[FeatNameMiss] = math.Log1p(float64(len(fd.name) - n))
			f[FeatNameHits] = math.Log1p(float64(n))
		}
		f[FeatNameLen] = math.Log1p(float64(len(fd.name)))
		if len(fd.server) > 0 {
			n, _ := overlap(qids, fd.server)
			f[FeatServer] = float64(n) / float64(len(fd.server))
		}
		in, inIdf := overlap(qids, fd.text)
		if len(q) > 0 {
			f[FeatQueryCover] = float64(in) / float64(len(q))
		}
		if idfSum > 0 {
			f[FeatIDFCover] = inIdf / idfSum
		}
	}
	return out, nil
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

// learnedRerank re-orders hits (BM25, best first) by the re-rank score.
// The scores it leaves are 1/(1 + e^-s), positive like BM25 scores, so
// the exact-match promotion still lifts above them.
func (ix *Index) learnedRerank(reader *bluge.Reader, query string, plain []string, hits []Hit) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	fs, err := ix.featuresOf(reader, query, plain, hits)
	if err != nil {
		return nil, err
	}
	type scored struct {
		h Hit
		s float64
	}
	sc := make([]scored, len(hits))
	for i, h := range hits {
		sc[i] = scored{h, ix.rerankModel.Score(fs[i])}
	}
	slices.SortStableFunc(sc, func(a, b scored) int {
		if a.s != b.s {
			if a.s > b.s {
				return -1
			}
			return 1
		}
		return compareHits(a.h, b.h)
	})
	for i := range sc {
		hits[i] = Hit{ID: sc[i].h.ID, Score: 1 / (1 + math.Exp(-sc[i].s))}
	}
	return hits, nil
}
