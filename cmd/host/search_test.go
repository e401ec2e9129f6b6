//go:build unix

package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/internal/fakeopenai"
)

func TestSearchCommands(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	data := func(name string) string { p, _ := filepath.Abs(filepath.Join("testdata", name)); return p }

	t.Run("eval single-tool json", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--json")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, r)
		}
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		if diff := cmp.Diff([]string{"levels", "mrr10", "n", "r1", "r10", "r5"}, sorted(keys)); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
		var res struct {
			N      int                        `json:"n"`
			R10    float64                    `json:"r10"`
			Levels map[string]json.RawMessage `json:"levels"`
		}
		json.Unmarshal([]byte(r.stdout), &res)
		if res.N != 3 || res.R10 != 1 || len(res.Levels) != 2 {
			t.Errorf("got %+v; want n=3, every query solved within 10, levels 1 and 2", res)
		}
	})

	t.Run("eval multi-step json", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_multistep.json"), "--json")
		var res struct {
			N      int     `json:"n"`
			StepR5 float64 `json:"step_r5"`
			All10  float64 `json:"all10"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.N != 1 || res.All10 != 1 {
			t.Fatalf("got %+v from %s", res, r)
		}
	})

	// The learned re-rank is research (search/research/ltr), not part of
	// the binary: --ltr says where it went instead of running it.
	t.Run("eval learned re-rank is not in plughost", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"),
			"--queries", data("eval_multistep.json"), "--ltr")
		if r.code != 2 || r.stdout != "" {
			t.Fatalf("--ltr: want exit 2 and no report, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "go run ./search/research/ltr")
		r = c.run(t, "search", "eval", "--help")
		if strings.Contains(r.stdout, "--ltr") || strings.Contains(r.stdout, "learned re-rank") {
			t.Errorf("search eval --help still offers the learned re-rank:\n%s", r.stdout)
		}
	})

	t.Run("eval misses", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--misses", "--json")
		var got map[string]struct {
			N        int `json:"n"`
			NotFirst int `json:"not_first"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
			t.Fatalf("want exit 0 and a JSON object, got %s", r)
		}
		if got["1"].N != 1 || got["2"].N != 2 || got["2"].NotFirst > got["2"].N {
			t.Errorf("got %+v; want level 1: 1 query, level 2: 2 queries", got)
		}
		r = c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--misses")
		wantContains(t, "stdout", r.stdout, "sibling first")
	})

	t.Run("eval embeddings endpoint", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int64
		srv := httptest.NewServer(fakeopenai.WordLengthEmbeddings(&calls))
		defer srv.Close()
		r := c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"),
			"--queries", data("eval_multistep.json"), "--embeddings", srv.URL+"/v1", "--ablate")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stdout", r.stdout, "+ endpoint re-rank (w 0.5, top 50)")
		if calls.Load() == 0 {
			t.Error("the endpoint was never called")
		}
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		r = c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--embeddings", down.URL+"/v1")
		if r.code != 1 || !strings.Contains(r.stderr, "--embeddings:") {
			t.Errorf("an endpoint that is down: want exit 1 naming --embeddings, got %s", r)
		}
		var answered atomic.Int64
		flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if answered.Add(1) > 1 { // the probe passes, the evaluation's calls fail
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte(`{"data":[{"index":0,"embedding":[1,0]}]}`))
		}))
		defer flaky.Close()
		r = c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--embeddings", flaky.URL+"/v1")
		if r.code != 1 || !strings.Contains(r.stderr, "the embeddings endpoint failed") || !strings.Contains(r.stderr, "503") {
			t.Errorf("an endpoint failing during the run: want exit 1 saying the figures are not the endpoint's, got %s", r)
		}
		r = c.run(t, "search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"),
			"--embeddings", srv.URL+"/v1", "--embeddings-key-env", "PLUGHOST_TEST_UNSET_KEY")
		if r.code != 2 {
			t.Errorf("an unset --embeddings-key-env: want exit 2, got %s", r)
		}
	})

	t.Run("eval usage errors", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"search", "eval", "--tools", data("eval_tools.json")},
			{"search", "eval", "--tools", data("eval_tools.json"), "--queries", data("eval_queries.json"), "--k", "3"},
		} {
			if r := c.run(t, args...); r.code != 2 {
				t.Errorf("%v: want exit 2, got %s", args, r)
			}
		}
	})

	t.Run("query and regex over the demo server", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "query", "sha256 digest of a text", "--json")
		var hits []struct {
			Tool struct{ Name string } `json:"tool"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &hits) != nil || len(hits) == 0 || hits[0].Tool.Name != "mcp_demo_hash" {
			t.Fatalf("want mcp_demo_hash first, got %s", r)
		}
		r = c.run(t, "search", "regex", "(unclosed")
		if r.code != 1 {
			t.Fatalf("bad pattern: want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "missing closing )")
	})

	t.Run("context cost", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "search", "context-cost", "--tools", data("eval_tools.json"), "--json")
		var rows []struct {
			Tools int `json:"tools"`
			Bytes int `json:"bytes"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != 3 || rows[0].Tools != 4+2 || rows[1].Tools != 1+2 || rows[1].Bytes >= rows[0].Bytes {
			t.Fatalf("got %+v from %s", rows, r)
		}
	})
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
