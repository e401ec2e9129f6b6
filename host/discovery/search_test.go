package discovery

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseFound reads the JSON array of a successful search answer.
func parseFound(t *testing.T, text string) []result {
	t.Helper()
	i := strings.Index(text, "\n[")
	if i < 0 {
		t.Fatalf("no JSON array in %q", text)
	}
	var out []result
	if err := json.Unmarshal([]byte(text[i+1:]), &out); err != nil {
		t.Fatalf("answer %q: %v", text, err)
	}
	return out
}

func TestSearch(t *testing.T) {
	for _, c := range []struct {
		name      string
		settings  Settings
		tool      string
		args      json.RawMessage
		wantFound []string // tools returned and unlocked
		wantErr   string   // substring of an error result
		wantText  []string // substrings of a non-error answer
	}{
		{name: "bm25 returns the hits in order", settings: on(), tool: BM25ToolName,
			args: args("query", "issue"), wantFound: []string{"mcp_github_list_issues", "mcp_github_create_issue"},
			wantText: []string{`Found 2 tools for query "issue"`, "2 turns"}},
		{name: "capped at max results", settings: on(), tool: BM25ToolName,
			args: args("query", "github"), wantFound: []string{"mcp_github_get_file", "mcp_github_create_issue", "mcp_github_list_issues"}},
		{name: "pinned and unknown hits are skipped", settings: on(), tool: BM25ToolName,
			args: args("query", "file"), wantFound: []string{"mcp_github_get_file"}},
		{name: "regex is case-insensitive over names", settings: on(), tool: RegexToolName,
			args: args("pattern", "POSTGRES"), wantFound: []string{"mcp_postgres_query", "mcp_postgres_list_tables"},
			wantText: []string{`for pattern "POSTGRES"`}},
		{name: "no match explains what to do", settings: on(), tool: BM25ToolName, args: args("query", "weather"),
			wantText: []string{`No hidden tool matches query "weather"`, "5 tools of the servers github, postgres",
				"Try again with other words", RegexToolName}},
		{name: "no match without regex does not offer it", settings: Settings{Enabled: true, TTL: 1, MaxResults: 1, UseBM25: true},
			tool: BM25ToolName, args: args("query", "weather"), wantText: []string{"Try again with other words"}},
		{name: "regex no match suggests broadening and bm25", settings: on(), tool: RegexToolName,
			args: args("pattern", "^weather$"), wantText: []string{`No hidden tool matches pattern "^weather$"`,
				"simpler or broader pattern", BM25ToolName}},
		{name: "pattern of 200 characters is fine", settings: on(), tool: RegexToolName,
			args: args("pattern", "query|"+strings.Repeat("x", 194)), wantFound: []string{"mcp_postgres_query"}},
		{name: "pattern of 201 characters is refused", settings: on(), tool: RegexToolName,
			args:    args("pattern", strings.Repeat("é", 201)),
			wantErr: "tool_search_tool_regex: pattern is 201 characters long; at most 200 are allowed"},
		{name: "bad pattern shows the parse problem", settings: on(), tool: RegexToolName, args: args("pattern", "(issue"),
			wantErr: "tool_search_tool_regex: invalid regular expression (RE2 syntax): error parsing regexp: missing closing ): `(issue`"},
		{name: "Perl lookahead is not RE2", settings: on(), tool: RegexToolName, args: args("pattern", "a(?=b)"),
			wantErr: "invalid or unsupported Perl syntax"},
		{name: "missing query", settings: on(), tool: BM25ToolName, args: json.RawMessage(`{"q":"x"}`),
			wantErr: `tool_search_tool_bm25: missing required argument "query"`},
		{name: "empty query", settings: on(), tool: BM25ToolName, args: args("query", "  "),
			wantErr: `argument "query" is empty`},
		{name: "query not a string", settings: on(), tool: BM25ToolName, args: json.RawMessage(`{"query":3}`),
			wantErr: `argument "query" must be a string`},
		{name: "arguments not an object", settings: on(), tool: BM25ToolName, args: json.RawMessage(`["x"]`),
			wantErr: "arguments must be a JSON object"},
		{name: "disabled engine", settings: Settings{Enabled: true, TTL: 1, MaxResults: 1, UseBM25: true},
			tool: RegexToolName, args: args("pattern", "x"),
			wantErr: "tool_search_tool_regex is not available; use tool_search_tool_bm25"},
		{name: "discovery off", settings: Settings{}, tool: BM25ToolName, args: args("query", "x"),
			wantErr: "tool search is off and every tool is already in your tool list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.searcher.byQ["issue"] = []string{"mcp_github_list_issues", "mcp_github_create_issue"}
			f.searcher.byQ["github"] = []string{"mcp_github_get_file", "mcp_github_create_issue", "mcp_github_list_issues"}
			f.searcher.byQ["file"] = []string{"mcp_fs_read_file", "mcp_gone_file", "mcp_github_get_file", "mcp_fs_write_file"}
			v := f.view(t, c.settings)
			text, isErr, found := v.Search(c.tool, c.args)
			st := v.Unlock(Unlocks{}, found)
			if isErr != (c.wantErr != "") || !strings.Contains(text, c.wantErr) {
				t.Fatalf("got (%q, isError %v); want error %q", text, isErr, c.wantErr)
			}
			for _, sub := range c.wantText {
				if !strings.Contains(text, sub) {
					t.Errorf("answer %q lacks %q", text, sub)
				}
			}
			if c.wantErr != "" {
				return
			}
			var got []string
			if c.wantFound != nil {
				for _, r := range parseFound(t, text) {
					got = append(got, r.Name)
				}
			}
			if diff := cmp.Diff(c.wantFound, got); diff != "" {
				t.Errorf("found (-want +got):\n%s", diff)
			}
			visible := names(v.Visible(st))
			for _, n := range c.wantFound {
				if !contains(visible, n) {
					t.Errorf("%s found but not unlocked", n)
				}
			}
			if c.wantFound == nil && len(visible) != len(pinned) {
				t.Errorf("a search without results unlocked tools: %v", visible)
			}
		})
	}
}

func TestSearchResultShape(t *testing.T) {
	f := newFixture()
	f.all[0].Description = "Create an issue <b>now</b>"
	f.all[0].InputSchema = json.RawMessage(`{"type": "object",  "required": ["title"]}`)
	f.all[1].InputSchema = nil
	f.searcher.byQ["issue"] = []string{f.all[0].Name, f.all[1].Name}
	text, isErr, _ := f.view(t, on()).Search(BM25ToolName, args("query", "issue"))
	if isErr {
		t.Fatal(text)
	}
	want := `Found 2 tools for query "issue". They are unlocked now: call them by name (they stay available for 2 turns; each use renews that).
[
{"name":"mcp_github_create_issue","server":"github","description":"Create an issue <b>now</b>","input_schema":{"type":"object","required":["title"]}},
{"name":"mcp_github_list_issues","server":"github","description":"list issues on github","input_schema":{"type":"object"}}
]`
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

func TestSearchAsksForRoomToFilter(t *testing.T) {
	f := newFixture()
	v := f.view(t, on()) // max 3; 2 of the 7 tools are pinned
	v.Search(BM25ToolName, args("query", "x"))
	if f.searcher.lastK < 3+2 {
		t.Errorf("asked the searcher for %d hits; want at least max results + pinned tools = 5", f.searcher.lastK)
	}
}

func TestSearcherFailure(t *testing.T) {
	f := newFixture()
	f.searcher.err = errors.New("index closed")
	text, isErr, _ := f.view(t, on()).Search(RegexToolName, args("pattern", "x"))
	if want := "tool_search_tool_regex: search failed: index closed"; !isErr || text != want {
		t.Errorf("got (%q, %v); want (%q, true)", text, isErr, want)
	}
}

func TestNothingHidden(t *testing.T) {
	f := newFixture()
	r, err := New(on(), Deps{Searcher: f.searcher, Deferred: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	text, isErr, _ := viewOf(r, f.all).Search(BM25ToolName, args("query", "issue"))
	if isErr || !strings.Contains(text, "No tools are hidden") {
		t.Errorf("got (%q, %v)", text, isErr)
	}
}
