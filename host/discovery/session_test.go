package discovery

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const issue = "mcp_github_create_issue"

var pinned = []string{"mcp_fs_read_file", "mcp_fs_write_file"}

func withIssue() []string { return append([]string{}, pinned[0], pinned[1], issue) }

// TestTTLAgeing: a tool unlocked with TTL n is visible in the current turn
// and hidden after the n-th EndTurn; a use renews the full TTL.
func TestTTLAgeing(t *testing.T) {
	type step struct {
		do   string // "unlock", "end", "use", "use-other"
		want []string
	}
	for _, c := range []struct {
		name  string
		ttl   int
		steps []step
	}{
		{"ttl 1 lasts the current turn", 1, []step{
			{"unlock", withIssue()}, {"end", pinned},
		}},
		{"ttl 3 lasts three turns", 3, []step{
			{"unlock", withIssue()}, {"end", withIssue()}, {"end", withIssue()}, {"end", pinned}, {"end", pinned},
		}},
		{"a use refreshes the ttl", 2, []step{
			{"unlock", withIssue()}, {"end", withIssue()}, {"use", withIssue()},
			{"end", withIssue()}, {"end", pinned},
		}},
		{"a use of a hidden tool does not unlock it", 2, []step{
			{"use", pinned}, {"end", pinned},
		}},
		{"using another tool does not refresh", 2, []step{
			{"unlock", withIssue()}, {"end", withIssue()}, {"use-other", withIssue()}, {"end", pinned},
		}},
		{"unlocking again refreshes", 2, []step{
			{"unlock", withIssue()}, {"end", withIssue()}, {"unlock", withIssue()},
			{"end", withIssue()}, {"end", pinned},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.searcher.byQ["issue"] = []string{issue}
			r := f.rules(t, Settings{Enabled: true, TTL: c.ttl, MaxResults: 5, UseBM25: true})
			s := r.NewSession()
			for i, st := range c.steps {
				switch st.do {
				case "unlock":
					if text, isErr := s.HandleSearch(BM25ToolName, args("query", "issue"), f.all); isErr {
						t.Fatalf("search: %s", text)
					}
				case "end":
					s.EndTurn()
				case "use":
					s.Used(issue)
				case "use-other":
					s.Used("mcp_fs_read_file")
				}
				if diff := cmp.Diff(st.want, names(s.Visible(f.all))); diff != "" {
					t.Fatalf("after step %d (%s), visible (-want +got):\n%s", i, st.do, diff)
				}
			}
		})
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	f := newFixture()
	f.searcher.byQ["issue"] = []string{issue}
	r := f.rules(t, on())
	a, b := r.NewSession(), r.NewSession()
	if _, isErr := a.HandleSearch(BM25ToolName, args("query", "issue"), f.all); isErr {
		t.Fatal("search failed")
	}
	if _, err := b.CallAllowed("mcp_postgres_query", f.all); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(withIssue(), names(a.Visible(f.all))); diff != "" {
		t.Errorf("session a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(pinned, "mcp_postgres_query"), names(b.Visible(f.all))); diff != "" {
		t.Errorf("session b (-want +got):\n%s", diff)
	}
	b.EndTurn()
	b.EndTurn()
	if diff := cmp.Diff(withIssue(), names(a.Visible(f.all))); diff != "" {
		t.Errorf("b's turns aged a's unlocks (-want +got):\n%s", diff)
	}
}

func TestCallAllowed(t *testing.T) {
	for _, c := range []struct {
		name         string
		settings     Settings
		call         string
		wantUnlocked bool
		wantErr      string // substring; "" means allowed
		wantVisible  []string
	}{
		{"hidden tool by exact name unlocks", on(), issue, true, "", withIssue()},
		{"pinned tool is just allowed", on(), "mcp_fs_read_file", false, "", pinned},
		{"search tool name is allowed", on(), RegexToolName, false, "", pinned},
		{"unknown name lists the closest", on(), "mcp_github_create_isue", false,
			`unknown tool "mcp_github_create_isue"; closest names: mcp_github_create_issue, mcp_github_list_issues, mcp_fs_read_file; ` +
				"or find the tool you need with tool_search_tool_bm25 or tool_search_tool_regex", pinned},
		{"disabled search tool is unknown", Settings{Enabled: true, TTL: 1, MaxResults: 1, UseBM25: true},
			RegexToolName, false, "unknown tool", pinned},
		{"discovery off: every tool allowed, nothing unlocked", Settings{}, issue, false, "",
			[]string{"mcp_fs_read_file", "mcp_fs_write_file", "mcp_github_create_issue", "mcp_github_get_file",
				"mcp_github_list_issues", "mcp_postgres_list_tables", "mcp_postgres_query"}},
		{"discovery off: unknown names suggest no search", Settings{}, "nope", false,
			`unknown tool "nope"; closest names: mcp_github_create_issue, mcp_github_list_issues, mcp_fs_read_file`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			s := f.rules(t, c.settings).NewSession()
			unlocked, err := s.CallAllowed(c.call, f.all)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err = %v; want %q", err, c.wantErr)
			}
			if c.wantErr != "" {
				var ute *UnknownToolError
				if !errors.As(err, &ute) || ute.Name != c.call {
					t.Errorf("error %T %v; want *UnknownToolError for %s", err, err, c.call)
				}
				if c.settings.Enabled == false && strings.Contains(err.Error(), "tool_search") {
					t.Errorf("discovery off, yet the error suggests a search tool: %v", err)
				}
			}
			if unlocked != c.wantUnlocked {
				t.Errorf("unlockedNow = %v; want %v", unlocked, c.wantUnlocked)
			}
			if c.wantVisible != nil {
				if diff := cmp.Diff(c.wantVisible, names(s.Visible(f.all))); diff != "" {
					t.Errorf("visible (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCallAllowedRefreshesAnUnlock(t *testing.T) {
	f := newFixture()
	s := f.rules(t, on()).NewSession() // TTL 2
	if u, err := s.CallAllowed(issue, f.all); !u || err != nil {
		t.Fatalf("first call: unlocked=%v err=%v", u, err)
	}
	s.EndTurn()
	if u, err := s.CallAllowed(issue, f.all); u || err != nil {
		t.Fatalf("second call of an unlocked tool: unlocked=%v err=%v; want false, nil", u, err)
	}
	s.EndTurn()
	if !contains(names(s.Visible(f.all)), issue) {
		t.Error("the second call did not refresh the TTL")
	}
	s.EndTurn()
	if contains(names(s.Visible(f.all)), issue) {
		t.Error("still visible two turns after its last use")
	}
}

func TestUnknownToolErrorWithoutSuggestions(t *testing.T) {
	r, err := New(Settings{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.NewSession().CallAllowed("x", nil)
	if got, want := fmt.Sprint(err), `unknown tool "x": no tool of that name exists`; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestSessionConcurrentUse(t *testing.T) {
	f := newFixture()
	f.searcher.byQ["issue"] = []string{issue, "mcp_github_list_issues"}
	s := f.rules(t, on()).NewSession()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				switch i % 4 {
				case 0:
					s.HandleSearch(BM25ToolName, args("query", "issue"), f.all)
				case 1:
					s.EndTurn()
				case 2:
					_, _ = s.CallAllowed("mcp_postgres_query", f.all)
					s.Used("mcp_postgres_query")
				default:
					s.Visible(f.all)
				}
			}
		})
	}
	wg.Wait()
}
