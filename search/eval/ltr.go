package eval

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/plughost/plughost/search"
)

// Sample is one query's BM25 candidates with their features: what the
// learned re-rank is trained and measured on without searching again.
type Sample struct {
	ID    string
	Level int
	Multi bool
	Cands []search.Candidate
	Exact []string
	// Relevant are the acceptable tools (single-tool queries) or every
	// step's (multi-step queries); Steps the steps' (multi-step only).
	Relevant map[string]bool
	Steps    []map[string]bool
}

// MaxDepth is how many BM25 candidates Samples keeps per query: the
// deepest re-rank measured.
const MaxDepth = 50

// Samples searches every query of d once on an index that computes the
// re-rank features (wv: word vectors for the dense feature, may be nil;
// d.Embedder, when set, gives that feature instead) and keeps its BM25 top
// MaxDepth.
func (d Data) Samples(wv *search.WordVectors) ([]Sample, error) {
	opts := []search.Option{search.WithFeatures(wv)}
	if d.Embedder != nil {
		opts = append(opts, search.WithEmbedder(d.Embedder, search.Semantic{Depth: MaxDepth}, search.EmbedderOptions{Timeout: time.Minute}))
	}
	ix, err := BuildIndex(d.Tools, d.Servers, opts...)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	var out []Sample
	for _, q := range d.Single {
		cands, exact, err := ix.Candidates(q.Query, MaxDepth)
		if err != nil {
			return nil, fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		out = append(out, Sample{ID: q.ID, Level: q.Level, Cands: cands, Exact: exact, Relevant: idSet(q.Relevant)})
	}
	for _, q := range d.Multi {
		cands, exact, err := ix.Candidates(q.Query, MaxDepth)
		if err != nil {
			return nil, fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		s := Sample{ID: q.ID, Level: q.Level, Multi: true, Cands: cands, Exact: exact, Relevant: map[string]bool{}}
		for _, st := range q.Steps {
			set := idSet(st)
			s.Steps = append(s.Steps, set)
			for id := range set {
				s.Relevant[id] = true
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// SplitSamples returns the samples of half ("" keeps all).
func SplitSamples(ss []Sample, half string) []Sample {
	return splitHalf(ss, half, func(s Sample) string { return s.ID })
}

// Ranking returns the top 10 Search returns for s with re-rank r (r off:
// BM25 order): the first r.Depth candidates ordered by r's score, then
// BM25, then ID, with the exact matches moved to the front.
func (s Sample) Ranking(r search.Rerank) []search.Hit {
	n := min(len(s.Cands), max(r.Depth, depth+len(s.Exact)))
	type scored struct {
		c search.Candidate
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
	return out[:min(depth, len(out))]
}

// MeasureSamples returns the figures of re-rank r on samples.
func MeasureSamples(ss []Sample, r search.Rerank) Figures {
	levels := map[int]*singleAcc{1: {}, 2: {}}
	var multi multiAcc
	for _, s := range ss {
		hits := s.Ranking(r)
		if s.Multi {
			addSteps(&multi, hits, s.Steps)
			continue
		}
		if a := levels[s.Level]; a != nil {
			a.add(rank(hits, s.Relevant))
		}
	}
	return Figures{L1: levels[1].scores(), L2: levels[2].scores(), Multi: multi.scores()}
}

// addSteps is multiAcc.add for steps given as ID sets.
func addSteps(a *multiAcc, hits []search.Hit, steps []map[string]bool) {
	a.n++
	every, in5 := true, 0
	for _, st := range steps {
		r := rank(hits, st)
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
		s += ", without " + search.FeatureName(t.Drop)
	}
	return s
}

// Trainers are the settings the cross-validation chooses from: first no
// re-rank (the BM25 order), then each depth, method and penalty, with
// every feature and without the one that needs word vectors.
func Trainers() []Trainer {
	out := []Trainer{{Drop: -1}}
	for _, d := range []int{20, 30, 50} {
		for _, drop := range []int{-1, search.FeatDense} {
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
func (t Trainer) Train(ss []Sample) search.Rerank {
	if t.Depth <= 0 {
		return search.Rerank{}
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
func (t Trainer) standardization(ss []Sample) (mean, sd search.Features) {
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
	d    search.Features
	p, q int
	w    float64
}

// logistic fits w minimizing Σ weight × log(1 + exp(-w·(x⁺ - x⁻))) +
// Lambda/2 |w|² over the pairs of each query's top Depth (standardized
// features; Newton's method, which converges in a few steps with this
// few dimensions), then maps w back to raw features. Each query's pairs
// weigh 1 together.
func (t Trainer) logistic(ss []Sample) search.Rerank {
	_, sd := t.standardization(ss)
	active := func(f int) bool { return t.used(f) && sd[f] > 0 }
	type query struct {
		x     []search.Features // standardized
		pairs []pair
	}
	var qs []query
	for _, s := range ss {
		cs := s.Cands[:min(t.Depth, len(s.Cands))]
		var q query
		for _, c := range cs {
			var x search.Features
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
				var d search.Features
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
	var w search.Features
	if active(search.FeatScore) {
		w[search.FeatScore] = 1
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
	r := search.Rerank{Depth: t.Depth}
	for f := range w {
		if active(f) {
			r.Weights[f] = w[f] / sd[f]
		}
	}
	return r
}

// ranks returns the 0-based rank of each of x under weights w.
func ranks(x []search.Features, w search.Features) []int {
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
func (t Trainer) newton(pairs []pair, w search.Features, active func(int) bool) search.Features {
	const k = search.NumFeatures
	for iter := 0; iter < 50; iter++ {
		var g search.Features
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
func solve(h [search.NumFeatures][search.NumFeatures]float64, g search.Features) search.Features {
	const k = search.NumFeatures
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
	var x search.Features
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
func (t Trainer) coordinate(ss []Sample) search.Rerank {
	_, sd := t.standardization(ss)
	anchor := search.FeatScore
	if !t.used(anchor) {
		anchor = search.FeatRank
	}
	r := search.Rerank{Depth: t.Depth}
	r.Weights[anchor] = 1
	grid := []float64{0, -2, -1, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1, 2, 4}
	obj := func(r search.Rerank) float64 { return MeasureSamples(ss, r).Objective() }
	best := obj(r)
	for pass := 0; pass < 3; pass++ {
		improved := false
		for f := 0; f < search.NumFeatures; f++ {
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

// FoldResult is one direction of the cross-fitting: weights learned on
// Train, measured on Test beside BM25's order (the lexical ranking).
type FoldResult struct {
	Train, Test string
	Trainer     Trainer
	Rerank      search.Rerank
	Held        Figures // the learned re-rank on Test
	Lexical     Figures // the lexical ranking on Test
}

// CrossFit learns t on each half and measures it on the other.
func CrossFit(ss []Sample, t Trainer) [2]FoldResult {
	var out [2]FoldResult
	for i, h := range [][2]string{{"A", "B"}, {"B", "A"}} {
		r := t.Train(SplitSamples(ss, h[0]))
		test := SplitSamples(ss, h[1])
		out[i] = FoldResult{Train: h[0], Test: h[1], Trainer: t, Rerank: r,
			Held: MeasureSamples(test, r), Lexical: MeasureSamples(test, search.Rerank{})}
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
			Held: MeasureSamples(test, r), Lexical: MeasureSamples(test, search.Rerank{})}
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
// hash of the query ID, for choosing a trainer inside a half. (Half reads
// the lowest bit of FNV-1a, which is the parity of the bytes' lowest bits
// whatever else is hashed, so it cannot be reused with a prefix; the top
// bit mixes every byte.)
func InnerHalf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if h.Sum32()>>31 == 0 {
		return "A"
	}
	return "B"
}

// LTRReport is the evaluation of the learned re-rank: every trainer
// cross-fitted (learned on one half, measured on the other), the two-fold
// cross-validation over them, and the ablation (each feature left out) of
// the Ablated trainers.
type LTRReport struct {
	Lexical  [2]Figures // halves A and B, BM25 order
	Ceilings []Ceiling  // what a perfect re-rank of the top k could reach
	Trainers [][2]FoldResult
	Chosen   [2]FoldResult
	Ablation [][][2]FoldResult // per ablated trainer: all features, then each left out
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
				for _, c := range top {
					if set[c.ID] {
						return true
					}
				}
				return false
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

// AblatedTrainers are the trainers whose features are ablated: one of
// each method, over the top 30.
func AblatedTrainers() []Trainer {
	return []Trainer{{Depth: 30, Coordinate: true, Drop: -1}, {Depth: 30, Lambda: 1, Drop: -1}, {Depth: 30, Lambda: 1, Lambdas: true, Drop: -1}}
}

// LearnToRank evaluates the learned re-rank on d (wv: word vectors for the
// dense feature, may be nil).
func (d Data) LearnToRank(wv *search.WordVectors) (LTRReport, error) {
	ss, err := d.Samples(wv)
	if err != nil {
		return LTRReport{}, err
	}
	var rep LTRReport
	for i, h := range []string{"A", "B"} {
		rep.Lexical[i] = MeasureSamples(SplitSamples(ss, h), search.Rerank{})
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
		for drop := -1; drop < search.NumFeatures; drop++ {
			t := base
			t.Drop = drop
			rows = append(rows, CrossFit(ss, t))
		}
		rep.Ablation = append(rep.Ablation, rows)
	}
	return rep, nil
}
