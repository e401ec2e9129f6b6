package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/plughost/plughost/search"
)

// The features of a (query, tool) pair that the learned re-rank weighs.
// Each is computed from the query's plain terms (search.Candidates.Terms)
// and the tool.
const (
	// FeatScore is the tool's BM25 score over the best score of the query.
	FeatScore = iota
	// FeatRank is 1/(1 + r), r the tool's 0-based BM25 rank.
	FeatRank
	// FeatDense is the cosine of the query's and the tool's dense vectors:
	// word-vector averages (the tool's name and description), or an
	// embeddings endpoint's vectors; 0 without either.
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

// FeatureName returns the short name of feature f (as the report prints
// it), or "" for an unknown f.
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

// Candidate is one tool of the BM25 top k with its features.
type Candidate struct {
	ID       string
	BM25     float64
	Features Features
}

// toolTerms is what the features know of a tool: the distinct analysed
// terms of its name, of its server's name and of its whole text, and its
// dense vector (nil without one).
type toolTerms struct {
	doc                search.Doc
	name, server, text map[string]bool
	vec                []float32
}

// termSet returns the distinct terms of terms.
func termSet(terms ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, ts := range terms {
		for _, t := range ts {
			m[t] = true
		}
	}
	return m
}

// newToolTerms analyses d.
func newToolTerms(d search.Doc) *toolTerms {
	name, server := search.Analyze(d.Name), search.Analyze(d.Server)
	text := [][]string{name, search.Analyze(d.Description), server}
	for _, p := range d.Params {
		text = append(text, search.Analyze(p.Name))
	}
	return &toolTerms{doc: d, name: termSet(name), server: termSet(server), text: termSet(text...)}
}

// vectors gives the dense feature its vectors: an embeddings endpoint's
// when e is set, else word-vector averages when wv is, else none.
type vectors struct {
	wv *search.WordVectors
	e  search.Embedder
}

// embedBatch is how many texts one call to the endpoint embeds, and
// embedTimeout bounds the call.
const (
	embedBatch   = 64
	embedTimeout = time.Minute
)

// tools gives every tool of ts its vector: the endpoint's vector of
// search.EmbedText, or the word-vector average of the name and
// description. ts is in the order the index embeds tools.
func (v vectors) tools(ctx context.Context, ts []*toolTerms) error {
	if v.e == nil {
		if v.wv != nil {
			for _, t := range ts {
				t.vec = v.wv.TextVector(append(search.Analyze(t.doc.Name), search.Analyze(t.doc.Description)...))
			}
		}
		return nil
	}
	for start := 0; start < len(ts); start += embedBatch {
		batch := ts[start:min(start+embedBatch, len(ts))]
		texts := make([]string, len(batch))
		for i, t := range batch {
			texts[i] = search.EmbedText(t.doc)
		}
		vecs, err := v.embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embedding tools %d–%d of %d: %w", start+1, start+len(batch), len(ts), err)
		}
		for i, t := range batch {
			t.vec = vecs[i]
		}
	}
	return nil
}

// query returns the vector of a query whose plain terms are terms, or nil
// without vectors.
func (v vectors) query(ctx context.Context, query string, terms []string) ([]float32, error) {
	switch {
	case v.e != nil:
		vecs, err := v.embed(ctx, []string{query})
		if err != nil {
			return nil, fmt.Errorf("embedding the query %q: %w", query, err)
		}
		return vecs[0], nil
	case v.wv != nil:
		return v.wv.TextVector(terms), nil
	}
	return nil, nil
}

// embed calls the endpoint and checks its answer as the index does: one
// non-zero vector per text, all of one dimension, returned as unit
// vectors.
func (v vectors) embed(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, embedTimeout)
	defer cancel()
	vecs, err := v.e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, x := range vecs {
		if len(x) == 0 || len(x) != len(vecs[0]) {
			return nil, fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(x), len(vecs[0]))
		}
		if !unit(x) {
			return nil, fmt.Errorf("vector %d is zero", i)
		}
	}
	return vecs, nil
}

// unit scales x to unit length in place; it reports false for a zero x.
func unit(x []float32) bool {
	var n float64
	for _, a := range x {
		n += float64(a) * float64(a)
	}
	if n == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range x {
		x[i] *= inv
	}
	return true
}

// cosine returns the dot product of the unit vectors a and b (0 when
// either is missing or their lengths differ).
func cosine(a, b []float32) float64 {
	if a == nil || b == nil || len(a) != len(b) {
		return 0
	}
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return float64(s)
}

// overlap returns how many of q are in set and the sum of their idf.
func overlap(q []string, set map[string]bool, idf map[string]float64) (n int, sum float64) {
	for _, t := range q {
		if set[t] {
			n++
			sum += idf[t]
		}
	}
	return n, sum
}

// features computes the features of the candidates c of a query (qvec:
// its dense vector, or nil) over the tools.
func features(c search.Candidates, qvec []float32, tools map[string]*toolTerms) []Candidate {
	hits := c.Hits
	q := slices.Compact(slices.Sorted(slices.Values(c.Terms)))
	var idfSum float64
	for _, t := range q {
		idfSum += c.Idf[t]
	}
	out := make([]Candidate, len(hits))
	top := 0.0
	if len(hits) > 0 {
		top = hits[0].Score
	}
	servers := make([]string, len(hits))
	mass := map[string]float64{}
	serverRank := map[string]int{}
	var total float64
	for i, h := range hits {
		out[i] = Candidate{ID: h.ID, BM25: h.Score}
		if top > 0 {
			out[i].Features[FeatScore] = h.Score / top
		}
		if t, ok := tools[h.ID]; ok {
			servers[i] = t.doc.Server
		}
		if _, seen := serverRank[servers[i]]; !seen {
			serverRank[servers[i]] = len(serverRank)
		}
		mass[servers[i]] += out[i].Features[FeatScore]
		total += out[i].Features[FeatScore]
	}
	for i, h := range hits {
		f := &out[i].Features
		f[FeatRank] = 1 / float64(1+i)
		if total > 0 {
			f[FeatServerMass] = (mass[servers[i]] - f[FeatScore]) / total
		}
		f[FeatServerRank] = 1 / float64(1+serverRank[servers[i]])
		t, ok := tools[h.ID]
		if !ok {
			continue
		}
		f[FeatDense] = cosine(qvec, t.vec)
		if len(t.name) > 0 {
			n, _ := overlap(q, t.name, c.Idf)
			f[FeatNameCover] = float64(n) / float64(len(t.name))
			f[FeatNameMiss] = math.Log1p(float64(len(t.name) - n))
			f[FeatNameHits] = math.Log1p(float64(n))
		}
		f[FeatNameLen] = math.Log1p(float64(len(t.name)))
		if len(t.server) > 0 {
			n, _ := overlap(q, t.server, c.Idf)
			f[FeatServer] = float64(n) / float64(len(t.server))
		}
		in, inIdf := overlap(q, t.text, c.Idf)
		if len(q) > 0 {
			f[FeatQueryCover] = float64(in) / float64(len(q))
		}
		if idfSum > 0 {
			f[FeatIDFCover] = inIdf / idfSum
		}
	}
	return out
}
