package eval

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/plughost/plughost/search"
)

// Baseline is a plain Okapi BM25 (k1 = 1.2, b = 0.75, idf
// log(1 + (N - n + 0.5)/(n + 0.5))) over lower-cased [a-z0-9]+ tokens of
// server + tool name + description: no stemming, no schema, one field. It is
// the reference the benchmark's README reports, and it checks the metric
// code.
type Baseline struct {
	ids      []string
	lens     []float64
	avgLen   float64
	postings map[string][]posting
}

var _ Searcher = (*Baseline)(nil)

type posting struct{ doc, tf int }

var baselineToken = regexp.MustCompile(`[a-z0-9]+`)

func baselineTokens(s string) []string {
	return baselineToken.FindAllString(strings.ToLower(s), -1)
}

// NewBaseline indexes tools.
func NewBaseline(tools []Tool) *Baseline {
	b := &Baseline{postings: map[string][]posting{}}
	total := 0.0
	for i, t := range tools {
		toks := baselineTokens(t.Server + " " + t.Name + " " + t.Description)
		b.ids = append(b.ids, ToolID(t.Server, t.Name))
		b.lens = append(b.lens, float64(len(toks)))
		total += float64(len(toks))
		tf := map[string]int{}
		for _, tok := range toks {
			tf[tok]++
		}
		for tok, n := range tf {
			b.postings[tok] = append(b.postings[tok], posting{i, n})
		}
	}
	if len(tools) > 0 {
		b.avgLen = total / float64(len(tools))
	}
	return b
}

// Search implements Searcher. Each distinct query term counts once (this is
// what reproduces the README's reference figures); ties are ordered by ID.
func (b *Baseline) Search(query string, k int) ([]search.Hit, error) {
	const k1, bb = 1.2, 0.75
	n := float64(len(b.ids))
	score := map[int]float64{}
	toks := baselineTokens(query)
	slices.Sort(toks)
	for _, tok := range slices.Compact(toks) {
		ps := b.postings[tok]
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			score[p.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*b.lens[p.doc]/b.avgLen))
		}
	}
	hits := make([]search.Hit, 0, len(score))
	for d, s := range score {
		hits = append(hits, search.Hit{ID: b.ids[d], Score: s})
	}
	slices.SortFunc(hits, func(x, y search.Hit) int {
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(x.ID, y.ID)
	})
	return hits[:min(k, len(hits))], nil
}
