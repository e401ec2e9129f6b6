package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/google/go-cmp/cmp"
)

// zipfCorpus indexes docs drawn from a Zipf-distributed vocabulary (a few
// words in most documents, most words in few), with repeated documents so
// that ties occur, and returns queries drawn the same way.
func zipfCorpus(t *testing.T) (*Index, []string) {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 1, 400)
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%dx", z.Uint64())
		}
		return strings.Join(w, " ")
	}
	ix := newIndex(t)
	byServer := map[string][]Doc{}
	for i := range 1500 {
		server := fmt.Sprintf("s%d", i%40)
		d := Doc{ID: fmt.Sprintf("d%04d", i), Name: words(2), Description: words(4 + r.IntN(20)),
			Params: []Param{{Name: words(1), Description: words(6)}}}
		if i%7 == 0 && i >= 40 { // a copy of an earlier document: equal scores
			prev := byServer[server][0]
			d.Name, d.Description, d.Params = prev.Name, prev.Description, prev.Params
		}
		byServer[server] = append(byServer[server], d)
	}
	if err := ix.ReplaceServers(byServer); err != nil {
		t.Fatal(err)
	}
	queries := make([]string, 300)
	for i := range queries {
		queries[i] = words(3 + r.IntN(28))
	}
	return ix, queries
}

// TestPruningIsExact checks that skipping the postings that cannot change
// the top n gives the hits (IDs, scores and order) of reading every list.
func TestPruningIsExact(t *testing.T) {
	ix, queries := zipfCorpus(t)
	reader, err := ix.writer.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, q := range queries {
		terms := ix.queryTerms(Analyze(q))
		full, err := ix.rank(reader, terms, ix.Len(), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 5, 10, 30} {
			got, err := ix.rank(reader, terms, n, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(full[:min(n, len(full))], got); diff != "" {
				t.Fatalf("query %q, n=%d: pruned hits differ (-full +pruned):\n%s", q, n, diff)
			}
		}
	}
}

// TestScoresMatchBluge checks the term-at-a-time scores against bluge's own
// evaluation of the same query (a BooleanQuery of boosted TermQueries).
func TestScoresMatchBluge(t *testing.T) {
	ix, queries := zipfCorpus(t)
	reader, err := ix.writer.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, q := range queries[:50] {
		terms := ix.queryTerms(Analyze(q))
		ours, err := ix.rank(reader, terms, ix.Len(), false)
		if err != nil {
			t.Fatal(err)
		}
		bq := bluge.NewBooleanQuery()
		for _, wt := range terms {
			bq.AddShould(bluge.NewTermQuery(wt.term).SetField(wt.field).SetBoost(wt.boost))
		}
		it, err := reader.Search(context.Background(), bluge.NewTopNSearch(ix.Len(), bq))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for m, err := it.Next(); m != nil || err != nil; m, err = it.Next() {
			if err != nil {
				t.Fatal(err)
			}
			var id string
			err = m.VisitStoredFields(func(field string, value []byte) bool {
				if field == "_id" {
					id = string(value)
				}
				return field != "_id"
			})
			if err != nil {
				t.Fatal(err)
			}
			want[id] = m.Score
		}
		if len(want) != len(ours) {
			t.Fatalf("query %q: bluge matched %d documents, we %d", q, len(want), len(ours))
		}
		for _, h := range ours {
			if w, ok := want[h.ID]; !ok || math.Abs(w-h.Score) > 1e-9*max(1, w) {
				t.Fatalf("query %q: %s scores %v, bluge %v", q, h.ID, h.Score, w)
			}
		}
		if !slices.IsSortedFunc(ours, compareHits) {
			t.Fatalf("query %q: hits not ordered", q)
		}
	}
}
