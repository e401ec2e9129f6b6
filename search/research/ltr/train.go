package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Rerank is a learned, linear re-rank of the BM25 top Depth (or of the
// top k when a search asks for more): each candidate scores Weights · its
// [Features], and the candidates are ordered by that score (then by BM25
// score and ID). Only the order of those top candidates changes, and
// exact name matches still rank first (see [Sample.Ranking]).
type Rerank struct {
	Depth   int
	Weights Features
}

// Score returns Weights · f.
func (r Rerank) Score(f Features) float64 {
	var s float64
	for i, w := range r.Weights {
		s += w * f[i]
	}
	return s
}

// Trainer is one way of learning re-rank weights over the BM25 top
// Depth, using only the features not in Drop: pairwise logistic
// regression with L2 penalty Lambda (Coordinate false), or coordinate
// ascent on the objective itself.
type Trainer struct {
	Depth      int
	Coordinate bool
	Lambda     float64
	// Lambdas weighs each (relevant, other) pair by how much swapping the
	// two changes the reciprocal rank under the current weights (as
	// LambdaRank does), so the top of the list counts most; the weights
	// are refit a few times.
	Lambdas bool
	Drop    int // a feature left out (-1: none)
}

// String names the trainer.
func (t Trainer) String() string {
	if t.Depth <= 0 {
		return "no re-rank (BM25 order)"
	}
	m := fmt.Sprintf("pairwise logistic λ=%g", t.Lambda)
	if t.Lambdas {
		m = fmt.Sprintf("LambdaRank-weighted logistic λ=%g", t.Lambda)
	}
	if t.Coordinate {
		m = "coordinate ascent"
	}
	s := fmt.Sprintf("%s, depth %d", m, t.Depth)
	if t.Drop >= 0 {
		s += ", without " + FeatureName(t.Drop)
	}
	return s
}

// Trainers are the settings the cross-validation chooses from: first no
// re-rank (the BM25 order), then each depth, method and penalty, with
// every feature and without the one that needs vectors.
func Trainers() []Trainer {
	out := []Trainer{{Drop: -1}}
	for _, d := range []int{20, 30, 50} {
		for _, drop := range []int{-1, FeatDense} {
			for _, lw := range []bool{false, true} {
				for _, l := range []float64{0.1, 1, 10} {
					out = append(out, Trainer{Depth: d, Lambda: l, Lambdas: lw, Drop: drop})
				}
			}
		}
		out = append(out, Trainer{Depth: d, Coordinate: true, Drop: -1})
	}
	return out
}

// Train learns a re-rank from samples; a Trainer of depth 0 learns none.
func (t Trainer) Train(ss []Sample) Rerank {
	if t.Depth <= 0 {
		return Rerank{}
	}
	if t.Coordinate {
		return t.coordinate(ss)
	}
	return t.logistic(ss)
}

// used reports whether feature f is learned.
func (t Trainer) used(f int) bool { return f != t.Drop }

// standardization returns the mean and standard deviation of each feature
// over the candidates of ss (a constant feature gets sd 0).
func (t Trainer) standardization(ss []Sample) (mean, sd Features) {
	var n float64
	for _, s := range ss {
		for _, c := range s.Cands[:min(t.Depth, len(s.Cands))] {
			n++
			for f, v := range c.Features {
				mean[f] += v
				sd[f] += v * v
			}
		}
	}
	if n == 0 {
		return mean, sd
	}
	for f := range mean {
		mean[f] /= n
		v := sd[f]/n - mean[f]*mean[f]
		sd[f] = 0
		if v > 1e-12 {
			sd[f] = math.Sqrt(v)
		}
	}
	return mean, sd
}

// pair is a (relevant, other) difference of standardized features of one
// query, the candidates' positions p and q in its list, and its weight.
type pair struct {
	d    Features
	p, q int
	w    float64
}

// logistic fits w minimizing Σ weight × log(1 + exp(-w·(x⁺ - x⁻))) +
// Lambda/2 |w|² over the pairs of each query's top Depth (standardized
// features; Newton's method, which converges in a few steps with this
// few dimensions), then maps w back to raw features. Each query's pairs
// weigh 1 together.
func (t Trainer) logistic(ss []Sample) Rerank {
	_, sd := t.standardization(ss)
	active := func(f int) bool { return t.used(f) && sd[f] > 0 }
	type query struct {
		x     []Features // standardized
		pairs []pair
	}
	var qs []query
	for _, s := range ss {
		cs := s.Cands[:min(t.Depth, len(s.Cands))]
		var q query
		for _, c := range cs {
			var x Features
			for f := range x {
				if active(f) {
					x[f] = c.Features[f] / sd[f]
				}
			}
			q.x = append(q.x, x)
		}
		for i, p := range cs {
			if !s.Relevant[p.ID] {
				continue
			}
			for j, n := range cs {
				if s.Relevant[n.ID] {
					continue
				}
				var d Features
				for f := range d {
					d[f] = q.x[i][f] - q.x[j][f]
				}
				q.pairs = append(q.pairs, pair{d: d, p: i, q: j})
			}
		}
		if len(q.pairs) > 0 {
			qs = append(qs, q)
		}
	}
	// BM25 order to start with: the first weights of a LambdaRank fit
	// are those of the BM25 ranking.
	var w Features
	if active(FeatScore) {
		w[FeatScore] = 1
	}
	rounds := 1
	if t.Lambdas {
		rounds = 5
	}
	for round := 0; round < rounds; round++ {
		var pairs []pair
		for _, q := range qs {
			var total float64
			first := len(pairs)
			rank := ranks(q.x, w)
			for _, p := range q.pairs {
				p.w = 1
				if t.Lambdas {
					p.w = math.Abs(1/float64(1+rank[p.p]) - 1/float64(1+rank[p.q]))
				}
				total += p.w
				pairs = append(pairs, p)
			}
			for i := first; i < len(pairs) && total > 0; i++ {
				pairs[i].w /= total
			}
		}
		w = t.newton(pairs, w, active)
	}
	r := Rerank{Depth: t.Depth}
	for f := range w {
		if active(f) {
			r.Weights[f] = w[f] / sd[f]
		}
	}
	return r
}

// ranks returns the 0-based rank of each of x under weights w.
func ranks(x []Features, w Features) []int {
	order := make([]int, len(x))
	score := make([]float64, len(x))
	for i := range x {
		order[i] = i
		for f := range w {
			score[i] += w[f] * x[i][f]
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	out := make([]int, len(x))
	for r, i := range order {
		out[i] = r
	}
	return out
}

// newton minimizes the weighted pairwise logistic loss from w.
func (t Trainer) newton(pairs []pair, w Features, active func(int) bool) Features {
	const k = NumFeatures
	for iter := 0; iter < 50; iter++ {
		var g Features
		var h [k][k]float64
		for f := 0; f < k; f++ {
			g[f] = t.Lambda * w[f]
			h[f][f] = t.Lambda
		}
		for _, p := range pairs {
			var z float64
			for f := range w {
				z += w[f] * p.d[f]
			}
			sig := 1 / (1 + math.Exp(z)) // σ(-z)
			for f := 0; f < k; f++ {
				if p.d[f] == 0 {
					continue
				}
				g[f] -= p.w * sig * p.d[f]
				for e := 0; e < k; e++ {
					h[f][e] += p.w * sig * (1 - sig) * p.d[f] * p.d[e]
				}
			}
		}
		step := solve(h, g)
		var norm float64
		for f := range w {
			if active(f) {
				w[f] -= step[f]
				norm += step[f] * step[f]
			}
		}
		if norm < 1e-16 {
			break
		}
	}
	return w
}

// solve returns x with h x = g (Gaussian elimination with partial
// pivoting; h is positive definite here, a zero pivot leaves that
// coordinate 0).
func solve(h [NumFeatures][NumFeatures]float64, g Features) Features {
	const k = NumFeatures
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		if math.Abs(h[c][c]) < 1e-12 {
			continue
		}
		for r := c + 1; r < k; r++ {
			m := h[r][c] / h[c][c]
			for e := c; e < k; e++ {
				h[r][e] -= m * h[c][e]
			}
			g[r] -= m * g[c]
		}
	}
	var x Features
	for c := k - 1; c >= 0; c-- {
		if math.Abs(h[c][c]) < 1e-12 {
			continue
		}
		s := g[c]
		for e := c + 1; e < k; e++ {
			s -= h[c][e] * x[e]
		}
		x[c] = s / h[c][c]
	}
	return x
}

// coordinate starts from the BM25 order (weight 1 on FeatScore, or on
// FeatRank when FeatScore is left out: the anchor, never changed) and, a
// feature at a time, keeps the weight of a fixed grid (in units of the
// anchor's standard deviation over the feature's) that most raises the
// training objective (the earlier value on ties, so 0 is kept unless
// another is better); at most three passes.
func (t Trainer) coordinate(ss []Sample) Rerank {
	_, sd := t.standardization(ss)
	anchor := FeatScore
	if !t.used(anchor) {
		anchor = FeatRank
	}
	r := Rerank{Depth: t.Depth}
	r.Weights[anchor] = 1
	grid := []float64{0, -2, -1, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1, 2, 4}
	obj := func(r Rerank) float64 { return MeasureSamples(ss, r).Objective() }
	best := obj(r)
	for pass := 0; pass < 3; pass++ {
		improved := false
		for f := 0; f < NumFeatures; f++ {
			if f == anchor || !t.used(f) || sd[f] == 0 {
				continue
			}
			for _, g := range grid {
				c := r
				c.Weights[f] = g * sd[anchor] / sd[f]
				if v := obj(c); v > best+1e-12 {
					best, r, improved = v, c, true
				}
			}
		}
		if !improved {
			break
		}
	}
	return r
}
