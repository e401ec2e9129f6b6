package main

import (
	"context"
	"hash/fnv"
	"math"

	"github.com/plughost/plughost/search/eval"
)

// FoldResult is one direction of the cross-fitting: weights learned on
// Train, measured on Test beside BM25's order (the lexical ranking).
type FoldResult struct {
	Train, Test string
	Trainer     Trainer
	Rerank      Rerank
	Held        eval.Figures // the learned re-rank on Test
	Lexical     eval.Figures // the lexical ranking on Test
}

// CrossFit learns t on each half and measures it on the other.
func CrossFit(ss []Sample, t Trainer) [2]FoldResult {
	var out [2]FoldResult
	for i, h := range [][2]string{{"A", "B"}, {"B", "A"}} {
		r := t.Train(SplitSamples(ss, h[0]))
		test := SplitSamples(ss, h[1])
		out[i] = FoldResult{Train: h[0], Test: h[1], Trainer: t, Rerank: r,
			Held: MeasureSamples(test, r), Lexical: MeasureSamples(test, Rerank{})}
	}
	return out
}

// ChooseAndFit is the two-fold cross-validation of the trainers: on each
// half, the trainer chosen there (see Choose) learns its weights on that
// half and is measured on the other.
func ChooseAndFit(ss []Sample, ts []Trainer) [2]FoldResult {
	var out [2]FoldResult
	for i, h := range [][2]string{{"A", "B"}, {"B", "A"}} {
		train, test := SplitSamples(ss, h[0]), SplitSamples(ss, h[1])
		t := Choose(train, ts)
		r := t.Train(train)
		out[i] = FoldResult{Train: h[0], Test: h[1], Trainer: t, Rerank: r,
			Held: MeasureSamples(test, r), Lexical: MeasureSamples(test, Rerank{})}
	}
	return out
}

// Choose returns the trainer of ts whose weights, learned on one inner
// half of ss and measured on the other (InnerHalf; both directions
// summed), score best; the earlier trainer on ties. Choosing on the
// training data itself would favour whatever fits it most closely.
func Choose(ss []Sample, ts []Trainer) Trainer {
	var inner [2][]Sample
	for _, s := range ss {
		if InnerHalf(s.ID) == "A" {
			inner[0] = append(inner[0], s)
		} else {
			inner[1] = append(inner[1], s)
		}
	}
	best, bestObj := ts[0], math.Inf(-1)
	for _, t := range ts {
		v := MeasureSamples(inner[1], t.Train(inner[0])).Objective() + MeasureSamples(inner[0], t.Train(inner[1])).Objective()
		if v > bestObj {
			best, bestObj = t, v
		}
	}
	return best
}

// InnerHalf splits a half again ("A" or "B") by another bit of a fixed
// hash of the query ID, for choosing a trainer inside a half. (eval.Half
// reads the lowest bit of FNV-1a, which is the parity of the bytes'
// lowest bits whatever else is hashed, so it cannot be reused with a
// prefix; the top bit mixes every byte.)
func InnerHalf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if h.Sum32()>>31 == 0 {
		return "A"
	}
	return "B"
}

// Report is the evaluation of the learned re-rank: every trainer
// cross-fitted (learned on one half, measured on the other), the two-fold
// cross-validation over them, and the ablation (each feature left out) of
// the ablated trainers.
type Report struct {
	Lexical  [2]eval.Figures // halves A and B, BM25 order
	Ceilings []Ceiling       // what a perfect re-rank of the top k could reach
	Trainers [][2]FoldResult
	Chosen   [2]FoldResult
	Ablation [][][2]FoldResult // per ablated trainer: all features, then each left out
}

// AblatedTrainers are the trainers whose features are ablated: one of
// each method, over the top 30.
func AblatedTrainers() []Trainer {
	return []Trainer{{Depth: 30, Coordinate: true, Drop: -1}, {Depth: 30, Lambda: 1, Drop: -1}, {Depth: 30, Lambda: 1, Lambdas: true, Drop: -1}}
}

// LearnToRank evaluates the learned re-rank on d; v gives the dense
// feature its vectors.
func LearnToRank(ctx context.Context, d eval.Data, v vectors) (Report, error) {
	ss, err := Samples(ctx, d, v)
	if err != nil {
		return Report{}, err
	}
	var rep Report
	for i, h := range []string{"A", "B"} {
		rep.Lexical[i] = MeasureSamples(SplitSamples(ss, h), Rerank{})
	}
	for _, k := range []int{10, 20, 30, 50} {
		rep.Ceilings = append(rep.Ceilings, CeilingOf(ss, k))
	}
	ts := Trainers()
	for _, t := range ts {
		rep.Trainers = append(rep.Trainers, CrossFit(ss, t))
	}
	rep.Chosen = ChooseAndFit(ss, ts)
	for _, base := range AblatedTrainers() {
		var rows [][2]FoldResult
		for drop := -1; drop < NumFeatures; drop++ {
			t := base
			t.Drop = drop
			rows = append(rows, CrossFit(ss, t))
		}
		rep.Ablation = append(rep.Ablation, rows)
	}
	return rep, nil
}
