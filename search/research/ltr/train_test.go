package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/plughost/plughost/search"
	"github.com/plughost/plughost/search/eval"
)

// siblings is a benchmark where BM25 prefers, for every query, the long
// sibling name that repeats the query's words in its description, while
// the label is the short one: what a re-rank on name coverage fixes.
func siblings() eval.Data {
	var d eval.Data
	for i := range 40 {
		srv := fmt.Sprintf("app%d", i)
		obj := []string{"invoice", "ticket", "order", "note", "event", "file"}[i%6]
		d.Tools = append(d.Tools,
			eval.Tool{Server: srv, Name: "send_" + obj, Description: "Deliver it to the recipient through the channel chosen in the settings of the account, with a copy kept in the outbox for auditing."},
			eval.Tool{Server: srv, Name: "send_" + obj + "_overdue_reminder", Description: "Send a reminder about a " + obj + ": send the " + obj + " again to the customer."},
			eval.Tool{Server: srv, Name: "list_" + obj + "s", Description: "List " + obj + "s of a customer."},
		)
		d.Single = append(d.Single, eval.Query{ID: fmt.Sprintf("s%d", i), Level: 2, Query: "send the " + obj + " again to the customer in " + srv,
			Relevant: []eval.ToolRef{{srv, "send_" + obj}}})
		d.Multi = append(d.Multi, eval.MultiQuery{ID: fmt.Sprintf("m%d", i), Level: 3, Query: "send the " + obj + " in " + srv + " then list the " + obj + "s of the customer",
			Steps: [][]eval.ToolRef{{{srv, "send_" + obj}}, {{srv, "list_" + obj + "s"}}}})
	}
	d.Single = append(d.Single, eval.Query{ID: "exact", Level: 1, Query: "app3 send_note_overdue_reminder", Relevant: []eval.ToolRef{{"app3", "send_note_overdue_reminder"}}})
	return d
}

func samples(t *testing.T, d eval.Data) []Sample {
	t.Helper()
	ss, err := Samples(context.Background(), d, vectors{})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestSamplesMeasureLikeSearch: without a re-rank, the figures computed
// from the samples are those of the index searched, so the candidates,
// the exact matches and the scoring are the product's.
func TestSamplesMeasureLikeSearch(t *testing.T) {
	d := siblings()
	ss := samples(t, d)
	ix, err := eval.BuildIndex(d.Tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, half := range []string{"", "A", "B"} {
		want, err := d.Measure(ix, half)
		if err != nil {
			t.Fatal(err)
		}
		if got := MeasureSamples(SplitSamples(ss, half), Rerank{}); got != want {
			t.Errorf("half %q: samples %+v, Search %+v", half, got, want)
		}
	}
}

// billingSample is the sample of query on the billing catalog, with
// send_invoice acceptable.
func billingSample(t *testing.T, query string) Sample {
	t.Helper()
	ix, tools := billing(t, vectors{})
	c, err := ix.Candidates(query, MaxDepth)
	if err != nil {
		t.Fatal(err)
	}
	return Sample{ID: "q", Level: 2, Cands: features(c, nil, tools), Exact: c.Exact, Relevant: map[string]bool{"billing.send_invoice": true}}
}

func ids(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestRankingFollowsTheWeights(t *testing.T) {
	s := billingSample(t, sendInvoice)
	lexical := ids(s.Ranking(Rerank{}))
	if lexical[0] != "billing.send_invoice_overdue_reminder" {
		t.Fatalf("BM25 order %v: the catalog no longer tests a re-order", lexical)
	}
	cover := Rerank{Depth: 10, Weights: Features{FeatNameCover: 1}}
	if got := ids(s.Ranking(cover)); got[0] != "billing.send_invoice" {
		t.Errorf("name coverage weighted: %v, want send_invoice first (it covers its whole name)", got)
	}
	cover.Weights[FeatNameCover] = -1
	if got := ids(s.Ranking(cover)); got[0] != "billing.send_invoice_overdue_reminder" {
		t.Errorf("name coverage weighted down: %v, want the reminder first", got)
	}
}

// TestRankingReordersTheTopDepthOrK: a re-rank orders the BM25 top
// max(Depth, 10) (as a search for the top 10 would) and nothing below.
func TestRankingReordersTheTopDepthOrK(t *testing.T) {
	var s Sample
	var want []string
	for i := range 12 {
		id := fmt.Sprintf("t%02d", i)
		s.Cands = append(s.Cands, Candidate{ID: id, BM25: float64(12 - i), Features: Features{FeatRank: 1 / float64(1+i)}})
		want = append(want, id)
	}
	reverse := Features{FeatRank: -1}
	if got := ids(s.Ranking(Rerank{Depth: 2, Weights: reverse})); !slices.Equal(got, reversed(want[:10])) {
		t.Errorf("depth 2: %v, want the top 10 reversed", got)
	}
	if got := ids(s.Ranking(Rerank{Depth: 12, Weights: reverse})); !slices.Equal(got, reversed(want)[:10]) {
		t.Errorf("depth 12: %v, want the top 12 reversed, cut to 10", got)
	}
	if got := ids(s.Ranking(Rerank{})); !slices.Equal(got, want[:10]) {
		t.Errorf("no re-rank: %v, want the BM25 top 10", got)
	}
}

// reversed returns a reversed copy of s.
func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestRankingKeepsExactNameFirst(t *testing.T) {
	s := billingSample(t, "send_invoice_overdue_reminder")
	if got := ids(s.Ranking(Rerank{Depth: 10, Weights: Features{FeatNameLen: -10}})); got[0] != "billing.send_invoice_overdue_reminder" {
		t.Errorf("exact name not first: %v", got)
	}
}

func TestTrainersLearnTheSiblingFeature(t *testing.T) {
	ss := samples(t, siblings())
	lex := MeasureSamples(ss, Rerank{})
	if lex.L2.R1 != 0 {
		t.Fatalf("BM25 already solves the benchmark (L2 R@1 %v): it no longer tests a re-rank", lex.L2.R1)
	}
	for _, tr := range []Trainer{{Depth: 10, Lambda: 1, Drop: -1}, {Depth: 10, Coordinate: true, Drop: -1}, {Depth: 10, Lambda: 1, Lambdas: true, Drop: -1}} {
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
	if r.Weights[FeatScore] != 1 || r.Depth != 10 {
		t.Errorf("coordinate ascent moved the BM25 weight or the depth: %+v", r)
	}
	if r := (Trainer{Drop: -1}).Train(ss); r != (Rerank{}) {
		t.Errorf("a trainer of depth 0 learned %+v", r)
	}
	if r := (Trainer{Depth: 10, Lambda: 1, Drop: FeatNameCover}).Train(ss); r.Weights[FeatNameCover] != 0 {
		t.Errorf("the feature left out got weight %v", r.Weights[FeatNameCover])
	}
}

func TestChooseAndFitPicksOnTheTrainingHalf(t *testing.T) {
	ss := samples(t, siblings())
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
	var h [NumFeatures][NumFeatures]float64
	var want, g Features
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
		n[eval.Half(id)+InnerHalf(id)]++
	}
	for _, k := range []string{"AA", "AB", "BA", "BB"} {
		if n[k] < 400 {
			t.Errorf("half %c, inner half %c: %d of 2000 queries", k[0], k[1], n[k])
		}
	}
}

func TestCeiling(t *testing.T) {
	ss := samples(t, siblings())
	// BM25 puts the short sibling second or third and the list tool
	// within the top 3: the top 1 holds no acceptable tool of a level-2
	// query, the top 3 one for each.
	c1, c3 := CeilingOf(ss, 1), CeilingOf(ss, 3)
	if c1.Level2 != [2]float64{0, 0} || c3.Level2 != [2]float64{1, 1} || c3.Multi != [2]float64{1, 1} {
		t.Errorf("ceilings: top 1 %+v, top 3 %+v", c1, c3)
	}
}
