package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plughost/plughost/search"
	"github.com/plughost/plughost/search/eval"
)

// Sample is one query's BM25 candidates with their features: what the
// learned re-rank is trained and measured on without searching again.
type Sample struct {
	ID    string
	Level int
	Multi bool
	Cands []Candidate
	Exact []string
	// Relevant are the acceptable tools (single-tool queries) or every
	// step's (multi-step queries); Steps the steps' (multi-step only).
	Relevant map[string]bool
	Steps    []map[string]bool
}

// MaxDepth is how many BM25 candidates Samples keeps per query: the
// deepest re-rank measured.
const MaxDepth = 50

// Samples searches every query of d once on the lexical index and keeps
// its BM25 top MaxDepth with their features; v gives the dense feature its
// vectors.
func Samples(ctx context.Context, d eval.Data, v vectors) ([]Sample, error) {
	ix, err := eval.BuildIndex(d.Tools, d.Servers)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	tools, err := toolsOf(ctx, d, v)
	if err != nil {
		return nil, err
	}
	sample := func(id string, level int, query string) (Sample, error) {
		c, err := ix.Candidates(query, MaxDepth)
		if err != nil {
			return Sample{}, fmt.Errorf("query %s: %w", id, err)
		}
		var qvec []float32
		if len(c.Hits) > 0 {
			if qvec, err = v.query(ctx, query, c.Terms); err != nil {
				return Sample{}, fmt.Errorf("query %s: %w", id, err)
			}
		}
		return Sample{ID: id, Level: level, Cands: features(c, qvec, tools), Exact: c.Exact}, nil
	}
	var out []Sample
	for _, q := range d.Single {
		s, err := sample(q.ID, q.Level, q.Query)
		if err != nil {
			return nil, err
		}
		s.Relevant = eval.IDSet(q.Relevant)
		out = append(out, s)
	}
	for _, q := range d.Multi {
		s, err := sample(q.ID, q.Level, q.Query)
		if err != nil {
			return nil, err
		}
		s.Multi, s.Steps, s.Relevant = true, eval.StepSets(q.Steps), map[string]bool{}
		for _, st := range s.Steps {
			maps.Copy(s.Relevant, st)
		}
		out = append(out, s)
	}
	return out, nil
}

// toolsOf analyses the tools of d as the index holds them, by ID, with
// their vectors (embedded in the index's order: servers by name, each
// server's tools in file order).
func toolsOf(ctx context.Context, d eval.Data, v vectors) (map[string]*toolTerms, error) {
	_, docs := eval.DocsByServer(d.Tools, d.Servers)
	byID := map[string]*toolTerms{}
	var ordered []*toolTerms
	for _, server := range slices.Sorted(maps.Keys(docs)) {
		for _, doc := range docs[server] {
			t := newToolTerms(doc)
			byID[doc.ID] = t
			ordered = append(ordered, t)
		}
	}
	if err := v.tools(ctx, ordered); err != nil {
		return nil, err
	}
	return byID, nil
}

// SplitSamples returns the samples of half ("" keeps all).
func SplitSamples(ss []Sample, half string) []Sample {
	if half == "" {
		return ss
	}
	var out []Sample
	for _, s := range ss {
		if eval.Half(s.ID) == half {
			out = append(out, s)
		}
	}
	return out
}

// Ranking returns the top 10 a search would return for s with re-rank r
// (r off: the BM25 order): the first r.Depth candidates ordered by r's
// score, then BM25, then ID, with the exact matches moved to the front
// (as search.Index.Search promotes them).
func (s Sample) Ranking(r Rerank) []search.Hit {
	n := min(len(s.Cands), max(r.Depth, eval.Depth+len(s.Exact)))
	type scored struct {
		c Candidate
		v float64
	}
	sc := make([]scored, n)
	for i, c := range s.Cands[:n] {
		sc[i] = scored{c, 0}
		if r.Depth > 0 {
			sc[i].v = r.Score(c.Features)
		}
	}
	slices.SortStableFunc(sc, func(a, b scored) int {
		if c := cmp.Compare(b.v, a.v); c != 0 {
			return c
		}
		if c := cmp.Compare(b.c.BM25, a.c.BM25); c != 0 {
			return c
		}
		return strings.Compare(a.c.ID, b.c.ID)
	})
	isExact := map[string]bool{}
	for _, id := range s.Exact {
		isExact[id] = true
	}
	var front, rest []search.Hit
	for _, x := range sc {
		if isExact[x.c.ID] {
			front = append(front, search.Hit{ID: x.c.ID})
			delete(isExact, x.c.ID)
		} else {
			rest = append(rest, search.Hit{ID: x.c.ID})
		}
	}
	for _, id := range s.Exact {
		if isExact[id] {
			front = append(front, search.Hit{ID: id})
		}
	}
	out := append(front, rest...)
	return out[:min(eval.Depth, len(out))]
}

// MeasureSamples returns the figures of re-rank r on samples.
func MeasureSamples(ss []Sample, r Rerank) eval.Figures {
	levels := map[int]*eval.Tally{1: {}, 2: {}}
	var multi eval.StepTally
	for _, s := range ss {
		hits := s.Ranking(r)
		if s.Multi {
			multi.Add(hits, s.Steps)
			continue
		}
		if a := levels[s.Level]; a != nil {
			a.Add(eval.Rank(hits, s.Relevant))
		}
	}
	return eval.Figures{L1: levels[1].Scores(), L2: levels[2].Scores(), Multi: multi.Scores()}
}

// Ceiling is, for re-ranks of the BM25 top Depth, the share of level-2
// queries with an acceptable tool among the candidates and of multi-step
// queries with one for every step, per half (A, B): the most a re-rank of
// that depth can reach (R@Depth and All@Depth of the BM25 order).
type Ceiling struct {
	Depth         int
	Level2, Multi [2]float64
}

// CeilingOf returns the Ceiling of the top depth of ss.
func CeilingOf(ss []Sample, depth int) Ceiling {
	c := Ceiling{Depth: depth}
	for i, h := range []string{"A", "B"} {
		var n2, in2, nm, inm float64
		for _, s := range SplitSamples(ss, h) {
			top := s.Cands[:min(depth, len(s.Cands))]
			has := func(set map[string]bool) bool {
				return slices.ContainsFunc(top, func(c Candidate) bool { return set[c.ID] })
			}
			switch {
			case s.Multi:
				nm++
				every := true
				for _, st := range s.Steps {
					every = every && has(st)
				}
				if every {
					inm++
				}
			case s.Level == 2:
				n2++
				if has(s.Relevant) {
					in2++
				}
			}
		}
		if n2 > 0 {
			c.Level2[i] = in2 / n2
		}
		if nm > 0 {
			c.Multi[i] = inm / nm
		}
	}
	return c
}
