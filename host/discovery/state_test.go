package discovery

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/registry"
)

const issue = "mcp_github_create_issue"

var pinned = []string{"mcp_fs_read_file", "mcp_fs_write_file"}

func withIssue() []string { return append([]string{}, pinned[0], pinned[1], issue) }

// TestTTLAgeing: a tool unlocked with TTL n is visible in the current turn
// and hidden after the n-th end of turn; a use renews the full TTL.
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
		{"a renewal of a hidden tool does not unlock it", 2, []step{
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
			v := f.view(t, Settings{Enabled: true, TTL: c.ttl, MaxResults: 5, UseBM25: true})
			var st Unlocks
			for i, s := range c.steps {
				switch s.do {
				case "unlock":
					text, isErr, found := v.Search(BM25ToolName, args("query", "issue"))
					if isErr {
						t.Fatalf("search: %s", text)
					}
					st = v.Unlock(st, found)
				case "end":
					st = v.Prune(st.NextTurn())
				case "use":
					st = st.Renew(c.ttl, issue)
				case "use-other":
					st = st.Renew(c.ttl, "mcp_fs_read_file")
				}
				if diff := cmp.Diff(s.want, names(v.Visible(st))); diff != "" {
					t.Fatalf("after step %d (%s), visible (-want +got):\n%s", i, s.do, diff)
				}
			}
		})
	}
}

// Transitions return new states: the state they started from, which other
// readers may hold, never changes.
func TestTransitionsArePure(t *testing.T) {
	f := newFixture()
	f.searcher.byQ["issue"] = []string{issue}
	v := f.view(t, on())
	start := Unlocks{}.Unlock(2, "mcp_postgres_query")
	keep := Unlocks{Unlocked: map[string]int{"mcp_postgres_query": 2}}
	aged := start.NextTurn()
	_, _, hits := v.Search(BM25ToolName, args("query", "issue"))
	found := v.Unlock(start, hits)
	query, _ := v.Lookup("mcp_postgres_query")
	used, _ := v.Use(aged, query)
	for name, c := range map[string]struct{ from, next Unlocks }{
		"search": {start, found}, "end of turn": {start, v.Prune(start.NextTurn())}, "unlock": {start, start.Unlock(5, issue)},
		"renew": {aged, aged.Renew(2, "mcp_postgres_query")}, "use": {aged, used},
		"keep": {start, start.Keep(func(string) bool { return false })}, "advance": {start, start.Advance(1)},
	} {
		if !start.Equal(keep) || aged.Unlocked["mcp_postgres_query"] != 1 {
			t.Fatalf("%s changed the state it started from: %v %v", name, start.Unlocked, aged.Unlocked)
		}
		if c.next.Equal(c.from) {
			t.Errorf("%s returned the state unchanged: %v", name, c.next.Unlocked)
		}
	}
}

func TestUse(t *testing.T) {
	for _, c := range []struct {
		name         string
		settings     Settings
		call         string
		wantUnlocked bool
		wantVisible  []string
	}{
		{"hidden tool by exact name unlocks", on(), issue, true, withIssue()},
		{"pinned tool changes nothing", on(), "mcp_fs_read_file", false, pinned},
		{"discovery off: nothing unlocked", Settings{}, issue, false,
			[]string{"mcp_fs_read_file", "mcp_fs_write_file", "mcp_github_create_issue", "mcp_github_get_file",
				"mcp_github_list_issues", "mcp_postgres_list_tables", "mcp_postgres_query"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			v := f.view(t, c.settings)
			tool, ok := v.Lookup(c.call)
			if !ok {
				t.Fatalf("no tool %s", c.call)
			}
			st, unlocked := v.Use(Unlocks{}, tool)
			if unlocked != c.wantUnlocked {
				t.Errorf("unlockedNow = %v; want %v", unlocked, c.wantUnlocked)
			}
			if diff := cmp.Diff(c.wantVisible, names(v.Visible(st))); diff != "" {
				t.Errorf("visible (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUseRefreshesAnUnlock(t *testing.T) {
	f := newFixture()
	v := f.view(t, on()) // TTL 2
	tool, _ := v.Lookup(issue)
	st, u := v.Use(Unlocks{}, tool)
	if !u {
		t.Fatal("first call did not unlock")
	}
	st = v.Prune(st.NextTurn())
	if st, u = v.Use(st, tool); u {
		t.Fatal("second call of an unlocked tool reported a new unlock")
	}
	st = v.Prune(st.NextTurn())
	if !contains(names(v.Visible(st)), issue) {
		t.Error("the second call did not refresh the TTL")
	}
	st = v.Prune(st.NextTurn())
	if contains(names(v.Visible(st)), issue) {
		t.Error("still visible two turns after its last use")
	}
}

// Advance(n) is n NextTurns.
func TestAdvance(t *testing.T) {
	st := Unlocks{}.Unlock(3, "a").Unlock(1, "b").Unlock(7, "c")
	for n := range uint64(9) {
		want := st
		for range n {
			want = want.NextTurn()
		}
		if got := st.Advance(n); !got.Equal(want) {
			t.Errorf("Advance(%d) = %v, want %v", n, got.Unlocked, want.Unlocked)
		}
	}
}

// An unlock of a tool that is gone, or no longer hidden, is pruned and
// never shows.
func TestPruneDropsToolsThatAreGone(t *testing.T) {
	f := newFixture()
	st := Unlocks{}.Unlock(5, issue, "mcp_gone_tool", "mcp_fs_read_file")
	v := f.view(t, on())
	if got := names(v.Visible(st)); !cmp.Equal(got, withIssue()) {
		t.Errorf("visible %v, want %v", got, withIssue())
	}
	if diff := cmp.Diff(map[string]int{issue: 5}, v.Prune(st).Unlocked); diff != "" {
		t.Errorf("pruned (-want +got):\n%s", diff)
	}
}

// The fingerprint changes exactly when the visible list does.
func TestFingerprint(t *testing.T) {
	f := newFixture()
	f.searcher.byQ["issue"] = []string{issue}
	v := f.view(t, on())
	empty := v.Fingerprint(Unlocks{})
	if got := v.Fingerprint(Unlocks{}.Unlock(2, "mcp_fs_read_file", "mcp_nowhere")); got != empty {
		t.Error("unlocking a pinned or unknown tool changed the fingerprint")
	}
	one := Unlocks{}.Unlock(2, issue)
	if v.Fingerprint(one) == empty {
		t.Error("an unlock did not change the fingerprint")
	}
	if v.Fingerprint(one.NextTurn()) != v.Fingerprint(one) {
		t.Error("ageing without expiry changed the fingerprint")
	}
	if v.Fingerprint(one.NextTurn().NextTurn()) != empty {
		t.Error("the list after expiry does not match the one before the unlock")
	}
	changed := append([]registry.Tool(nil), f.all...)
	changed[0].Description = "something else" // mcp_github_create_issue
	v2 := f.rules(t, on()).NewView(registry.NewSnapshot(changed), nil)
	if v2.Fingerprint(Unlocks{}) != empty {
		t.Error("a hidden tool's change altered sessions that do not see it")
	}
	if v2.Fingerprint(one) == v.Fingerprint(one) {
		t.Error("the change of an unlocked tool's definition kept the fingerprint")
	}
}

// A state survives JSON, the way a session store keeps it.
func TestStateJSON(t *testing.T) {
	st := Unlocks{}.Unlock(3, issue).Unlock(1, "mcp_postgres_query")
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Unlocks
	if err := json.Unmarshal(b, &back); err != nil || !back.Equal(st) {
		t.Fatalf("%s → %v (%v)", b, back.Unlocked, err)
	}
	if b, _ := json.Marshal(Unlocks{}); string(b) != "{}" {
		t.Errorf("empty state encodes as %s", b)
	}
}
