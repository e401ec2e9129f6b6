package eval

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/plughost/plughost/search"
)

// replicate returns n tools cycled from tools, each copy on its own server
// ("<server> #<copy>") so IDs stay distinct.
func replicate(tools []Tool, n int) []Tool {
	out := make([]Tool, 0, n)
	for i := 0; len(out) < n; i++ {
		t := tools[i%len(tools)]
		if c := i / len(tools); c > 0 {
			t.Server = fmt.Sprintf("%s #%d", t.Server, c)
		}
		out = append(out, t)
	}
	return out
}

var sizes = []int{2375, 25000}

// BenchmarkBuild measures indexing the catalog (one ReplaceServer per
// server) and the heap the index keeps (heap-bytes).
func BenchmarkBuild(b *testing.B) {
	d := loadBench(b)
	for _, n := range sizes {
		tools := replicate(d.tools, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			var heap float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				ix, err := BuildIndex(tools, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				ix.Close()
				b.StartTimer()
			}
			b.ReportMetric(heap, "heap-bytes")
		})
	}
}

// BenchmarkQuery measures Search latency over the benchmark's query texts
// and reports p50 and p99.
func BenchmarkQuery(b *testing.B) {
	d := loadBench(b)
	for _, n := range sizes {
		ix, err := BuildIndex(replicate(d.tools, n), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) { measureQueries(b, ix, d.single) })
		ix.Close()
	}
}

// BenchmarkRegex measures a regex scan over the whole catalog.
func BenchmarkRegex(b *testing.B) {
	d := loadBench(b)
	for _, n := range sizes {
		ix, err := BuildIndex(replicate(d.tools, n), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Regex("pull.?request", 5); err != nil {
					b.Fatal(err)
				}
			}
		})
		ix.Close()
	}
}

// BenchmarkBuildPerServer measures indexing the catalog with one
// ReplaceServer (one bluge batch) per server, as servers connect one by one.
func BenchmarkBuildPerServer(b *testing.B) {
	d := loadBench(b)
	servers, docs := DocsByServer(d.tools, nil)
	for b.Loop() {
		ix, err := search.New()
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range servers {
			if err := ix.ReplaceServer(s, docs[s]); err != nil {
				b.Fatal(err)
			}
		}
		ix.Close()
	}
}

// BenchmarkQueryFeatures measures, side by side at 25,000 tools, what the
// query-time features cost: the default weights, then each of server
// context and action synonyms off, then both.
func BenchmarkQueryFeatures(b *testing.B) {
	d := loadBench(b)
	tools := replicate(d.tools, 25000)
	variants := []struct {
		name string
		edit func(*search.Weights)
	}{
		{"default", func(*search.Weights) {}},
		{"no-server-context", func(w *search.Weights) { w.ServerContext = 0 }},
		{"no-synonyms", func(w *search.Weights) { w.Synonym = 0 }},
		{"neither", func(w *search.Weights) { w.ServerContext, w.Synonym = 0, 0 }},
	}
	for _, v := range variants {
		w := search.DefaultWeights()
		v.edit(&w)
		ix, err := BuildIndex(tools, nil, search.WithWeights(w))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) { measureQueries(b, ix, d.single) })
		ix.Close()
	}
}

// measureQueries searches the queries' texts in turn (top 5) and reports
// the latency p50 and p99.
func measureQueries(b *testing.B, ix *search.Index, queries []Query) {
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)].Query
		i++
		start := time.Now()
		if _, err := ix.Search(q, 5); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// loadVectors loads $PLUGHOST_WORDVEC or skips loudly.
func loadVectors(b *testing.B) *search.WordVectors {
	path := os.Getenv("PLUGHOST_WORDVEC")
	if path == "" {
		b.Skip("SKIPPED: PLUGHOST_WORDVEC is not set (run `make wordvec`, then PLUGHOST_WORDVEC=$PWD/bin/plughost-wordvec.bin)")
	}
	wv, err := search.LoadWordVectors(path)
	if err != nil {
		b.Fatal(err)
	}
	return wv
}

// semanticVariants are the configurations the semantic benchmarks compare
// side by side.
func semanticVariants(wv *search.WordVectors) []struct {
	name string
	opts []search.Option
} {
	def := search.DefaultSemantic()
	all := def
	all.ExpandAll = true
	return []struct {
		name string
		opts []search.Option
	}{
		{"lexical", nil},
		{"expansion-absent", []search.Option{search.WithSemantic(wv, def)}},
		{"expansion-every", []search.Option{search.WithSemantic(wv, all)}},
		{"dense", []search.Option{search.WithSemantic(wv, search.Semantic{Dense: 0.2, Depth: 30})}},
	}
}

// BenchmarkQuerySemantic measures, side by side at 25,000 tools, the
// query latency of the lexical ranking and of each semantic piece.
func BenchmarkQuerySemantic(b *testing.B) {
	d := loadBench(b)
	wv := loadVectors(b)
	tools := replicate(d.tools, 25000)
	for _, v := range semanticVariants(wv) {
		ix, err := BuildIndex(tools, nil, v.opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) { measureQueries(b, ix, d.single) })
		ix.Close()
	}
}

// BenchmarkBuildSemantic measures building the 25,000-tool index with each
// semantic piece, and its heap (heap-bytes; the word vectors themselves
// are loaded once and not counted).
func BenchmarkBuildSemantic(b *testing.B) {
	d := loadBench(b)
	wv := loadVectors(b)
	tools := replicate(d.tools, 25000)
	for _, v := range semanticVariants(wv) {
		b.Run(v.name, func(b *testing.B) {
			var heap float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				ix, err := BuildIndex(tools, nil, v.opts...)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				ix.Close()
				b.StartTimer()
			}
			b.ReportMetric(heap, "heap-bytes")
		})
	}
}
