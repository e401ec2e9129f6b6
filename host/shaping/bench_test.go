package shaping

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/callresult"
)

// benchText returns n bytes of log-like text with a few multi-byte
// characters, so character counting is exercised.
func benchText(n int) string {
	line := "2026-12-02T10:00:00Z INFO request served path=/api/items status=200 bytes=5321 user=jörg\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// discardSaver stands in for the disk, to measure the shaping alone.
type discardSaver struct{}

func (discardSaver) Save(context.Context, string, string, string, string) (string, error) {
	return "/dev/null", nil
}

// BenchmarkShape runs the standard chain on text results of 1, 10 and 50 MB
// (and 10 and 50 MB JSON-wrapped ones), with the artifact written to a temp dir
// ("disk") or discarded ("cpu", the shaping alone). Besides ns/op and B/op it reports peak-extra-B: the heap allocated
// during one call with the GC off (everything allocated stays live, so this
// is an upper bound of the peak), and its ratio to the payload, x-payload.
func BenchmarkShape(b *testing.B) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"1MB", benchText(1 << 20)},
		{"10MB", benchText(10 << 20)},
		{"50MB", benchText(50 << 20)},
		{"10MB-wrapped-json", fmt.Sprintf(`{"result":%q,"status":"ok"}`, benchText(10<<20))},
		{"50MB-wrapped-json", fmt.Sprintf(`{"result":%q,"status":"ok"}`, benchText(50<<20))},
	} {
		for _, mode := range []string{"disk", "cpu"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) { benchShape(b, tc.text, mode) })
		}
	}
}

func benchShape(b *testing.B, text, mode string) {
	var saver Saver = discardSaver{}
	if mode == "disk" {
		store, err := artifacts.NewStore(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		saver = store
	}
	res := callresult.NewTextResult(text)
	h := New(returning(res, nil), Options{MaxInlineChars: 16384, Saver: saver})
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		gc := debug.SetGCPercent(-1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := h(context.Background(), testCall); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		debug.SetGCPercent(gc)
		peak = max(peak, after.TotalAlloc-before.TotalAlloc)
	}
	b.ReportMetric(float64(peak), "peak-extra-B")
	b.ReportMetric(float64(peak)/float64(len(text)), "x-payload")
}
