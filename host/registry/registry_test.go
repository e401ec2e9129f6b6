package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/access"
)

func names(s *Snapshot) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// defs returns minimal definitions of tools with the given names.
func defs(names ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, n := range names {
		out = append(out, json.RawMessage(fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)))
	}
	return out
}

func TestRegistryNamesAreOrderIndependent(t *testing.T) {
	a, b := New(), New()
	a.SetServer("a_b", defs("c", "read"))
	a.SetServer("a", defs("b_c", "read"))
	b.SetServer("a", defs("b_c", "read"))
	b.SetServer("a_b", defs("c", "read"))
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
	for _, tl := range a.Snapshot().Sorted() {
		var def struct{ Name string }
		if err := json.Unmarshal(tl.Definition, &def); err != nil || def.Name != tl.Name {
			t.Errorf("%s: definition %s names %q", tl.Name, tl.Definition, def.Name)
		}
	}
}

func TestRegistryRemoveAndDuplicates(t *testing.T) {
	r := New()
	r.SetServer("s", append(defs("x", "x", "y"), json.RawMessage(`{"description":"no name"}`), json.RawMessage(`[1]`)))
	if diff := cmp.Diff([]string{"mcp_s_x", "mcp_s_y"}, names(r.Snapshot())); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	r.SetServer("s", nil)
	if r.Snapshot().Len() != 0 {
		t.Fatalf("server not removed: %v", names(r.Snapshot()))
	}
}

// The same slice set twice publishes no new snapshot (a status change of a
// server that did not re-list costs nothing).
func TestRegistrySameListIsNoChange(t *testing.T) {
	r := New()
	list := defs("x", "y")
	r.SetServer("s", list)
	before := r.Snapshot()
	r.SetServer("s", list)
	if r.Snapshot() != before {
		t.Error("setting the same list again built a new snapshot")
	}
	r.SetServer("s", defs("x", "y"))
	if r.Snapshot() == before {
		t.Error("a new list did not build a new snapshot")
	}
}

// A definition reaches clients byte for byte but for its name: top-level
// schema keywords, output schema, annotations and execution are kept,
// nothing is added, and only whitespace changes when it spanned lines.
func TestDefinitionFidelity(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"everything kept",
			`{"name":"q","title":"Q","description":"d","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"patternProperties":{"^x":{}},"minProperties":1},"outputSchema":{"type":"object","title":"Out"},"execution":{"taskSupport":"required"},"_meta":{"k":1}}`,
			`{"name":"mcp_s_q","title":"Q","description":"d","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"patternProperties":{"^x":{}},"minProperties":1},"outputSchema":{"type":"object","title":"Out"},"execution":{"taskSupport":"required"},"_meta":{"k":1}}`},
		{"nothing added", `{"inputSchema":{"type":"object"},"name":"q"}`, `{"inputSchema":{"type":"object"},"name":"mcp_s_q"}`},
		{"spaces kept", `{ "name" : "q" , "inputSchema": { "type" : "object" } }`, `{ "name" : "mcp_s_q" , "inputSchema": { "type" : "object" } }`},
		{"lines compacted", "{\n  \"name\": \"q\",\n  \"description\": \"a\\nb\"\n}", `{"name":"mcp_s_q","description":"a\nb"}`},
		{"escaped name", `{"name":"\u0071"}`, `{"name":"mcp_s_q"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			r.SetServer("s", []json.RawMessage{json.RawMessage(c.in)})
			tl, ok := r.Snapshot().Lookup("mcp_s_q")
			if !ok {
				t.Fatalf("no mcp_s_q in %v", names(r.Snapshot()))
			}
			if string(tl.Definition) != c.want {
				t.Errorf("definition\n got %s\nwant %s", tl.Definition, c.want)
			}
			if strings.ContainsAny(string(tl.Definition), "\r\n") {
				t.Error("a definition spans lines")
			}
		})
	}
}

func TestHashFollowsTheDefinition(t *testing.T) {
	r := New()
	r.SetServer("s", []json.RawMessage{json.RawMessage(`{"name":"a","description":"one"}`)})
	first, _ := r.Snapshot().Lookup("mcp_s_a")
	r.SetServer("s", []json.RawMessage{json.RawMessage(`{"name":"a","description":"one"}`)})
	same, _ := r.Snapshot().Lookup("mcp_s_a")
	r.SetServer("s", []json.RawMessage{json.RawMessage(`{"name":"a","description":"two"}`)})
	other, _ := r.Snapshot().Lookup("mcp_s_a")
	if first.Hash != same.Hash || first.Hash == other.Hash {
		t.Errorf("hashes %x %x %x: want equal for equal definitions, different otherwise", first.Hash, same.Hash, other.Hash)
	}
}

// Suggestions come from the server the name points to, never another.
func TestClosest(t *testing.T) {
	r := New()
	r.SetServer("github", defs("create_issue", "list_issues", "get_file"))
	r.SetServer("fs", defs("read_file"))
	got := r.Snapshot().Closest("github", "mcp_github_create_isue", 2)
	if len(got) != 2 || got[0] != "mcp_github_create_issue" {
		t.Fatalf("closest to a typo: got %v, want mcp_github_create_issue first of 2", got)
	}
	if got := r.Snapshot().Closest("fs", "mcp_fs_read", 1); !cmp.Equal(got, []string{"mcp_fs_read_file"}) {
		t.Fatalf("closest in fs: got %v", got)
	}
	if got := r.Snapshot().Closest("github", "mcp_github_read_file", 3); cmp.Equal(got[0], "mcp_fs_read_file") || len(got) != 3 {
		t.Fatalf("closest in github suggests another server: %v", got)
	}
	if got := r.Snapshot().Closest("nowhere", "x", 3); len(got) != 0 {
		t.Fatalf("unknown server: %v", got)
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

func TestRegistryFilter(t *testing.T) {
	r := New()
	r.SetServer("s", defs("get_a", "get_b", "delete_a"))
	if !r.SetFilter("s", access.Filter{Exclude: []string{"delete_*"}}) {
		t.Fatal("a new filter must report a change")
	}
	var got []string
	for _, tool := range r.Snapshot().Tools() {
		got = append(got, tool.ServerTool)
	}
	if diff := cmp.Diff([]string{"get_a", "get_b"}, got); diff != "" {
		t.Errorf("tools after exclude (-want +got):\n%s", diff)
	}
	if _, ok := r.Snapshot().Lookup("mcp_s_delete_a"); ok {
		t.Error("an excluded tool can still be looked up")
	}
	if r.SetFilter("s", access.Filter{Exclude: []string{"delete_*"}}) {
		t.Error("the same filter again must report no change")
	}
	r.SetFilter("s", access.Filter{})
	if n := r.Snapshot().Len(); n != 3 {
		t.Errorf("after clearing the filter: %d tools, want 3", n)
	}
}

func TestQuarantinedToolsAreHeldOutOfEverything(t *testing.T) {
	r := New()
	r.SetServer("gh", defs("issues", "pulls", "search"))
	before, _ := r.Snapshot().Lookup("mcp_gh_pulls")
	if !r.SetQuarantine("gh", []string{"pulls", "ghost"}) {
		t.Fatal("SetQuarantine reported no change for a new set")
	}
	if r.SetQuarantine("gh", []string{"ghost", "pulls"}) {
		t.Error("SetQuarantine reported a change for the same set")
	}
	snap := r.Snapshot()
	if diff := cmp.Diff([]string{"mcp_gh_issues", "mcp_gh_search"}, names(snap)); diff != "" {
		t.Errorf("listed tools (-want +got):\n%s", diff)
	}
	if _, ok := snap.Lookup("mcp_gh_pulls"); ok {
		t.Error("a quarantined tool is found by Lookup")
	}
	if got := len(snap.Server("gh")); got != 2 {
		t.Errorf("Server lists %d tools, want 2", got)
	}
	held, ok := snap.Quarantined("mcp_gh_pulls")
	if !ok || held.ServerTool != "pulls" || held.Name != before.Name {
		t.Errorf("Quarantined(mcp_gh_pulls) = %+v, %v; want the tool under its unchanged name %q", held, ok, before.Name)
	}
	if _, ok := snap.Quarantined("mcp_gh_issues"); ok {
		t.Error("a listed tool is reported quarantined")
	}
	if got := snap.QuarantinedOf("gh"); len(got) != 1 || got[0].ServerTool != "pulls" {
		t.Errorf("QuarantinedOf(gh) = %+v, want only pulls", got)
	}

	r.SetFilter("gh", access.Filter{Exclude: []string{"pulls"}})
	if _, ok := r.Snapshot().Quarantined("mcp_gh_pulls"); ok {
		t.Error("a tool the filter excludes is still reported quarantined")
	}
	r.SetFilter("gh", access.Filter{})

	if !r.SetQuarantine("gh", nil) {
		t.Fatal("clearing the quarantine reported no change")
	}
	if _, ok := r.Snapshot().Lookup("mcp_gh_pulls"); !ok {
		t.Error("an approved tool is not back")
	}
	if len(r.Snapshot().QuarantinedOf("gh")) != 0 {
		t.Error("a cleared quarantine still holds tools")
	}
}
