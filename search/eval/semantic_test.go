package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plughost/plughost/search"
)

func TestHalfIsFixedAndBalanced(t *testing.T) {
	n := map[string]int{}
	for i := range 1000 {
		n[Half(fmt.Sprintf("q%d", i))]++
	}
	if n["A"] < 450 || n["B"] < 450 || n["A"]+n["B"] != 1000 {
		t.Errorf("halves = %v, want two near-equal halves", n)
	}
	// The split is published with the results: pin a few IDs so a change of
	// hash (or of its parity rule) shows up here rather than as moved scores.
	for id, want := range map[string]string{"L2-017": "A", "L1-001": "A", "q0": "A", "q1": "B"} {
		if got := Half(id); got != want {
			t.Errorf("Half(%q) = %q, want %q (the split must stay fixed)", id, got, want)
		}
	}
	qs := []Query{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	a, b := SplitSingle(qs, "A"), SplitSingle(qs, "B")
	if len(a)+len(b) != len(qs) || len(SplitSingle(qs, "")) != len(qs) {
		t.Errorf("split %d + %d of %d", len(a), len(b), len(qs))
	}
}

func TestParseSemantic(t *testing.T) {
	got, err := ParseSemantic("expansion=0.5,neighbors=3,min=0.6,all=true,dense=0.2,depth=30")
	if err != nil {
		t.Fatal(err)
	}
	want := search.Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.6, ExpandAll: true, Dense: 0.2, Depth: 30}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if back, _ := ParseSemantic(Describe(want)); *back != want {
		t.Errorf("Describe does not round-trip: %q", Describe(want))
	}
	if s, err := ParseSemantic("off"); s != nil || err != nil {
		t.Errorf("off = %v, %v", s, err)
	}
	if s, err := ParseSemantic("default"); err != nil || *s != search.DefaultSemantic() {
		t.Errorf("default = %v, %v", s, err)
	}
	for _, bad := range []string{"expansion", "colour=1", "dense=x"} {
		if _, err := ParseSemantic(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestCrossValidateChoosesOnTheOtherHalf: on a tiny benchmark where only
// the lexical ranking is offered, both folds choose it and report the
// other half's figures.
func TestCrossValidateChoosesOnTheOtherHalf(t *testing.T) {
	d := Data{
		Tools: []Tool{{Server: "s", Name: "create_note", Description: "Create a note."}, {Server: "s", Name: "get_forecast", Description: "Weather forecast."}},
	}
	for i := range 8 {
		q := Query{ID: fmt.Sprintf("q%d", i), Level: 2, Query: "create a note", Relevant: []ToolRef{{"s", "create_note"}}}
		if i%2 == 1 {
			q.Query, q.Relevant = "forecast please", []ToolRef{{"s", "get_forecast"}}
		}
		d.Single = append(d.Single, q)
	}
	folds, err := d.CrossValidate([]*search.Semantic{nil}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folds {
		if f.Chosen != nil || f.Held.L2.R1 != 1 || f.Held.L2.N == 0 || f.Held != f.Lexical || f.Train == f.Test {
			t.Errorf("fold %+v", f)
		}
	}
	if folds[0].Held.L2.N+folds[1].Held.L2.N != 8 {
		t.Errorf("the folds measured %d + %d of 8 queries", folds[0].Held.L2.N, folds[1].Held.L2.N)
	}
}

// topicEmbedder is an Embedder that places a text on the "weather" axis
// when it mentions the sky or an umbrella, and on the "notes" axis otherwise.
type topicEmbedder struct{ calls int }

func (e *topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if strings.Contains(t, "sky") || strings.Contains(t, "umbrella") {
			out[i] = []float32{1, 0}
		} else {
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}

// TestEndpointVariantsUseTheEmbedder: with Data.Embedder set, a re-rank
// variant takes its vectors from the endpoint (no word vectors needed) and
// its order follows them; the lexical row is the reference.
func TestEndpointVariantsUseTheEmbedder(t *testing.T) {
	emb := &topicEmbedder{}
	d := Data{
		Tools: []Tool{
			{Server: "notes", Name: "make_entry", Description: "Make an entry for today."},
			{Server: "weather", Name: "make_outlook", Description: "Make an outlook for today: sky and rain."},
		},
		Single:   []Query{{ID: "q", Level: 2, Query: "will it rain today", Relevant: []ToolRef{{"weather", "make_outlook"}}}},
		Embedder: emb,
	}
	dense := search.Semantic{Dense: 5, Depth: 10}
	s, done, err := d.Searcher(Variant{Name: "endpoint", Semantic: &dense}, nil)
	if err != nil {
		t.Fatalf("an endpoint variant needs no word vectors: %v", err)
	}
	defer done()
	hits, err := s.Search("make an entry for today", 2)
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	if hits[0].ID != ToolID("notes", "make_entry") {
		t.Errorf("first hit %s, want the notes tool (lexically and by its vector)", hits[0].ID)
	}
	hits, _ = s.Search("make an entry for today: umbrella?", 2)
	if len(hits) == 0 || hits[0].ID != ToolID("weather", "make_outlook") {
		t.Errorf("hits %v: the endpoint's vectors should put the weather tool first (lexically the notes tool is)", hits)
	}
	if emb.calls == 0 {
		t.Error("the embedder was never called")
	}
	rows, err := d.Ablate(EndpointVariants(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(EndpointVariants()) || rows[1].Variant.Semantic != nil {
		t.Errorf("rows %d, reference %+v: want every endpoint variant and the lexical row as reference", len(rows), rows[1].Variant)
	}
	if g := EndpointGrid(); g[0] != nil || len(g) < 2 || g[1].Dense <= 0 || g[1].Expansion != 0 {
		t.Errorf("EndpointGrid() = %v: want the lexical ranking first, then dense-only settings", g)
	}
}
