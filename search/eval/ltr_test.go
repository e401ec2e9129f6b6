package eval

import (
	"fmt"
	"math"
	"testing"

	"github.com/plughost/plughost/search"
)

// siblings is a benchmark where BM25 prefers, for every query, the long
// sibling name that repeats the query's words in its description, while
// the label is the short one: what a re-rank on name coverage fixes.
func siblings() Data {
	var d Data
	for i := range 40 {
		srv := fmt.Sprintf("app%d", i)
		obj := []string{"invoice", "ticket", "order", "note", "event", "file"}[i%6]
		d.Tools = append(d.Tools,
			Tool{Server: srv, Name: "send_" + obj, Description: "Deliver it to the recipient through the channel chosen in the settings of the account, with a copy kept in the outbox for auditing."},
			Tool{Server: srv, Name: "send_" + obj + "_overdue_reminder", Description: "Send a reminder about a " + obj + ": send the " + obj + " again to the customer."},
			Tool{Server: srv, Name: "list_" + obj + "s", Description: "List " + obj + "s of a customer."},
		)
		d.Single = append(d.Single, Query{ID: fmt.Sprintf("s%d", i), Level: 2, Query: "send the " + obj + " again to the customer in " + srv,
			Relevant: []ToolRef{{srv, "send_" + obj}}})
		d.Multi = append(d.Multi, MultiQuery{ID: fmt.Sprintf("m%d", i), Level: 3, Query: "send the " + obj + " in " + srv + " then list the " + obj + "s of the customer",
			Steps: [][]ToolRef{{{srv, "send_" + obj}}, {{srv, "list_" + obj + "s"}}}})
	}
	d.Single = append(d.Single, Query{ID: "exact", Level: 1, Query: "app3 send_note_overdue_reminder", Relevant: []ToolRef{{"app3", "send_note_overdue_reminder"}}})
	return d
}

// TestSamplesMeasureLikeSearch: the figures computed from the samples are
// those of the index searched with the same re-rank, so what the trainers
// optimise is what Search does.
func TestSamplesMeasureLikeSearch(t *testing.T) {
	d := siblings()
	ss, err := d.Samples(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []search.Rerank{
		{},
		{Depth: 30, Weights: search.Features{search.FeatScore: 1, search.FeatNameCover: 2}},
		{Depth: 5, Weights: search.Features{search.FeatRank: -1, search.FeatNameLen: 0.5}},
	} {
		ix, err := BuildIndex(d.Tools, nil, search.WithRerank(r, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, half := range []string{"", "A", "B"} {
			want, err := d.Measure(ix, half)
			if err != nil {
				t.Fatal(err)
			}
			if got := MeasureSamples(SplitSamples(ss, half), r); got != want {
				t.Errorf("%+v, half %q: samples %+v, Search %+v", r, half, got, want)
			}
		}
		ix.Close()
	}
}

func TestTrainersLearnTheSiblingFeature(t *testing.T) {
	d := siblings()
	ss, err := d.Samples(nil)
	if err != nil {
		t.Fatal(err)
	}
	lex := MeasureSamples(ss, search.Rerank{})
	if lex.L2.R1 != 0 {
		t.Fatalf("BM25 already solves the benchmark (L2 R@1 %v): it no longer tests a re-rank", lex.L2.R1)
	}
	for _, tr := range []Trainer{{Depth: 10, Lambda: 1, Drop: -1}, {Depth: 10, Coordinate: true, Drop: -1}} {
		folds := CrossFit(ss, tr)
		for _, f := range folds {
			if f.Held.L2.R1 != 1 || (f.Held.L1.N > 0 && f.Held.L1.R1 != 1) {
				t.Errorf("%s learned on %s: %+v on %s (weights %v)", tr, f.Train, f.Held, f.Test, f.Rerank.Weights)
			}
			if f.Lexical.L2.R1 != 0 || f.Train == f.Test {
				t.Errorf("fold %s→%s: lexical %+v", f.Train, f.Test, f.Lexical)
			}
		}
	}
	tr := Trainer{Depth: 10, Coordinate: true, Drop: -1}
	r := tr.Train(ss)
	if r.Weights[search.FeatScore] != 1 || r.Depth != 10 {
		t.Errorf("coordinate ascent moved the BM25 weight or the depth: %+v", r)
	}
}

func TestChooseAndFitPicksOnTheTrainingHalf(t *testing.T) {
	ss, err := siblings().Samples(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A re-rank of the top 1 cannot beat the lexical order; that of the
	// top 10 can and is chosen on both halves.
	useful := Trainer{Depth: 10, Coordinate: true, Drop: -1}
	folds := ChooseAndFit(ss, []Trainer{{Depth: 1, Coordinate: true, Drop: -1}, useful})
	for _, f := range folds {
		if f.Trainer != useful || f.Held.L2.R1 != 1 {
			t.Errorf("chosen on %s: %s, %+v", f.Train, f.Trainer, f.Held)
		}
	}
}

func TestSolve(t *testing.T) {
	var h [search.NumFeatures][search.NumFeatures]float64
	var want, g search.Features
	for i := range h {
		h[i][i] = float64(i + 2)
		if i > 0 {
			h[i][i-1], h[i-1][i] = 1, 1
		}
		want[i] = float64(i) - 3
	}
	for i := range h {
		for j := range h {
			g[i] += h[i][j] * want[j]
		}
	}
	got := solve(h, g)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("solve = %v, want %v", got, want)
		}
	}
}

// TestInnerHalfSplitsEachHalf: the inner split cuts both halves in two.
func TestInnerHalfSplitsEachHalf(t *testing.T) {
	n := map[string]int{}
	for i := range 2000 {
		id := fmt.Sprintf("q%d", i)
		n[Half(id)+InnerHalf(id)]++
	}
	for _, k := range []string{"AA", "AB", "BA", "BB"} {
		if n[k] < 400 {
			t.Errorf("half %c, inner half %c: %d of 2000 queries", k[0], k[1], n[k])
		}
	}
}

func TestCeiling(t *testing.T) {
	ss, err := siblings().Samples(nil)
	if err != nil {
		t.Fatal(err)
	}
	// BM25 puts the short sibling second or third and the list tool
	// within the top 3: the top 1 holds no acceptable tool of a level-2
	// query, the top 3 one for each.
	c1, c3 := CeilingOf(ss, 1), CeilingOf(ss, 3)
	if c1.Level2 != [2]float64{0, 0} || c3.Level2 != [2]float64{1, 1} || c3.Multi != [2]float64{1, 1} {
		t.Errorf("ceilings: top 1 %+v, top 3 %+v", c1, c3)
	}
}
