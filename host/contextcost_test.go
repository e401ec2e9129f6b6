//go:build unix

package host_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host"
)

// The cost is that of what a new session lists: with discovery off every
// tool plus read_file and search_files; with it on only the search tools
// and the paging tools.
func TestCatalogContextCosts(t *testing.T) {
	tool := func(name string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","description":"does ` + name + `","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)
	}
	rows, err := host.CatalogContextCosts(t.Context(), map[string][]json.RawMessage{
		"gh": {tool("create_issue"), tool("list_issues")},
		"fs": {tool("read")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var setups []string
	var tools []int
	for _, r := range rows {
		setups, tools = append(setups, r.Setup), append(tools, r.Tools)
		if r.Bytes <= 0 || r.Tokens != (r.Bytes+3)/4 {
			t.Errorf("%s: %d bytes, %d tokens", r.Setup, r.Bytes, r.Tokens)
		}
	}
	want := []string{"discovery off (every tool)", "discovery on, bm25", "discovery on, bm25 + regex"}
	if diff := cmp.Diff(want, setups); diff != "" {
		t.Errorf("setups (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3 + 2, 1 + 2, 2 + 2}, tools); diff != "" {
		t.Errorf("tool counts (-want +got):\n%s", diff)
	}
	if rows[2].Bytes <= rows[1].Bytes {
		t.Errorf("bm25 + regex (%d bytes) costs no more than bm25 alone (%d)", rows[2].Bytes, rows[1].Bytes)
	}
}
