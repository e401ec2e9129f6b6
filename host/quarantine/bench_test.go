package quarantine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/internal/testbin"
)

// evalServers reads the public benchmark's 2,375 tool definitions,
// grouped by server, as MCP definitions; it skips loudly without them.
func evalServers(tb testing.TB) (map[string][]json.RawMessage, int) {
	dir, err := testbin.SharedPath("PLUGHOST_EVAL_DIR", "eval")
	var raw []byte
	if err == nil {
		raw, err = os.ReadFile(filepath.Join(dir, "tools.json"))
	}
	if err != nil {
		tb.Skipf("SKIPPED: no benchmark data: %v", err)
	}
	var tools []struct {
		Server      string          `json:"server"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		tb.Fatal(err)
	}
	out := map[string][]json.RawMessage{}
	for _, t := range tools {
		def, _ := json.Marshal(map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema})
		out[t.Server] = append(out[t.Server], def)
	}
	return out, len(tools)
}

// BenchmarkPublishEvalSet is the cost tool trust adds when servers list
// their tools: every one of the benchmark's servers published, its
// definitions digested, scanned and compared with their pins (pinned by
// the first round), per tool.
func BenchmarkPublishEvalSet(b *testing.B) {
	servers, n := evalServers(b)
	for _, mode := range []string{config.TrustPin, config.TrustOff} {
		b.Run(mode, func(b *testing.B) {
			k, _ := newKeeper(trust.NewMemoryStore(), mode)
			b.ReportAllocs()
			for b.Loop() {
				for name, defs := range servers {
					fresh := append([]json.RawMessage(nil), defs...) // a new list, as after list_changed
					k.Publish(b.Context(), name, fresh)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tool")
		})
	}
}

// BenchmarkJudgeEvalSet is tool trust's own share of that cost, without
// the registry: digesting and scanning each definition and comparing it
// with its pin, per tool.
func BenchmarkJudgeEvalSet(b *testing.B) {
	servers, n := evalServers(b)
	k, _ := newKeeper(trust.NewMemoryStore(), config.TrustPin)
	states := map[string]*serverState{}
	for name := range servers {
		states[name] = &serverState{}
	}
	b.ReportAllocs()
	for b.Loop() {
		for name, defs := range servers {
			s := states[name]
			s.defs = defs
			s.tools, _ = parse(defs, nil, k.seed) // no cache: every definition new
			k.judge(b.Context(), name, s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tool")
}
