package eval

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/plughost/plughost/search"
)

// Half returns the half ("A" or "B") a query belongs to in the two-fold
// cross-validation: a fixed hash of its ID, so anyone gets the same split.
func Half(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return "A"
	}
	return "B"
}

// SplitSingle returns the queries of half ("A", "B"; "" keeps all).
func SplitSingle(qs []Query, half string) []Query {
	return splitHalf(qs, half, func(q Query) string { return q.ID })
}

// SplitMulti is SplitSingle for multi-step queries.
func SplitMulti(qs []MultiQuery, half string) []MultiQuery {
	return splitHalf(qs, half, func(q MultiQuery) string { return q.ID })
}

// splitHalf keeps the items of xs whose ID is in half ("" keeps all).
func splitHalf[T any](xs []T, half string, id func(T) string) []T {
	if half == "" {
		return xs
	}
	var out []T
	for _, x := range xs {
		if Half(id(x)) == half {
			out = append(out, x)
		}
	}
	return out
}

// Data is a benchmark loaded for the semantic evaluation: tools, optional
// server descriptions, single-tool and multi-step queries (either may be
// empty).
type Data struct {
	Tools   []Tool
	Servers map[string]string
	Single  []Query
	Multi   []MultiQuery
	// Embedder, when set, gives the dense vectors of the variants that
	// re-rank (Semantic.Dense > 0) instead of the word vectors: an
	// embeddings endpoint (search.WithEmbedder), as the host uses it.
	Embedder search.Embedder
}

// Variant is one ranker configuration: plain BM25 (Baseline), or the index
// with Semantic (nil: lexical only).
type Variant struct {
	Name     string
	Baseline bool
	Semantic *search.Semantic
}

// Figures are the headline metrics of a variant on a set of queries.
type Figures struct {
	L1, L2 Scores
	Multi  MultiScores
}

// Objective is what the cross-validation maximises: the mean of level-2
// R@1 and R@5 and multi-step All@10 (the goals).
func (f Figures) Objective() float64 {
	return (f.L2.R1 + f.L2.R5 + f.Multi.All10) / 3
}

// Searchers builds the ranker of v over d.Tools (wv: the word vectors a
// semantic variant uses). close releases it.
func (d Data) Searcher(v Variant, wv *search.WordVectors) (s Searcher, close func(), err error) {
	if v.Baseline {
		return NewBaseline(d.Tools), func() {}, nil
	}
	var opts []search.Option
	if v.Semantic != nil {
		sem := *v.Semantic
		endpoint := d.Embedder != nil && sem.Dense > 0
		if endpoint && sem.Expansion == 0 {
			opts = append(opts, search.WithEmbedder(d.Embedder, sem, search.EmbedderOptions{Timeout: time.Minute}))
		} else {
			if wv == nil {
				return nil, nil, fmt.Errorf("eval: variant %q needs word vectors", v.Name)
			}
			opts = append(opts, search.WithSemantic(wv, sem))
			if endpoint {
				opts = append(opts, search.WithEmbedder(d.Embedder, sem, search.EmbedderOptions{Timeout: time.Minute}))
			}
		}
	}
	ix, err := BuildIndex(d.Tools, d.Servers, opts...)
	if err != nil {
		return nil, nil, err
	}
	return ix, func() { ix.Close() }, nil
}

// Measure returns the figures of s on the queries of half ("" = all).
func (d Data) Measure(s Searcher, half string) (Figures, error) {
	var f Figures
	single, err := EvalSingle(s, SplitSingle(d.Single, half))
	if err != nil {
		return f, err
	}
	multi, err := EvalMulti(s, SplitMulti(d.Multi, half))
	if err != nil {
		return f, err
	}
	return Figures{L1: single.Levels["1"], L2: single.Levels["2"], Multi: multi.MultiScores}, nil
}

// Row is a variant's figures on each half and on all queries.
type Row struct {
	Variant      Variant
	A, B, All    Figures
	BothImproved bool // better than the reference on both halves (Objective)
}

// Ablate measures each variant on both halves and on all queries; a row's
// BothImproved compares it with the reference row ref (an index into vs).
func (d Data) Ablate(vs []Variant, ref int, wv *search.WordVectors) ([]Row, error) {
	rows := make([]Row, len(vs))
	for i, v := range vs {
		s, done, err := d.Searcher(v, wv)
		if err != nil {
			return nil, err
		}
		rows[i].Variant = v
		for _, p := range []struct {
			half string
			dst  *Figures
		}{{"A", &rows[i].A}, {"B", &rows[i].B}, {"", &rows[i].All}} {
			if *p.dst, err = d.Measure(s, p.half); err != nil {
				done()
				return nil, err
			}
		}
		done()
	}
	for i := range rows {
		rows[i].BothImproved = rows[i].A.Objective() > rows[ref].A.Objective() && rows[i].B.Objective() > rows[ref].B.Objective()
	}
	return rows, nil
}

// AblationVariants are the pieces of the semantic signal, each alone and
// together, beside plain BM25 and today's lexical ranking (the reference,
// index 1).
func AblationVariants() []Variant {
	def := search.DefaultSemantic()
	expandOOV := search.Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.6}
	expandAll := expandOOV
	expandAll.ExpandAll = true
	dense := search.Semantic{Dense: 0.2, Depth: 30}
	both := expandOOV
	both.Dense, both.Depth = dense.Dense, dense.Depth
	return []Variant{
		{Name: "plain BM25", Baseline: true},
		{Name: "lexical (no vectors)"},
		{Name: "+ expansion, absent terms", Semantic: &expandOOV},
		{Name: "+ expansion, every term", Semantic: &expandAll},
		{Name: "+ dense re-rank", Semantic: &dense},
		{Name: "+ expansion + dense", Semantic: &both},
		{Name: "default semantic", Semantic: &def},
	}
}

// EndpointVariants are the ablation rows of an embeddings endpoint: plain
// BM25, the lexical ranking (the reference, index 1), the endpoint's dense
// re-rank at a few weights, the host's default (0.5 over the top 50)
// among them, and the endpoint's order nearly alone (weight 100 over the
// BM25 top 1,000: BM25 only breaks ties), which shows how strong the
// signal is by itself.
func EndpointVariants() []Variant {
	vs := []Variant{{Name: "plain BM25", Baseline: true}, {Name: "lexical (no vectors)"}}
	for _, s := range []search.Semantic{{Dense: 0.2, Depth: 30}, {Dense: 0.5, Depth: 50}, {Dense: 1, Depth: 50}, {Dense: 100, Depth: 1000}} {
		s := s
		vs = append(vs, Variant{Name: fmt.Sprintf("+ endpoint re-rank (w %g, top %d)", s.Dense, s.Depth), Semantic: &s})
	}
	return vs
}

// EndpointGrid is what the cross-validation chooses from with an
// embeddings endpoint: the lexical ranking and the dense re-rank's weight
// and depth.
func EndpointGrid() []*search.Semantic {
	grid := []*search.Semantic{nil}
	for _, depth := range []int{30, 50} {
		for _, w := range []float64{0.1, 0.2, 0.3, 0.5, 0.8, 1} {
			grid = append(grid, &search.Semantic{Dense: w, Depth: depth})
		}
	}
	return grid
}

// Grid is the settings the cross-validation chooses from: the lexical
// ranking (nil) and a small grid over each piece of the semantic signal.
func Grid() []*search.Semantic {
	grid := []*search.Semantic{nil}
	for _, all := range []bool{false, true} {
		for _, e := range []float64{0.2, 0.5, 1} {
			for _, minSim := range []float64{0.5, 0.6, 0.7} {
				grid = append(grid, &search.Semantic{Expansion: e, Neighbors: 3, MinSimilarity: minSim, ExpandAll: all})
			}
		}
	}
	for _, dense := range []float64{0.05, 0.1, 0.2, 0.5} {
		grid = append(grid, &search.Semantic{Dense: dense, Depth: 30})
	}
	return grid
}

// Fold is one direction of the two-fold cross-validation: the setting
// chosen on the Train half and its figures, and the lexical ranking's, on
// the Test half.
type Fold struct {
	Train, Test string
	Chosen      *search.Semantic
	Held        Figures // the chosen setting on Test
	Lexical     Figures // the lexical ranking on Test
}

// CrossValidate chooses a setting from grid on each half (highest
// Objective; the earlier setting on ties, so the lexical ranking wins a
// tie) and measures it on the other half.
func (d Data) CrossValidate(grid []*search.Semantic, wv *search.WordVectors) ([2]Fold, error) {
	type scored struct{ A, B Figures }
	res := make([]scored, len(grid))
	for i, s := range grid {
		v := Variant{Name: describe(s), Semantic: s}
		ix, done, err := d.Searcher(v, wv)
		if err != nil {
			return [2]Fold{}, err
		}
		if res[i].A, err = d.Measure(ix, "A"); err == nil {
			res[i].B, err = d.Measure(ix, "B")
		}
		done()
		if err != nil {
			return [2]Fold{}, err
		}
	}
	best := func(train func(scored) Figures) int {
		b := 0
		for i := range res {
			if train(res[i]).Objective() > train(res[b]).Objective() {
				b = i
			}
		}
		return b
	}
	a := best(func(s scored) Figures { return s.A })
	b := best(func(s scored) Figures { return s.B })
	return [2]Fold{
		{Train: "A", Test: "B", Chosen: grid[a], Held: res[a].B, Lexical: res[0].B},
		{Train: "B", Test: "A", Chosen: grid[b], Held: res[b].A, Lexical: res[0].A},
	}, nil
}

// describe names a grid setting.
func describe(s *search.Semantic) string {
	if s == nil {
		return "lexical"
	}
	return Describe(*s)
}

// Describe writes a Semantic setting in the form --semantic reads.
func Describe(s search.Semantic) string {
	return fmt.Sprintf("expansion=%g,neighbors=%d,min=%g,all=%t,dense=%g,depth=%d",
		s.Expansion, s.Neighbors, s.MinSimilarity, s.ExpandAll, s.Dense, s.Depth)
}

// ParseSemantic reads a setting written as Describe writes it: "off"
// (nil), "default", or comma-separated key=value pairs (expansion,
// neighbors, min, all, dense, depth; keys left out are 0 / false).
func ParseSemantic(spec string) (*search.Semantic, error) {
	switch spec {
	case "off", "":
		return nil, nil
	case "default":
		s := search.DefaultSemantic()
		return &s, nil
	}
	var s search.Semantic
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("--semantic: %q is not key=value (keys: expansion, neighbors, min, all, dense, depth)", kv)
		}
		var err error
		switch k {
		case "expansion":
			s.Expansion, err = strconv.ParseFloat(v, 64)
		case "neighbors":
			s.Neighbors, err = strconv.Atoi(v)
		case "min":
			s.MinSimilarity, err = strconv.ParseFloat(v, 64)
		case "all":
			s.ExpandAll, err = strconv.ParseBool(v)
		case "dense":
			s.Dense, err = strconv.ParseFloat(v, 64)
		case "depth":
			s.Depth, err = strconv.Atoi(v)
		default:
			return nil, fmt.Errorf("--semantic: unknown key %q (keys: expansion, neighbors, min, all, dense, depth)", k)
		}
		if err != nil {
			return nil, fmt.Errorf("--semantic: %s=%q: %w", k, v, err)
		}
	}
	if s == (search.Semantic{}) {
		return nil, nil
	}
	return &s, nil
}
