//go:build unix

package artifacts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSearchPatternComplexity(t *testing.T) {
	s := newStore(t)
	saved(t, s, "192.168.0.1 x", "2024-01-02")
	for _, tc := range []struct {
		pattern, wantErr string
	}{
		{`(.*){1000}x`, "repetition count of 1000 is over the limit of 100"},
		{`a{101}`, "repetition count of 101"},
		{`(.*){30}x`, "holds 30 repetitions"},
		{`((a+){10}){10}`, "holds 100 repetitions"},
		{`(?:[a-z]{100}){10}`, "compiles to"},
		{`(\d+\.){3}\d+`, ""},
		{`\d{4}-\d{2}-\d{2}`, ""},
		{`(?i)error.*timeout|failed`, ""},
		{strings.Repeat("a", MaxSearchPattern), ""},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			_, err := s.SearchFiles(context.Background(), SearchRequest{Pattern: tc.pattern})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

// A search over more than the byte limit stops at the limit and returns the
// matches of the part it read, with a note on why and how to narrow it.
func TestSearchFilesByteLimit(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	s, err := NewStore(ws, WithSearchLimits(SearchLimits{MaxBytes: 30}))
	if err != nil {
		t.Fatal(err)
	}
	first := writeArtifact(t, s, "a.txt", "match one\nmatch two\nfiller\nmatch three\n") // 37 bytes
	writeArtifact(t, s, "b.txt", "match four\n")
	got, err := s.SearchFiles(context.Background(), SearchRequest{Pattern: "match"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("2 matching lines in 1 of 2 files (showing 2):\n%s:1: match one\n%s:2: match two\n"+
		"[search stopped early: the limit of 30 B read was reached after reading 27 B; 1 of 2 files were searched "+
		"(the last one perhaps only in part), so there may be more matches. Narrow the search: pass one file or directory as path, "+
		"or use a more specific pattern]\n", first, first)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A search that reaches its time limit returns (here before reading
// anything, the limit being 1 ns) with a note instead of running on.
func TestSearchFilesTimeLimit(t *testing.T) {
	s, err := NewStore(filepath.Join(t.TempDir(), "ws"), WithSearchLimits(SearchLimits{Timeout: time.Nanosecond}))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		saved(t, s, numbered(10)...)
	}
	got, err := s.SearchFiles(context.Background(), SearchRequest{Pattern: "line"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"No line matches \"line\" in the part searched.\n", "[search stopped early: the time limit of 1ns was reached", "Narrow the search"} {
		if !strings.Contains(got, sub) {
			t.Errorf("answer lacks %q:\n%s", sub, got)
		}
	}
}

// When the caller goes away, the search stops with the caller's error.
func TestSearchFilesCallerCancels(t *testing.T) {
	s := newStore(t)
	saved(t, s, numbered(10)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := s.SearchFiles(ctx, SearchRequest{Pattern: "line"}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %q, %v; want context.Canceled", got, err)
	}
}

// Special files are refused by name, never opened: opening a FIFO with no
// writer blocks forever.
func TestSpecialFilesRefused(t *testing.T) {
	s := newStore(t)
	saved(t, s, "a regular file")
	fifo := filepath.Join(s.Dir(KindMCP), "fifo.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("SKIP: cannot create a FIFO here: %v", err)
	}
	t.Cleanup(func() { unblockFIFO(fifo) })
	sock := filepath.Join(s.Workspace(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	calls := []struct {
		name, args, want string
		wantErr          bool
	}{
		{ReadFileTool, `{"path": "` + fifo + `"}`, "is a named pipe (FIFO); only regular files", true},
		{SearchFilesTool, `{"pattern": "x", "path": "` + fifo + `"}`, "is a named pipe (FIFO)", true},
		{ReadFileTool, `{"path": "s.sock"}`, "is a socket", true},
		{ReadFileTool, `{"path": ".artifacts"}`, "is a directory", true},
		{SearchFilesTool, `{"pattern": "regular"}`, "1 matching lines in 1 of 1 files", false}, // the FIFO is skipped
	}
	for _, c := range calls {
		done := make(chan struct{})
		var got string
		var isErr bool
		go func() {
			defer close(done)
			got, isErr = s.HandleTool(context.Background(), c.name, []byte(c.args), 0)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second): // a hang, not a timing check
			unblockFIFO(fifo)
			t.Fatalf("%s %s: blocked (the FIFO was opened)", c.name, c.args)
		}
		if !strings.Contains(got, c.want) || isErr != c.wantErr {
			t.Errorf("%s %s: %v %q, want %q", c.name, c.args, isErr, got, c.want)
		}
	}
}

// unblockFIFO opens the FIFO for writing without blocking, which releases a
// reader stuck opening it.
func unblockFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// writeArtifact writes an artifact under a chosen name (search order is name
// order) and returns its path.
func writeArtifact(t *testing.T, s *Store, name, content string) string {
	t.Helper()
	if err := ensureDir(s.Dir(KindMCP)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir(KindMCP), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
