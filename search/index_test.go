package search

import (
	"errors"
	"fmt"
	"math"
	"os/exec"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newIndex(t *testing.T, opts ...Option) *Index {
	t.Helper()
	ix, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func replace(t *testing.T, ix *Index, server string, docs ...Doc) {
	t.Helper()
	if err := ix.ReplaceServer(server, docs); err != nil {
		t.Fatal(err)
	}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func search(t *testing.T, ix *Index, q string, k int) []Hit {
	t.Helper()
	hits, err := ix.Search(q, k)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestIdfIsStandard(t *testing.T) {
	// N = 100: a term in 1 document vs one in 50.
	if got, want := Idf(1, 100), math.Log(1+99.5/1.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("Idf(1, 100) = %v, want %v", got, want)
	}
	if got, want := Idf(50, 100), math.Log(2); math.Abs(got-want) > 1e-12 {
		t.Errorf("Idf(50, 100) = %v, want %v", got, want)
	}
}

// TestRareTermOutweighsCommonTerm fails with bluge v0.2.2's idf: there a term
// in 1 of 100 documents weighs log(100.3) ≈ 4.61 and one in 50 of them
// log(51.01) ≈ 3.93, a ratio of 1.17; the standard idf gives 4.21 vs 0.69,
// a ratio of 6.1.
func TestRareTermOutweighsCommonTerm(t *testing.T) {
	ix := newIndex(t)
	var docs []Doc
	for i := range 100 {
		word := "filler"
		switch {
		case i == 0:
			word = "zebra"
		case i%2 == 1:
			word = "common"
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%03d", i), Name: fmt.Sprintf("t%03d", i), Description: word})
	}
	replace(t, ix, "srv", docs...)
	hits := search(t, ix, "zebra common", 2)
	if len(hits) != 2 || hits[0].ID != "d000" {
		t.Fatalf("hits = %v, want d000 (the rare term) first", hits)
	}
	if ratio := hits[0].Score / hits[1].Score; ratio < 3 {
		t.Errorf("rare/common score ratio = %.2f, want > 3 (bluge's idf gives ≈ 1.2)", ratio)
	}
}

func TestExactMatchRanksFirst(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "github",
		Doc{ID: "mcp_github_get_file_contents", Name: "get_file_contents", Description: "Read a blob."},
		Doc{ID: "mcp_github_read_file", Name: "read_file", Description: "Get file contents: get the file contents of a file, file contents."},
		Doc{ID: "mcp_github_search", Name: "search", Description: "Grep code in repositories."},
	)
	replace(t, ix, "web",
		Doc{ID: "mcp_web_search", Name: "search", Description: "Search the web. Search anything, search everywhere."},
		Doc{ID: "mcp_web_search_news", Name: "search_news", Description: "Search search search news."},
	)
	tests := []struct {
		query string
		first []string
	}{
		{"get_file_contents", []string{"mcp_github_get_file_contents"}},
		{"Get-File-Contents", []string{"mcp_github_get_file_contents"}},
		{"getFileContents", []string{"mcp_github_get_file_contents"}},
		{"MCP_GITHUB_READ_FILE", []string{"mcp_github_read_file"}},
		{"github search", []string{"mcp_github_search"}},
		// Both tools named "search" match exactly; BM25 orders them.
		{"search", []string{"mcp_web_search", "mcp_github_search"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := search(t, ix, tt.query, 5)
			if len(hits) < len(tt.first) {
				t.Fatalf("hits = %v", hits)
			}
			if diff := cmp.Diff(tt.first, ids(hits[:len(tt.first)])); diff != "" {
				t.Errorf("first hits (-want +got):\n%s\nall: %v", diff, hits)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
		})
	}
}

func TestTiesBreakByID(t *testing.T) {
	names := []string{"m", "c", "x", "a", "q", "b", "z", "k"}
	want := []string{"a", "b", "c", "k", "m"}
	for round := range 3 {
		ix := newIndex(t)
		// Different insertion orders and batch splits must give one order.
		for i, n := range names {
			j := (i + round*3) % len(names)
			n = names[j]
			replace(t, ix, "s"+n, Doc{ID: n, Name: "tool", Description: "same words here"})
		}
		if diff := cmp.Diff(want, ids(search(t, ix, "same words", 5))); diff != "" {
			t.Errorf("round %d (-want +got):\n%s", round, diff)
		}
		if diff := cmp.Diff(want, ids(must(ix.Regex("same", 5)))); diff != "" {
			t.Errorf("regex round %d (-want +got):\n%s", round, diff)
		}
	}
}

func must(h []Hit, err error) []Hit {
	if err != nil {
		panic(err)
	}
	return h
}

func TestReplaceServerReplaces(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "a", Doc{ID: "a1", Name: "alpha_tool", Description: "old words"},
		Doc{ID: "a2", Name: "beta_tool", Description: "kept"})
	replace(t, ix, "b", Doc{ID: "b1", Name: "other", Description: "old words"})
	replace(t, ix, "a", Doc{ID: "a2", Name: "beta_tool", Description: "new words"},
		Doc{ID: "a3", Name: "gamma_tool", Description: "new words"})

	if got := ix.Len(); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
	if diff := cmp.Diff([]string{"b1"}, ids(search(t, ix, "old", 10))); diff != "" {
		t.Errorf("old (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a2", "a3"}, ids(search(t, ix, "new", 10))); diff != "" {
		t.Errorf("new (-want +got):\n%s", diff)
	}
	for _, h := range search(t, ix, "alpha_tool", 10) {
		if h.ID == "a1" {
			t.Errorf("deleted doc still found by exact name")
		}
	}
	if got := must(ix.Regex("alpha", 10)); len(got) != 0 {
		t.Errorf("deleted doc still found by regex: %v", got)
	}
	replace(t, ix, "a")
	if diff := cmp.Diff([]string{"b1"}, ids(search(t, ix, "words", 10))); diff != "" {
		t.Errorf("after removing a (-want +got):\n%s", diff)
	}
}

func TestReplaceServerRejectsBadDocs(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "a", Doc{ID: "x", Name: "x"})
	tests := []struct {
		name string
		docs []Doc
	}{
		{"empty ID", []Doc{{Name: "n"}}},
		{"duplicate ID", []Doc{{ID: "y"}, {ID: "y"}}},
		{"other server's doc", []Doc{{ID: "y", Server: "c"}}},
		{"ID owned by another server", []Doc{{ID: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ix.ReplaceServer("b", tt.docs); err == nil {
				t.Error("no error")
			}
			if ix.Len() != 1 {
				t.Errorf("Len = %d, want 1 (nothing changed)", ix.Len())
			}
		})
	}
}

// TestReplaceServerIsAtomic checks that a replacement is one batch: a search
// running meanwhile sees all the old documents or all the new ones, never a
// mix or none (as separate deletes and inserts would show).
func TestReplaceServerIsAtomic(t *testing.T) {
	ix := newIndex(t)
	gen := func(word string) []Doc {
		var docs []Doc
		for i := range 40 {
			docs = append(docs, Doc{ID: fmt.Sprintf("%s%02d", word, i), Name: fmt.Sprintf("tool%d", i), Description: word})
		}
		return docs
	}
	replace(t, ix, "s", gen("alpha")...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 30; i++ {
			word := []string{"beta", "alpha"}[i%2]
			if err := ix.ReplaceServer("s", gen(word)); err != nil {
				t.Error(err)
				return
			}
		}
		close(done)
	}()
	for searches := 0; ; searches++ {
		select {
		case <-done:
			wg.Wait()
			t.Logf("%d searches", searches)
			return
		default:
		}
		hits := search(t, ix, "alpha beta", 100)
		if len(hits) != 40 {
			t.Fatalf("search saw %d docs, want 40", len(hits))
		}
		first := hits[0].ID[:4]
		for _, h := range hits {
			if h.ID[:4] != first {
				t.Fatalf("search saw a mix of old and new docs: %v", ids(hits))
			}
		}
	}
}

func TestRegex(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "GitHub", Doc{ID: "gh_create_issue", Name: "create_issue", Description: "Open an issue.",
		Params: []Param{{Name: "repo", Description: "Repository OWNER/NAME"}}})
	replace(t, ix, "jira", Doc{ID: "jira_new", Name: "new_ticket", Description: "Create an issue in Jira."})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"ISSUE", []string{"gh_create_issue", "jira_new"}}, // name match before description match
		{"^create_", []string{"gh_create_issue"}},
		{"github", []string{"gh_create_issue"}},                  // server
		{"owner/name", []string{"gh_create_issue"}},              // parameter description
		{"jira|github", []string{"jira_new", "gh_create_issue"}}, // id match before server match
		{"nothing here", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got, err := ix.Regex(tt.pattern, 5)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, append(ids(got), []string{}...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := must(ix.Regex("issue", 1)); len(got) != 1 {
		t.Errorf("k=1 gave %d hits", len(got))
	}
}

func TestRegexErrors(t *testing.T) {
	ix := newIndex(t)
	if _, err := ix.Regex(strings.Repeat("a", MaxPatternLen), 5); err != nil {
		t.Errorf("%d-char pattern: %v", MaxPatternLen, err)
	}
	if _, err := ix.Regex(strings.Repeat("é", MaxPatternLen), 5); err != nil {
		t.Errorf("%d characters (more bytes): %v", MaxPatternLen, err)
	}
	_, err := ix.Regex(strings.Repeat("a", MaxPatternLen+1), 5)
	if !errors.Is(err, ErrPatternTooLong) {
		t.Errorf("long pattern: err = %v, want ErrPatternTooLong", err)
	}
	_, err = ix.Regex("create_(issue", 5)
	var se *syntax.Error
	if !errors.As(err, &se) {
		t.Fatalf("bad pattern: err = %v, want a *syntax.Error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "missing closing )") || !strings.Contains(msg, "`create_(issue`") {
		t.Errorf("error %q does not show the problem and the pattern", msg)
	}
}

func TestConcurrentSearchAndReplace(t *testing.T) {
	ix := newIndex(t)
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				docs := []Doc{{ID: fmt.Sprintf("w%d-%d", w, i%3), Name: "list_items", Description: fmt.Sprintf("round %d", i)}}
				if err := ix.ReplaceServer(fmt.Sprintf("srv%d", w), docs); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if _, err := ix.Search("list items round", 5); err != nil {
					t.Error(err)
				}
				if _, err := ix.Regex("items", 5); err != nil {
					t.Error(err)
				}
				ix.Len()
			}
		}()
	}
	wg.Wait()
	if got := ix.Len(); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
}

func TestClosed(t *testing.T) {
	ix, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search("x", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close: %v", err)
	}
	if err := ix.ReplaceServer("s", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("ReplaceServer after Close: %v", err)
	}
}

func TestNoQueryTerms(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "s", Doc{ID: "a", Name: "a_tool"})
	for _, q := range []string{"", "the of and", "!!!"} {
		if got := search(t, ix, q, 5); len(got) != 0 {
			t.Errorf("Search(%q) = %v, want none", q, got)
		}
	}
}

// TestImportDirection enforces design.md: search imports neither the host
// nor the plugin contract.
func TestImportDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("SKIP: this source-tree check runs `go list`, and no go command is in PATH (%v); a run on a system with Go covers it", err)
	}
	out, err := exec.Command("go", "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/plughost/plughost/host", "github.com/plughost/plughost/pluginapi"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("search depends on %s", dep)
			}
		}
	}
}

func TestReplaceServers(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "a", Doc{ID: "a-old", Name: "old"})
	err := ix.ReplaceServers(map[string][]Doc{
		"a": {{ID: "a1", Name: "one"}},
		"b": {{ID: "b1", Name: "one"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1", "b1"}, ids(search(t, ix, "one", 5))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := search(t, ix, "old", 5); len(got) != 0 {
		t.Errorf("old doc still there: %v", got)
	}
	if err := ix.ReplaceServers(map[string][]Doc{"c": {{ID: "x"}}, "d": {{ID: "x"}}}); err == nil {
		t.Error("an ID in two servers of one call: no error")
	}
}

// TestWithBM25 checks the option reaches the scoring: with b = 0 a field's
// length no longer matters, so a long description scores as a short one.
func TestWithBM25(t *testing.T) {
	docs := []Doc{
		{ID: "short", Name: "a", Description: "zebra"},
		{ID: "long", Name: "b", Description: "zebra " + strings.Repeat("filler ", 30)},
	}
	def := newIndex(t)
	replace(t, def, "srv", docs...)
	if hits := search(t, def, "zebra", 2); len(hits) != 2 || hits[0].ID != "short" || hits[0].Score <= hits[1].Score {
		t.Fatalf("default b: hits = %+v, want the short description first", hits)
	}
	flat := newIndex(t, WithBM25(1.2, 0))
	replace(t, flat, "srv", docs...)
	if hits := search(t, flat, "zebra", 2); len(hits) != 2 || math.Abs(hits[0].Score-hits[1].Score) > 1e-9 {
		t.Errorf("b = 0: hits = %+v, want equal scores", hits)
	}
}
