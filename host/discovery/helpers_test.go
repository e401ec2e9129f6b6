package discovery

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/plughost/plughost/host/registry"
)

// tool returns a test tool of server named like the registry names it.
func tool(server, name string) registry.Tool {
	return registry.Tool{
		Name: "mcp_" + server + "_" + name, Server: server, ServerTool: name,
		Description: strings.ReplaceAll(name, "_", " ") + " on " + server,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
	}
}

func names(tools []registry.Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// fakeSearcher answers Search from a table keyed by query and Regex by
// matching the pattern against tool names, best (shortest name) first.
type fakeSearcher struct {
	mu    sync.Mutex
	byQ   map[string][]string
	ids   []string
	err   error
	lastK int
}

func (f *fakeSearcher) Search(query string, k int) ([]Hit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastK = k
	if f.err != nil {
		return nil, f.err
	}
	return hitsOf(f.byQ[query], k), nil
}

func (f *fakeSearcher) Regex(pattern string, k int) ([]Hit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastK = k
	if f.err != nil {
		return nil, f.err
	}
	re := regexp.MustCompile("(?i)" + pattern) // discovery checked the pattern
	var ids []string
	for _, id := range f.ids {
		if re.MatchString(id) {
			ids = append(ids, id)
		}
	}
	sort.SliceStable(ids, func(i, j int) bool { return len(ids[i]) < len(ids[j]) })
	return hitsOf(ids, k), nil
}

func hitsOf(ids []string, k int) []Hit {
	var out []Hit
	for i, id := range ids {
		if i == k {
			break
		}
		out = append(out, Hit{ID: id, Score: float64(len(ids) - i)})
	}
	return out
}

// fixture is a host with three servers: github and postgres deferred, fs
// pinned visible.
type fixture struct {
	all      []registry.Tool
	searcher *fakeSearcher
}

func newFixture() *fixture {
	all := []registry.Tool{
		tool("github", "create_issue"), tool("github", "list_issues"), tool("github", "get_file"),
		tool("postgres", "query"), tool("postgres", "list_tables"),
		tool("fs", "read_file"), tool("fs", "write_file"),
	}
	f := &fixture{all: all, searcher: &fakeSearcher{byQ: map[string][]string{}}}
	for _, t := range all {
		f.searcher.ids = append(f.searcher.ids, t.Name)
	}
	return f
}

func (f *fixture) rules(t *testing.T, s Settings) *Rules {
	t.Helper()
	r, err := New(s, Deps{
		Searcher: f.searcher,
		Deferred: func(server string) bool { return server != "fs" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// view applies rules with settings s to the fixture's tools.
func (f *fixture) view(t *testing.T, s Settings) *View {
	t.Helper()
	return f.rules(t, s).NewView(registry.NewSnapshot(f.all), nil)
}

// viewOf applies r to tools.
func viewOf(r *Rules, tools []registry.Tool) *View {
	return r.NewView(registry.NewSnapshot(tools), nil)
}

func on() Settings {
	return Settings{Enabled: true, TTL: 2, MaxResults: 3, UseBM25: true, UseRegex: true}
}

func args(key, value string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{key: value})
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
