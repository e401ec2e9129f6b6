package search

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server whose
// vectors count a few topic words: texts about the same topic point the
// same way. It records the inputs it was asked for.
type fakeEmbeddings struct {
	mu     sync.Mutex
	inputs []string
	calls  atomic.Int64
	fail   atomic.Bool
	auth   atomic.Value // last Authorization header
}

var fakeTopics = [][]string{{"weather", "forecast", "outlook", "rain"}, {"note", "memo", "jot"}, {"city", "town"}}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.auth.Store(r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if f.fail.Load() {
		http.Error(w, "model is loading", http.StatusServiceUnavailable)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "toy" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, req.Input...)
	f.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- { // out of order: the index counts
		v := make([]float32, len(fakeTopics)+1)
		v[len(fakeTopics)] = 0.01
		low := strings.ToLower(req.Input[i])
		for t, words := range fakeTopics {
			for _, w := range words {
				v[t] += float32(strings.Count(low, w))
			}
		}
		data = append(data, item{i, v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (f *fakeEmbeddings) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inputs)
}

func TestEmbedderEndpoint(t *testing.T) {
	fake := &fakeEmbeddings{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var errs []error
	var errMu sync.Mutex
	w := DefaultWeights()
	w.ServerContext = 0
	ix := newIndex(t, WithWeights(w), WithEmbedder(
		&OpenAIEmbedder{BaseURL: srv.URL + "/v1/", Model: "toy", APIKey: "sk-test"},
		Semantic{Dense: 5, Depth: 10},
		EmbedderOptions{Timeout: 5 * time.Second, OnError: func(err error) {
			errMu.Lock()
			errs = append(errs, err)
			errMu.Unlock()
		}},
	))
	docs := []Doc{
		{ID: "a", Name: "city_info", Description: "Facts about a city."},
		{ID: "b", Name: "city_weather", Description: "Rain and forecast for a city."},
	}
	replace(t, ix, "s", docs...)
	if got := len(fake.asked()); got != 2 {
		t.Fatalf("embedded %d texts for 2 tools", got)
	}
	if got := fake.auth.Load(); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	// "outlook" is in no tool: BM25 ties a and b on "city" (a first by ID);
	// the endpoint's vectors put the weather tool first.
	if got := ids(search(t, ix, "city outlook", 2)); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("hits = %v, want b first", got)
	}
	// Re-indexing unchanged tools costs no embedding; a changed one is
	// embedded again.
	before := len(fake.asked())
	replace(t, ix, "s", docs...)
	if got := len(fake.asked()) - before; got != 0 {
		t.Errorf("re-indexing unchanged tools embedded %d texts", got)
	}
	docs[0].Description = "Facts about a town."
	replace(t, ix, "s", docs...)
	if got := len(fake.asked()) - before; got != 1 {
		t.Errorf("re-indexing one changed tool embedded %d texts, want 1", got)
	}

	docs[0].Description = "Facts about a city."
	replace(t, ix, "s", docs...)
	if got := len(fake.asked()) - before; got != 1 {
		t.Errorf("restoring a definition seen before embedded %d more texts, want none", got-1)
	}

	// The endpoint failing leaves the search lexical and is reported.
	fake.fail.Store(true)
	if got := ids(search(t, ix, "city outlook", 2)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("with the endpoint down, hits = %v, want the BM25 order", got)
	}
	errMu.Lock()
	defer errMu.Unlock()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "HTTP 503") || !strings.Contains(errs[0].Error(), "model is loading") {
		t.Errorf("errors = %v, want one HTTP 503 naming the answer", errs)
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	answers := map[string]string{
		"/count/embeddings":   `{"data":[{"index":0,"embedding":[1,0]}]}`,
		"/index/embeddings":   `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`,
		"/garbage/embeddings": `<html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(answers[r.URL.Path]))
	}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/count":   "1 embeddings for 2 inputs",
		"/index":   "bad or repeated index 0",
		"/garbage": "not an embeddings list",
	} {
		e := &OpenAIEmbedder{BaseURL: srv.URL + path, Model: "m"}
		if _, err := e.Embed(context.Background(), []string{"x", "y"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", path, err, want)
		}
	}
	// Secrets in the URL stay out of errors.
	e := &OpenAIEmbedder{BaseURL: "http://user:hunter2@127.0.0.1:1/v1?key=hunter2", Model: "m"}
	_, err := e.Embed(context.Background(), []string{"x"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v: want an error without the URL's secrets", err)
	}
	// Vectors of different dimensions or zero vectors are refused.
	c := &embedCache{e: embedFunc(func(context.Context, []string) ([][]float32, error) {
		return [][]float32{{1, 0}, {1}}, nil
	}), opts: EmbedderOptions{Timeout: time.Second}}
	if _, err := c.embed([]string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("mixed dimensions: err = %v", err)
	}
}

type embedFunc func(context.Context, []string) ([][]float32, error)

func (f embedFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}
