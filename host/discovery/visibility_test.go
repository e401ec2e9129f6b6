package discovery

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/registry"
)

// TestDeferredTruthTable is the spec's table: a per-server "deferred" takes
// effect only with discovery on; omitted, the global default applies.
func TestDeferredTruthTable(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name        string
		discovery   bool
		override    *bool
		wantVisible bool
	}{
		{"off, omitted", false, nil, true},
		{"off, deferred true is ignored", false, &yes, true},
		{"off, deferred false", false, &no, true},
		{"on, omitted follows global", true, nil, false},
		{"on, deferred true", true, &yes, false},
		{"on, deferred false pins visible", true, &no, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			servers := map[string]config.Server{"srv": {Enabled: true, DeferredOverride: c.override}}
			s := Settings{Enabled: c.discovery, TTL: 5, MaxResults: 5, UseBM25: true}
			r, err := New(s, Deps{Searcher: &fakeSearcher{}, Deferred: DeferredFunc(servers, c.discovery)})
			if err != nil {
				t.Fatal(err)
			}
			all := []registry.Tool{tool("srv", "do")}
			got := len(viewOf(r, all).Visible(Unlocks{})) == 1
			if got != c.wantVisible {
				t.Errorf("visible = %v; want %v", got, c.wantVisible)
			}
		})
	}
}

// specConfig loads a spec example on top of the embedded defaults.
func specConfig(t *testing.T, example string) config.MCP {
	t.Helper()
	cfg, err := config.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(example), cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.MCP
}

const exampleGitHubPostgresSlack = `{"tools": {"mcp": {"enabled": true,
  "discovery": {"enabled": true, "ttl": 5, "max_search_results": 5, "use_bm25": true, "use_regex": false},
  "servers": {
    "github": {"enabled": true, "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
    "postgres": {"enabled": true, "command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"]},
    "slack": {"enabled": true, "type": "slack", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-slack"]}}}}}`

const examplePinned = `{"tools": {"mcp": {"enabled": true,
  "discovery": {"enabled": %s, "ttl": 5, "max_search_results": 5, "use_bm25": true},
  "servers": {
    "filesystem": {"enabled": true, "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/workspace"], "deferred": false},
    "context7": {"enabled": true, "command": "npx", "args": ["-y", "@upstash/context7-mcp"]},
    "aws": {"enabled": true, "command": "npx", "args": ["-y", "aws-mcp-server"], "deferred": true}}}}}`

func TestSpecExamples(t *testing.T) {
	for _, c := range []struct {
		name            string
		example         string
		tools           []registry.Tool
		wantVisible     []string
		wantSearchTools []string
	}{
		{
			name:    "discovery on: only the search tool",
			example: exampleGitHubPostgresSlack,
			tools: []registry.Tool{tool("github", "create_issue"), tool("postgres", "query"),
				tool("slack", "post_message")},
			wantVisible:     []string{},
			wantSearchTools: []string{BM25ToolName},
		},
		{
			name:    "discovery on: filesystem pinned, context7 and aws deferred",
			example: sprintf(examplePinned, "true"),
			tools: []registry.Tool{tool("aws", "s3_list"), tool("context7", "get_docs"),
				tool("filesystem", "read_file"), tool("filesystem", "list_dir")},
			wantVisible:     []string{"mcp_filesystem_list_dir", "mcp_filesystem_read_file"},
			wantSearchTools: []string{BM25ToolName},
		},
		{
			name:    "discovery off: deferred true ignored, no search tools",
			example: sprintf(examplePinned, "false"),
			tools: []registry.Tool{tool("aws", "s3_list"), tool("context7", "get_docs"),
				tool("filesystem", "read_file")},
			wantVisible:     []string{"mcp_aws_s3_list", "mcp_context7_get_docs", "mcp_filesystem_read_file"},
			wantSearchTools: nil,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := specConfig(t, c.example)
			s, err := FromConfig(m.Discovery)
			if err != nil {
				t.Fatal(err)
			}
			r, err := New(s, Deps{Searcher: &fakeSearcher{}, Deferred: DeferredFunc(m.Servers, s.Enabled)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.wantVisible, names(viewOf(r, c.tools).Visible(Unlocks{}))); diff != "" {
				t.Errorf("visible (-want +got):\n%s", diff)
			}
			var got []string
			for _, st := range r.SearchTools() {
				got = append(got, st.Name)
			}
			if diff := cmp.Diff(c.wantSearchTools, got); diff != "" {
				t.Errorf("search tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVisibleSortedStably(t *testing.T) {
	f := newFixture()
	r := f.rules(t, Settings{TTL: 1, MaxResults: 1})
	shuffled := []registry.Tool{f.all[6], f.all[0], f.all[3], f.all[5], f.all[1], f.all[4], f.all[2]}
	want := []string{"mcp_fs_read_file", "mcp_fs_write_file", "mcp_github_create_issue", "mcp_github_get_file",
		"mcp_github_list_issues", "mcp_postgres_list_tables", "mcp_postgres_query"}
	if diff := cmp.Diff(want, names(viewOf(r, shuffled).Visible(Unlocks{}))); diff != "" {
		t.Errorf("visible (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, names(viewOf(r, f.all).Visible(Unlocks{}))); diff != "" {
		t.Errorf("visible from another order (-want +got):\n%s", diff)
	}
	if shuffled[0].Name != "mcp_fs_write_file" {
		t.Error("Visible reordered its argument")
	}
}

func TestUnknownServerFollowsGlobalDefault(t *testing.T) {
	deferred := DeferredFunc(map[string]config.Server{}, true)
	if !deferred("nowhere") {
		t.Error("discovery on: a server missing from the config should be deferred")
	}
	if DeferredFunc(nil, false)("nowhere") {
		t.Error("discovery off: nothing is deferred")
	}
}
