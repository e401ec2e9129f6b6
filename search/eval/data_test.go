package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/search"
)

// evalDir returns the benchmark directory: $PLUGHOST_EVAL_DIR, else
// shared/eval beside the checkout (testbin.SharedPath); it skips the test loudly when
// the data is absent.
func evalDir(tb testing.TB) string {
	dir, err := testbin.SharedPath("PLUGHOST_EVAL_DIR", "eval")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "tools.json"))
	}
	if err != nil {
		tb.Skipf("SKIPPED: no benchmark data: %v", err)
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

// BenchmarkData measures search quality on the benchmark data, for plain
// BM25 and for the index (with and without server descriptions): R@1, R@5,
// R@10 and MRR@10 over the single-tool queries, StepR@5 and All@10 over the
// multi-step ones, reported as benchmark metrics. It is a benchmark, not a
// test, because the data is a development split, to measure with, not to
// tune to: nothing about the numbers is asserted.
//
//	go test -run '^$' -bench Data -benchtime 1x ./search/eval/
func BenchmarkData(b *testing.B) {
	d := loadBench(b)
	variants := []struct {
		name    string
		servers map[string]string
		opts    []search.Option
	}{
		{"ours", nil, nil},
		{"ours+server-desc-0.1", d.servers, []search.Option{search.WithWeights(withServerDesc(0.1))}},
	}
	b.Run("plain-bm25", func(b *testing.B) { reportQuality(b, d, NewBaseline(d.tools)) })
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			ix, err := BuildIndex(d.tools, v.servers, v.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			reportQuality(b, d, ix)
		})
	}
}

// reportQuality evaluates s once per iteration and reports the metrics.
func reportQuality(b *testing.B, d benchData, s Searcher) {
	var single SingleResult
	var multi MultiResult
	for b.Loop() {
		var err error
		if single, err = EvalSingle(s, d.single); err != nil {
			b.Fatal(err)
		}
		if multi, err = EvalMulti(s, d.multi); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(single.R1, "R@1")
	b.ReportMetric(single.R5, "R@5")
	b.ReportMetric(single.R10, "R@10")
	b.ReportMetric(single.MRR10, "MRR@10")
	b.ReportMetric(multi.StepR5, "StepR@5")
	b.ReportMetric(multi.All10, "All@10")
}

func withServerDesc(w float64) search.Weights {
	ws := search.DefaultWeights()
	ws.ServerDescription = w
	return ws
}
