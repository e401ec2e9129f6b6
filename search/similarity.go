package search

import (
	"math"

	segment "github.com/blugelabs/bluge_segment_api"

	blugesearch "github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/similarity"
)

// BM25 parameters: the usual Okapi defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Similarity is BM25 with the standard idf, log(1 + (N - n + 0.5)/(n + 0.5)).
//
// bluge v0.2.2's BM25Similarity computes log(1 + (N - n) + 0.5/(n + 0.5)),
// which is ≈ log(N - n) for every term that is not in most documents: a term
// in one document and a term in a tenth of them weigh almost the same, so
// rare, telling words (a product name) barely beat common ones ("file",
// "get"). Similarity keeps bluge's norm encoding and tf part (it builds a
// similarity.BM25Scorer) and only replaces the idf.
type Similarity struct {
	K1, B float64
}

// NewSimilarity returns a Similarity with k1 = 1.2 and b = 0.75.
func NewSimilarity() *Similarity { return &Similarity{K1: bm25K1, B: bm25B} }

// Idf returns the standard BM25 idf of a term found in docFreq of docCount
// documents.
func Idf(docFreq, docCount uint64) float64 {
	n, bigN := float64(docFreq), float64(docCount)
	if bigN < n { // stats of a snapshot that still counts deleted documents
		bigN = n
	}
	return math.Log(1 + (bigN-n+0.5)/(n+0.5))
}

// ComputeNorm implements search.Similarity with bluge's BM25 norm encoding
// (the field length, carried in the bits of a float32), which the scorer
// decodes.
func (s *Similarity) ComputeNorm(numTerms int) float32 {
	return math.Float32frombits(uint32(numTerms))
}

// Scorer implements search.Similarity.
func (s *Similarity) Scorer(boost float64, coll segment.CollectionStats, term segment.TermStats) blugesearch.Scorer {
	var docCount, sumTF uint64
	if coll != nil {
		docCount, sumTF = coll.DocumentCount(), coll.SumTotalTermFrequency()
	}
	docFreq := term.DocumentFrequency()
	idf := Idf(docFreq, docCount)
	avg := 1.0
	if docCount > 0 {
		avg = float64(sumTF) / float64(docCount)
	}
	expl := blugesearch.NewExplanation(idf, "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
		blugesearch.NewExplanation(float64(docFreq), "n, number of documents containing term"),
		blugesearch.NewExplanation(float64(docCount), "N, total number of documents with field"))
	return similarity.NewBM25Scorer(boost, s.K1, s.B, avg, expl)
}
