package shaping

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/artifacts"
)

// benchText returns n bytes of log-like text with a few multi-byte
// characters, so character counting is exercised.
func benchText(n int) string {
	line := "2026-12-02T10:00:00Z INFO request served path=/api/items status=200 bytes=5321 user=jörg\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// BenchmarkShape runs the standard chain, artifact write to a temp dir
// included, on text results of 1, 10 and 50 MB (and a 10 MB JSON-wrapped
// one). Besides ns/op and B/op it reports peak-extra-B: the heap allocated
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
	} {
		b.Run(tc.name, func(b *testing.B) {
			store, err := artifacts.NewStore(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(tc.text)}}
			h := New(returning(res, nil), Options{MaxInlineChars: 16384, Saver: store})
			b.SetBytes(int64(len(tc.text)))
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
			b.ReportMetric(float64(peak)/float64(len(tc.text)), "x-payload")
		})
	}
}
