package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testVectors builds a WordVectors from words and vectors through the file
// format (so the tests also cover it).
func testVectors(t *testing.T, words []string, vecs [][]float32) *WordVectors {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteWordVectors(&buf, words, vecs); err != nil {
		t.Fatal(err)
	}
	wv, err := ReadWordVectors(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return wv
}

// toyVectors: "jot", "memo" and "note" point one way, "forecast" and
// "outlook" another, the rest elsewhere.
func toyVectors(t *testing.T) *WordVectors {
	words := []string{"the", "note", "jot", "memo", "forecast", "outlook", "weather", "create", "get", "city", "banana"}
	vecs := [][]float32{
		{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0.95, 0.1, 0, 0}, {0, 0.9, 0, 0.2, 0},
		{0, 0, 1, 0, 0}, {0, 0.05, 0.9, 0, 0.1}, {0, 0, 0.5, 0.5, 0.5}, {0, 0, 0, 1, 0},
		{0, 0, 0, 0.7, 0.7}, {0, 0, 0, 0, 1}, {0.6, 0, 0, 0, -0.8},
	}
	return testVectors(t, words, vecs)
}

func TestWordVectorsFile(t *testing.T) {
	wv := toyVectors(t)
	if wv.Len() != 11 || wv.Dims() != 5 {
		t.Fatalf("Len, Dims = %d, %d", wv.Len(), wv.Dims())
	}
	if r, ok := wv.lookup("jot"); !ok || r != 2 {
		t.Errorf("lookup(jot) = %d, %v; want rank 2", r, ok)
	}
	if _, ok := wv.lookup("zebra"); ok {
		t.Error("lookup(zebra) found a word the table lacks")
	}
	// Vectors are stored as unit vectors: "note" is (0,1,0,0,0) × 127.
	if got := wv.vec(1); !slices.Equal(got, []int8{0, 127, 0, 0, 0}) {
		t.Errorf("vec(note) = %v", got)
	}

	var good bytes.Buffer
	if err := WriteWordVectors(&good, []string{"a", "b"}, [][]float32{{1, 0}, {0, 2}}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"bad header": []byte("not a word vector file at all"),
		"truncated":  good.Bytes()[:good.Len()-1],
		"trailing":   append(slices.Clone(good.Bytes()), 0),
		"empty":      nil,
	} {
		if _, err := ReadWordVectors(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := WriteWordVectors(io.Discard, []string{"a"}, [][]float32{{1}, {2}}); err == nil {
		t.Error("WriteWordVectors accepted 1 word and 2 vectors")
	}
	if err := WriteWordVectors(io.Discard, []string{"a", "b"}, [][]float32{{1, 0}, {1}}); err == nil {
		t.Error("WriteWordVectors accepted vectors of different dimensions")
	}
	if _, err := LoadWordVectors(filepath.Join(t.TempDir(), "missing.bin")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadWordVectors(missing) = %v, want a not-exist error", err)
	}
}

func TestFindWordVectors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, WordVectorsFile)
	var buf bytes.Buffer
	if err := WriteWordVectors(&buf, []string{"a"}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	nope := filepath.Join(dir, "nope.bin")
	paths := WordVectorsPaths(filepath.Join(dir, "plughost"), []string{"HOME=/x", "PLUGHOST_WORDVEC=" + nope})
	if want := []string{nope, path, filepath.Join(dir, "..", "share", "plughost", WordVectorsFile)}; !slices.Equal(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
	wv, got, err := FindWordVectors(paths)
	if err != nil || got != path || wv.Len() != 1 {
		t.Errorf("FindWordVectors = %v, %q, %v; want the file next to the binary", wv, got, err)
	}
	if wv, _, err := FindWordVectors([]string{dir + "/nope.bin"}); wv != nil || err != nil {
		t.Errorf("FindWordVectors(nothing there) = %v, %v; want nil, nil", wv, err)
	}
	if err := os.WriteFile(dir+"/bad.bin", []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FindWordVectors([]string{dir + "/bad.bin", path}); err == nil || !strings.Contains(err.Error(), "bad.bin") {
		t.Errorf("a corrupt file: err = %v, want one naming it", err)
	}
}

func noteCatalog(t *testing.T, opts ...Option) *Index {
	ix := newIndex(t, opts...)
	replace(t, ix, "notes",
		Doc{ID: "create_note", Name: "create_note", Description: "Create a note."},
		Doc{ID: "delete_city", Name: "delete_city", Description: "Remove a city."},
	)
	replace(t, ix, "meteo",
		Doc{ID: "get_forecast", Name: "get_forecast", Description: "Get the forecast for a city."},
		Doc{ID: "list_cities", Name: "list_cities", Description: "List every city."},
	)
	return ix
}

// TestExpansionBridgesVocabulary: "jot" and "outlook" are in no tool, so
// the lexical ranking cannot find create_note or get_forecast from them;
// their neighbours in the index vocabulary can.
func TestExpansionBridgesVocabulary(t *testing.T) {
	wv := toyVectors(t)
	lexical := noteCatalog(t)
	semantic := noteCatalog(t, WithSemantic(wv, Semantic{Expansion: 0.5, Neighbors: 2, MinSimilarity: 0.6}))
	for _, tt := range []struct{ query, want string }{
		{"jot", "create_note"},
		{"weather outlook", "get_forecast"},
	} {
		if hits := search(t, lexical, tt.query, 1); len(hits) > 0 && hits[0].ID == tt.want {
			t.Errorf("lexical %q found %s: the test no longer needs the vectors", tt.query, tt.want)
		}
		if hits := search(t, semantic, tt.query, 1); len(hits) != 1 || hits[0].ID != tt.want {
			t.Errorf("semantic %q = %v, want %s", tt.query, hits, tt.want)
		}
	}
	// Only the index's own vocabulary is searched: "memo" is near "jot"
	// in the table but in no tool, so it is never a lookup.
	plain, inside := splitQuery("jot banana")
	var added []string
	for _, wt := range semantic.queryTerms(plain, inside) {
		if wt.term != "jot" && wt.term != "banana" {
			added = append(added, wt.term)
		}
	}
	if !slices.Equal(added, []string{"note"}) {
		t.Errorf("expansion lookups = %q, want only the index term \"note\"", added)
	}
}

// TestExpansionOnlyAbsentTerms: by default a query term the index holds is
// not expanded; ExpandAll expands it too.
func TestExpansionOnlyAbsentTerms(t *testing.T) {
	wv := toyVectors(t)
	for _, all := range []bool{false, true} {
		ix := noteCatalog(t, WithSemantic(wv, Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.1, ExpandAll: all}))
		plain, inside := splitQuery("get")
		var added []string
		for _, wt := range ix.queryTerms(plain, inside) {
			if wt.term != "get" && !slices.Contains(actionSynonyms["get"], wt.term) {
				added = append(added, wt.term)
			}
		}
		if (len(added) > 0) != all {
			t.Errorf("ExpandAll %v: added %q", all, added)
		}
	}
}

// TestExpansionFollowsTheIndex: the vocabulary follows ReplaceServer, so
// a removed tool's words stop being expansion targets.
func TestExpansionFollowsTheIndex(t *testing.T) {
	ix := noteCatalog(t, WithSemantic(toyVectors(t), Semantic{Expansion: 0.5, Neighbors: 2, MinSimilarity: 0.6}))
	if hits := search(t, ix, "jot", 1); len(hits) != 1 {
		t.Fatalf("jot = %v", hits)
	}
	replace(t, ix, "notes", Doc{ID: "delete_city", Name: "delete_city", Description: "Remove a city."})
	if hits := search(t, ix, "jot", 5); len(hits) != 0 {
		t.Errorf("jot after create_note left = %v, want nothing", hits)
	}
	replace(t, ix, "notes", Doc{ID: "add_note", Name: "add_note", Description: "Add a note."})
	if hits := search(t, ix, "jot", 1); len(hits) != 1 || hits[0].ID != "add_note" {
		t.Errorf("jot after add_note came = %v", hits)
	}
}

// TestDenseKeepsExactName: the dense re-rank never moves an exact name
// match from the top.
func TestDenseKeepsExactName(t *testing.T) {
	ix := noteCatalog(t, WithSemantic(toyVectors(t), Semantic{Dense: 100, Depth: 10}))
	if hits := search(t, ix, "list cities", 3); len(hits) == 0 || hits[0].ID != "list_cities" {
		t.Errorf("hits = %v, want list_cities first", hits)
	}
}

// TestDenseReranksTopK: with a large Dense weight the order among the BM25
// candidates follows the vectors; a tool BM25 did not return stays out.
func TestDenseReranksTopK(t *testing.T) {
	wv := toyVectors(t)
	docs := []Doc{
		{ID: "a", Name: "alpha", Description: "city banana"},
		{ID: "b", Name: "beta", Description: "city note"},
		{ID: "c", Name: "gamma", Description: "forecast outlook weather"},
	}
	w := DefaultWeights()
	w.ServerContext = 0 // c shares no word with the queries
	lex := newIndex(t, WithWeights(w))
	replace(t, lex, "s", docs...)
	sem := newIndex(t, WithWeights(w), WithSemantic(wv, Semantic{Dense: 10, Depth: 10}))
	replace(t, sem, "s", docs...)
	// BM25 ties a and b on "city" (ordered by ID); "memo" is in neither.
	if got := ids(search(t, lex, "city memo", 3)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("lexical = %v", got)
	}
	if got := ids(search(t, sem, "city memo", 3)); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("dense = %v, want b (note ≈ memo) first and c (no query term) left out", got)
	}
}

// randomVectors gives every word of the zipf corpus ("w<n>x") a random
// vector, some words none.
func randomVectors(t *testing.T) *WordVectors {
	r := rand.New(rand.NewPCG(3, 4))
	var words []string
	var vecs [][]float32
	for i := 1; i <= 400; i++ {
		if i%9 == 0 {
			continue
		}
		v := make([]float32, 16)
		for d := range v {
			v[d] = float32(r.NormFloat64())
		}
		words = append(words, fmt.Sprintf("w%dx", i))
		vecs = append(vecs, v)
	}
	return testVectors(t, words, vecs)
}

// TestSemanticPruningIsExact: with the expansion (every term) and the
// dense re-rank, Search returns exactly the re-rank of the full BM25
// evaluation's top Depth, cut to k.
func TestSemanticPruningIsExact(t *testing.T) {
	s := Semantic{Expansion: 0.5, Neighbors: 3, MinSimilarity: 0.2, ExpandAll: true, Dense: 0.3, Depth: 20}
	ix, queries, _ := zipfCorpus(t, WithSemantic(randomVectors(t), s))
	reader, err := ix.writer.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	expanded := 0
	for _, q := range queries {
		plain, inside := splitQuery(q)
		terms := ix.queryTerms(plain, inside)
		for _, wt := range terms {
			if !slices.Contains(plain, wt.term) {
				expanded++
				break
			}
		}
		full, err := ix.rank(reader, terms, ix.Len(), false)
		if err != nil {
			t.Fatal(err)
		}
		want := ix.rerank(slices.Clone(full[:min(s.Depth, len(full))]), ix.queryVector(q, plain))
		for _, k := range []int{1, 5, 10} {
			got := search(t, ix, q, k)
			if diff := cmp.Diff(want[:min(k, len(want))], got); diff != "" {
				t.Fatalf("query %q, k=%d (-full +search):\n%s", q, k, diff)
			}
		}
	}
	if expanded < len(queries)/2 {
		t.Fatalf("only %d of %d queries were expanded: the test does not exercise the expansion", expanded, len(queries))
	}
}

// TestWithRealWordVectors checks the shipped table on the issue's
// examples; it needs `make wordvec` (PLUGHOST_WORDVEC).
func TestWithRealWordVectors(t *testing.T) {
	path := os.Getenv("PLUGHOST_WORDVEC")
	if path == "" {
		t.Skip("SKIPPED: PLUGHOST_WORDVEC is not set (make test sets it after `make wordvec`)")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("SKIPPED: no word-vector file at %s (`make wordvec` could not build it): %v", path, err)
	}
	wv, err := LoadWordVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	if wv.Len() < 50000 || wv.Dims() != 100 {
		t.Fatalf("table of %d words × %d dims, want ≥ 50,000 × 100", wv.Len(), wv.Dims())
	}
	ix := newIndex(t, WithSemantic(wv, Semantic{}))
	replace(t, ix, "weather",
		Doc{ID: "get_forecast", Name: "get_forecast", Description: "Get the weather forecast for a location."},
		Doc{ID: "get_alerts", Name: "get_alerts", Description: "Get weather alerts for a US state."},
	)
	replace(t, ix, "meetings",
		Doc{ID: "get_meeting_transcript", Name: "get_meeting_transcript", Description: "Download the transcript of a meeting."},
		Doc{ID: "list_rooms", Name: "list_rooms", Description: "List the rooms of a building."},
	)
	for _, tt := range []struct{ query, want string }{
		{"what is the outlook for Paris", "get_forecast"},
		{"text of yesterday's conference call", "get_meeting_transcript"},
	} {
		if hits := search(t, ix, tt.query, 1); len(hits) != 1 || hits[0].ID != tt.want {
			t.Errorf("%q = %v, want %s", tt.query, hits, tt.want)
		}
	}
}
