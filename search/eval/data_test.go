package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/search"
)

// evalDir returns the benchmark directory: $PLUGHOST_EVAL_DIR, else
// ../shared/eval relative to the module root; it skips the test loudly when
// the data is absent.
func evalDir(tb testing.TB) string {
	dir := os.Getenv("PLUGHOST_EVAL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "eval") // search/eval → module root → ..
	}
	if _, err := os.Stat(filepath.Join(dir, "tools.json")); err != nil {
		tb.Skipf("SKIPPED: no benchmark data at %s (set PLUGHOST_EVAL_DIR): %v", dir, err)
	}
	return dir
}

type benchData struct {
	tools   []Tool
	servers map[string]string
	single  []Query
	multi   []MultiQuery
}

func loadBench(tb testing.TB) benchData {
	dir := evalDir(tb)
	var d benchData
	var err error
	if d.tools, err = LoadJSON[[]Tool](filepath.Join(dir, "tools.json")); err != nil {
		tb.Fatal(err)
	}
	if d.single, err = LoadJSON[[]Query](filepath.Join(dir, "queries.json")); err != nil {
		tb.Fatal(err)
	}
	if d.multi, err = LoadJSON[[]MultiQuery](filepath.Join(dir, "queries_multistep.json")); err != nil {
		tb.Fatal(err)
	}
	if servers, err := LoadJSON[[]Server](filepath.Join(dir, "servers.json")); err == nil {
		d.servers = ServerDescriptions(servers)
	}
	return d
}

// TestBenchmarkData prints the metrics of the baseline and of the index on
// the benchmark data. It asserts nothing about the numbers: the data is a
// development split, to measure with, not to tune to.
func TestBenchmarkData(t *testing.T) {
	d := loadBench(t)
	report := func(name string, s Searcher) {
		single, err := EvalSingle(s, d.single)
		if err != nil {
			t.Fatal(err)
		}
		multi, err := EvalMulti(s, d.multi)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-22s all    %s", name, fmtScores(single.Scores))
		for _, lv := range Levels(single.Levels) {
			t.Logf("%-22s level%s %s", name, lv, fmtScores(single.Levels[lv]))
		}
		js, _ := json.Marshal(multi)
		t.Logf("%-22s multi  %s", name, js)
	}
	report("plain BM25", NewBaseline(d.tools))
	variants := []struct {
		name    string
		servers map[string]string
		opts    []search.Option
	}{
		{"ours", nil, nil},
		{"ours + server desc 0.1", d.servers, []search.Option{search.WithWeights(withServerDesc(0.1))}},
	}
	for _, v := range variants {
		ix, err := BuildIndex(d.tools, v.servers, v.opts...)
		if err != nil {
			t.Fatal(err)
		}
		report(v.name, ix)
		ix.Close()
	}
}

func fmtScores(s Scores) string {
	js, _ := json.Marshal(s)
	return string(js)
}

func withServerDesc(w float64) search.Weights {
	ws := search.DefaultWeights()
	ws.ServerDescription = w
	return ws
}
