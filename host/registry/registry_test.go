package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

func names(s *Snapshot) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name)
	}
	return out
}

func TestRegistryNamesAreOrderIndependent(t *testing.T) {
	tools := func(n ...string) []mcp.Tool {
		var out []mcp.Tool
		for _, x := range n {
			out = append(out, mcp.NewTool(x))
		}
		return out
	}
	a, b := New(), New()
	a.SetServer("a_b", tools("c", "read"))
	a.SetServer("a", tools("b_c", "read"))
	b.SetServer("a", tools("b_c", "read"))
	b.SetServer("a_b", tools("c", "read"))
	if diff := cmp.Diff(names(a.Snapshot()), names(b.Snapshot())); diff != "" {
		t.Fatalf("names depend on connect order (-a +b):\n%s", diff)
	}
	got := names(a.Snapshot())
	if len(got) != 4 {
		t.Fatalf("want 4 distinct tools, got %v", got)
	}
	if _, ok := a.Snapshot().Lookup("mcp_a_read"); !ok {
		t.Errorf("mcp_a_read missing from %v", got)
	}
	for _, n := range got {
		if n == "mcp_a_b_c" {
			t.Errorf("colliding name %q was not disambiguated: %v", n, got)
		}
	}
}

func TestRegistryRemoveAndDuplicates(t *testing.T) {
	r := New()
	r.SetServer("s", []mcp.Tool{mcp.NewTool("x"), mcp.NewTool("x"), mcp.NewTool("y")})
	if diff := cmp.Diff([]string{"mcp_s_x", "mcp_s_y"}, names(r.Snapshot())); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	r.SetServer("s", nil)
	if r.Snapshot().Len() != 0 {
		t.Fatalf("server not removed: %v", names(r.Snapshot()))
	}
}

func TestClosest(t *testing.T) {
	r := New()
	r.SetServer("github", []mcp.Tool{mcp.NewTool("create_issue"), mcp.NewTool("list_issues"), mcp.NewTool("get_file")})
	r.SetServer("fs", []mcp.Tool{mcp.NewTool("read_file")})
	got := r.Snapshot().Closest("mcp_github_create_isue", 2)
	if len(got) != 2 || got[0] != "mcp_github_create_issue" {
		t.Fatalf("closest to a typo: got %v, want mcp_github_create_issue first of 2", got)
	}
	if got := r.Snapshot().Closest("read_file", 1); !cmp.Equal(got, []string{"mcp_fs_read_file"}) {
		t.Fatalf("closest to a bare tool name: got %v", got)
	}
}

func TestParams(t *testing.T) {
	tool := Tool{InputSchema: []byte(`{"type":"object","properties":{
		"b":{"type":"string","description":"bee"},
		"a":{"type":["number","null"]},
		"c":{"type":"integer"}},"required":["c"]}`)}
	want := []Param{
		{Name: "c", Type: "integer", Required: true},
		{Name: "a", Type: "number|null"},
		{Name: "b", Type: "string", Description: "bee"},
	}
	if diff := cmp.Diff(want, tool.Params()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if got := (Tool{InputSchema: []byte(`not json`)}).Params(); len(got) != 0 {
		t.Fatalf("unreadable schema gave %v", got)
	}
}
