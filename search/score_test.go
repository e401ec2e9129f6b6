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
// that ties occur, and returns queries drawn the same way and each
// document's server.
func zipfCorpus(t *testing.T, opts ...Option) (*Index, []string, map[string]string) {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 1, 400)
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%dx", z.Uint64())
		}
		return strings.Join(w, " ")
	}
	ix := newIndex(t, opts...)
	byServer := map[string][]Doc{}
	serverOf := map[string]string{}
	for i := range 1500 {
		server := fmt.Sprintf("s%d", i%40)
		d := Doc{ID: fmt.Sprintf("d%04d", i), Name: words(2), Description: words(4 + r.IntN(20)),
			Params: []Param{{Name: words(1), Description: words(6)}}}
		if i%7 == 0 && i >= 40 { // a copy of an earlier document: equal scores
			prev := byServer[server][0]
			d.Name, d.Description, d.Params = prev.Name, prev.Description, prev.Params
		}
		byServer[server] = append(byServer[server], d)
		serverOf[d.ID] = server
	}
	if err := ix.ReplaceServers(byServer); err != nil {
		t.Fatal(err)
	}
	queries := make([]string, 300)
	for i := range queries {
		queries[i] = words(3 + r.IntN(28))
	}
	return ix, queries, serverOf
}

// TestPruningIsExact checks that skipping the postings that cannot change
// the top n gives the hits (IDs, scores and order) of reading every list.
func TestPruningIsExact(t *testing.T) {
	ix, queries, _ := zipfCorpus(t)
	reader, err := ix.writer.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, q := range queries {
		terms := ix.queryTerms(splitQuery(q))
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

// blugeScores evaluates terms with bluge's own BooleanQuery of boosted
// TermQueries and returns the score of every matching document by ID.
func blugeScores(t *testing.T, reader *bluge.Reader, terms []weightedTerm) map[string]float64 {
	t.Helper()
	bq := bluge.NewBooleanQuery()
	for _, wt := range terms {
		bq.AddShould(bluge.NewTermQuery(wt.term).SetField(wt.field).SetBoost(wt.boost))
	}
	it, err := reader.Search(context.Background(), bluge.NewTopNSearch(1<<20, bq))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
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
		out[id] = m.Score
	}
	return out
}

// TestScoresMatchBluge checks the term-at-a-time scores against bluge's own
// evaluation of the same query: a tool's score is its BM25 over the tool
// fields plus its server document's BM25 (the corpus has fewer servers than
// topServers, so every matching server lends its score).
func TestScoresMatchBluge(t *testing.T) {
	for _, v := range []struct {
		serverContext float64
		expansion     bool
	}{{0, false}, {0.2, false}, {0.2, true}} {
		serverContext := v.serverContext
		w := DefaultWeights()
		w.ServerContext = serverContext
		opts := []Option{WithWeights(w)}
		if v.expansion { // the expansion's lookups are scored like any other
			opts = append(opts, WithSemantic(randomVectors(t), Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.2, ExpandAll: true}))
		}
		ix, queries, serverOf := zipfCorpus(t, opts...)
		reader, err := ix.writer.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()
		for _, q := range queries[:50] {
			terms := ix.queryTerms(splitQuery(q))
			ours, err := ix.rank(reader, terms, ix.Len(), false)
			if err != nil {
				t.Fatal(err)
			}
			var toolTerms, serverTerms []weightedTerm
			for _, wt := range terms {
				if wt.field == fieldServerCtx {
					serverTerms = append(serverTerms, wt)
				} else {
					toolTerms = append(toolTerms, wt)
				}
			}
			if (len(serverTerms) > 0) != (serverContext > 0) {
				t.Fatalf("ServerContext %v: %d server-context lookups", serverContext, len(serverTerms))
			}
			want := blugeScores(t, reader, toolTerms)
			if len(serverTerms) > 0 {
				servers := blugeScores(t, reader, serverTerms)
				for id, server := range serverOf {
					if s, ok := servers[serverDocID(server)]; ok {
						want[id] += s
					}
				}
			}
			if len(want) != len(ours) {
				t.Fatalf("ServerContext %v, query %q: bluge matched %d documents, we %d", serverContext, q, len(want), len(ours))
			}
			for _, h := range ours {
				if w, ok := want[h.ID]; !ok || math.Abs(w-h.Score) > 1e-9*max(1, w) {
					t.Fatalf("ServerContext %v, query %q: %s scores %v, bluge %v", serverContext, q, h.ID, h.Score, w)
				}
			}
			if !slices.IsSortedFunc(ours, compareHits) {
				t.Fatalf("query %q: hits not ordered", q)
			}
		}
	}
}
