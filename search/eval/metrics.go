package eval

import (
	"fmt"
	"strconv"

	"github.com/plughost/plughost/search"
)

// Searcher is what the evaluation needs of an index.
type Searcher interface {
	Search(query string, k int) ([]search.Hit, error)
}

var _ Searcher = (*search.Index)(nil)

// Scores are the single-tool metrics of a set of queries.
type Scores struct {
	N     int     `json:"n"`
	R1    float64 `json:"r1"`
	R5    float64 `json:"r5"`
	R10   float64 `json:"r10"`
	MRR10 float64 `json:"mrr10"`
}

// SingleResult is Scores overall plus per level (keyed by the level number).
type SingleResult struct {
	Scores
	Levels map[string]Scores `json:"levels"`
}

// MultiScores are the multi-step metrics of a set of queries, each query
// being searched once: StepR5 is, averaged over queries, the fraction of the
// query's steps with an acceptable tool in the top 5 (the per-query average
// is what reproduces the README's reference figures); All10 is the fraction
// of queries whose every step has an acceptable tool in the top 10.
type MultiScores struct {
	N      int     `json:"n"`
	StepR5 float64 `json:"step_r5"`
	All10  float64 `json:"all10"`
}

// MultiResult is MultiScores overall plus per level.
type MultiResult struct {
	MultiScores
	Levels map[string]MultiScores `json:"levels"`
}

// Depth is how many hits each query asks for: the largest k measured.
const Depth = 10

// Rank returns the 1-based rank of the first hit in ok, or 0.
func Rank(hits []search.Hit, ok map[string]bool) int {
	for i, h := range hits {
		if ok[h.ID] {
			return i + 1
		}
	}
	return 0
}

// IDSet returns the document IDs (see [ToolID]) of refs as a set.
func IDSet(refs []ToolRef) map[string]bool {
	m := make(map[string]bool, len(refs))
	for _, r := range refs {
		m[ToolID(r[0], r[1])] = true
	}
	return m
}

// Tally accumulates single-tool queries into [Scores]. The zero value is
// empty.
type Tally struct {
	n, r1, r5, r10 int
	rr             float64
}

// Add counts a query whose first acceptable tool ranked r (1-based; 0:
// not among the hits).
func (a *Tally) Add(r int) {
	a.n++
	if r == 0 {
		return
	}
	a.rr += 1 / float64(r)
	if r <= 1 {
		a.r1++
	}
	if r <= 5 {
		a.r5++
	}
	if r <= 10 {
		a.r10++
	}
}

// Scores returns the metrics of the queries counted.
func (a Tally) Scores() Scores {
	if a.n == 0 {
		return Scores{}
	}
	n := float64(a.n)
	return Scores{N: a.n, R1: float64(a.r1) / n, R5: float64(a.r5) / n, R10: float64(a.r10) / n, MRR10: a.rr / n}
}

// EvalSingle searches every query once (top 10) and scores it.
func EvalSingle(s Searcher, qs []Query) (SingleResult, error) {
	var all Tally
	levels := map[string]*Tally{}
	for _, q := range qs {
		hits, err := s.Search(q.Query, Depth)
		if err != nil {
			return SingleResult{}, fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		r := Rank(hits, IDSet(q.Relevant))
		all.Add(r)
		lv := strconv.Itoa(q.Level)
		if levels[lv] == nil {
			levels[lv] = &Tally{}
		}
		levels[lv].Add(r)
	}
	res := SingleResult{Scores: all.Scores(), Levels: map[string]Scores{}}
	for lv, a := range levels {
		res.Levels[lv] = a.Scores()
	}
	return res, nil
}

// StepTally accumulates multi-step queries into [MultiScores]. The zero
// value is empty.
type StepTally struct {
	n, all10 int
	stepFrac float64 // sum over queries of the fraction of steps in the top 5
}

// Add counts a multi-step query answered with hits, whose steps are the
// sets of each step's acceptable tools.
func (a *StepTally) Add(hits []search.Hit, steps []map[string]bool) {
	a.n++
	every := true
	in5 := 0
	for _, st := range steps {
		r := Rank(hits, st)
		if r >= 1 && r <= 5 {
			in5++
		}
		if r == 0 || r > 10 {
			every = false
		}
	}
	if every {
		a.all10++
	}
	if len(steps) > 0 {
		a.stepFrac += float64(in5) / float64(len(steps))
	}
}

// Scores returns the metrics of the queries counted.
func (a StepTally) Scores() MultiScores {
	if a.n == 0 {
		return MultiScores{}
	}
	n := float64(a.n)
	return MultiScores{N: a.n, StepR5: a.stepFrac / n, All10: float64(a.all10) / n}
}

// StepSets returns the acceptable tools of each of steps as sets, the form
// [StepTally.Add] takes.
func StepSets(steps [][]ToolRef) []map[string]bool {
	out := make([]map[string]bool, len(steps))
	for i, st := range steps {
		out[i] = IDSet(st)
	}
	return out
}

// EvalMulti searches every multi-step query once (top 10) and scores its
// steps.
func EvalMulti(s Searcher, qs []MultiQuery) (MultiResult, error) {
	var all StepTally
	levels := map[string]*StepTally{}
	for _, q := range qs {
		hits, err := s.Search(q.Query, Depth)
		if err != nil {
			return MultiResult{}, fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		steps := StepSets(q.Steps)
		all.Add(hits, steps)
		lv := strconv.Itoa(q.Level)
		if levels[lv] == nil {
			levels[lv] = &StepTally{}
		}
		levels[lv].Add(hits, steps)
	}
	res := MultiResult{MultiScores: all.Scores(), Levels: map[string]MultiScores{}}
	for lv, a := range levels {
		res.Levels[lv] = a.Scores()
	}
	return res, nil
}
