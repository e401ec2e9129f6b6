package artifacts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// saved writes an artifact with the given lines and returns its path.
func saved(t *testing.T, s *Store, lines ...string) string {
	t.Helper()
	p, err := s.Save(context.Background(), KindMCP, "srv", "tool", strings.Join(lines, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

func TestReadFile(t *testing.T) {
	s := newStore(t)
	p := saved(t, s, numbered(5)...)
	long := saved(t, s, "short", strings.Repeat("é", 1500)) // 3000 bytes
	rel, _ := filepath.Rel(s.Workspace(), p)
	tests := []struct {
		name string
		req  ReadRequest
		want string
	}{
		{
			name: "whole file", req: ReadRequest{Path: p},
			want: p + ": lines 1-5 of 5\n     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n[end of file]\n",
		},
		{
			name: "a page, relative path", req: ReadRequest{Path: rel, Offset: 2, Limit: 2},
			want: p + ": lines 2-3 of 5\n     2\tline 2\n     3\tline 3\n[2 more lines: call read_file with offset=4]\n",
		},
		{name: "past the end", req: ReadRequest{Path: p, Offset: 9}, want: p + " has 5 lines; offset 9 is past the end. Use an offset from 1 to 5.\n"},
		{
			name: "budget cuts the page at a line", req: ReadRequest{Path: p, Budget: 42}, // three 14-character lines
			want: p + ": lines 1-3 of 5\n     1\tline 1\n     2\tline 2\n     3\tline 3\n[page cut to stay within the output budget; 2 more lines: call read_file with offset=4]\n",
		},
		{
			name: "long line cut without splitting a character", req: ReadRequest{Path: long, Offset: 2},
			want: long + ": lines 2-2 of 2\n     2\t" + strings.Repeat("é", 1000) + "… [line cut: 1000 more bytes]\n[end of file]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadFile(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFileLimits(t *testing.T) {
	s := newStore(t)
	p := saved(t, s, numbered(MaxReadLimit+10)...)
	got, err := s.ReadFile(context.Background(), ReadRequest{Path: p, Limit: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, fmt.Sprintf("%s: lines 1-%d of %d\n", p, MaxReadLimit, MaxReadLimit+10)) {
		t.Errorf("limit not capped: %.80q", got)
	}
	if _, err := s.ReadFile(context.Background(), ReadRequest{Path: p, Offset: -1}); err == nil {
		t.Errorf("negative offset accepted")
	}
}

// TestPathEscapes checks that read_file and search_files stay inside the
// workspace whatever path they are given.
func TestPathEscapes(t *testing.T) {
	s := newStore(t)
	saved(t, s, "inside")
	outside := filepath.Join(filepath.Dir(s.Workspace()), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOP SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"link-file": outside, "link-dir": filepath.Dir(outside), "link-abs": "/etc/passwd"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(s.Workspace(), name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{
		"../secret.txt", ".artifacts/../../secret.txt", filepath.Join(s.Workspace(), "..", "secret.txt"),
		outside, "/etc/passwd", "link-file", "link-dir/secret.txt", "link-abs", "",
	} {
		t.Run("read_file "+p, func(t *testing.T) {
			got, isErr := s.HandleTool(context.Background(), ReadFileTool, mustJSON(t, map[string]any{"path": p}), 0)
			if !isErr || strings.Contains(got, "TOP SECRET") || strings.Contains(got, "root:") {
				t.Errorf("escape not refused: %v %q", isErr, got)
			}
		})
		t.Run("search_files "+p, func(t *testing.T) {
			if p == "" {
				return // "" means the artifacts dir
			}
			got, isErr := s.HandleTool(context.Background(), SearchFilesTool, mustJSON(t, map[string]any{"pattern": "SECRET|root", "path": p}), 0)
			if strings.Contains(got, "TOP SECRET") || strings.Contains(got, "root:") || (!isErr && !strings.HasPrefix(got, "No line matches")) {
				t.Errorf("escape not refused: %v %q", isErr, got)
			}
		})
	}
	// A symlink planted among the artifacts is not followed by a search.
	if err := os.Symlink(outside, filepath.Join(s.Dir(KindMCP), "planted.txt")); err != nil {
		t.Fatal(err)
	}
	got, isErr := s.HandleTool(context.Background(), SearchFilesTool, mustJSON(t, map[string]any{"pattern": "SECRET"}), 0)
	if isErr || strings.Contains(got, "TOP SECRET") {
		t.Errorf("search followed a planted symlink: %v %q", isErr, got)
	}
}

func TestSearchFiles(t *testing.T) {
	s := newStore(t)
	disk := saved(t, s, "alpha", "error: disk full", "beta", "ERROR again")
	other := saved(t, s, "no match here", "another error: timeout")
	a, b := min(disk, other), max(disk, other) // search order is path order
	if got, _ := s.SearchFiles(context.Background(), SearchRequest{Pattern: "zebra"}); got != "No line matches \"zebra\" in 2 files.\n" {
		t.Errorf("no match: %q", got)
	}
	one, _ := s.SearchFiles(context.Background(), SearchRequest{Pattern: "(?i)^error", Path: disk})
	if want := fmt.Sprintf("2 matching lines in 1 of 1 files (showing 2):\n%s:2: error: disk full\n%s:4: ERROR again\n", disk, disk); one != want {
		t.Errorf("one file:\n%s\nwant\n%s", one, want)
	}
	got, _ := s.SearchFiles(context.Background(), SearchRequest{Pattern: "error"})
	var wantLines []string
	for _, f := range []string{a, b} {
		content, _ := os.ReadFile(f)
		for i, l := range strings.Split(strings.TrimSuffix(string(content), "\n"), "\n") {
			if strings.Contains(l, "error") {
				wantLines = append(wantLines, fmt.Sprintf("%s:%d: %s", f, i+1, l))
			}
		}
	}
	want := fmt.Sprintf("2 matching lines in 2 of 2 files (showing 2):\n%s\n", strings.Join(wantLines, "\n"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	capped, _ := s.SearchFiles(context.Background(), SearchRequest{Pattern: "e", MaxResults: 1})
	if !strings.HasPrefix(capped, "4 matching lines in 2 of 2 files (showing 1):\n") ||
		!strings.HasSuffix(capped, "[3 more matching lines not shown: narrow the pattern or the path, or page a file with read_file]\n") {
		t.Errorf("capped search:\n%s", capped)
	}
	for _, bad := range []SearchRequest{{Pattern: "("}, {Pattern: ""}, {Pattern: strings.Repeat("a", MaxSearchPattern+1)}, {Pattern: "a", MaxResults: -1}} {
		if _, err := s.SearchFiles(context.Background(), bad); err == nil {
			t.Errorf("bad request %+v accepted", bad)
		}
	}
}

func TestSearchFilesEmptyWorkspace(t *testing.T) {
	s := newStore(t)
	got, err := s.SearchFiles(context.Background(), SearchRequest{Pattern: "x"})
	if err != nil || got != "No line matches \"x\" in 0 files.\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestHandleToolArguments(t *testing.T) {
	s := newStore(t)
	for _, tc := range []struct{ name, args, wantSub string }{
		{ReadFileTool, `{"path": 5}`, "invalid arguments"},
		{ReadFileTool, `{"file": "x"}`, `unknown field "file"`},
		{SearchFilesTool, `{"pattern": "[z"}`, "invalid regular expression"},
		{"other", `{}`, "unknown paging tool"},
	} {
		got, isErr := s.HandleTool(context.Background(), tc.name, []byte(tc.args), 0)
		if !isErr || !strings.Contains(got, tc.wantSub) {
			t.Errorf("%s %s: %v %q, want error with %q", tc.name, tc.args, isErr, got, tc.wantSub)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
