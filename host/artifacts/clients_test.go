package artifacts

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A client's store saves under .artifacts/clients/<name> and reads only
// there; the workspace's store reads every client's files.
func TestForClient(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	s, err := NewStore(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.ForClient("a")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.ForClient("a"); again != a {
		t.Error("ForClient did not return the kept store for the same name")
	}
	fi, err := os.Stat(filepath.Join(ws, ".artifacts", "clients", "a"))
	if err != nil || !fi.IsDir() {
		t.Fatalf("client directory: %v %v", fi, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 { // a Windows directory keeps the ACL it inherits
		t.Fatalf("client directory: mode %v, want 0700", fi.Mode().Perm())
	}
	b, _ := s.ForClient("b")
	pa, err := a.Save(ctx, KindMCP, "srv", "tool", "alpha line\n")
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := b.Save(ctx, KindTool, "srv", "tool", "bravo line\n")
	pw, _ := s.Save(ctx, KindMCP, "srv", "tool", "admin line\n")
	if want := filepath.Join(ws, ".artifacts", "clients", "a", "mcp"); filepath.Dir(pa) != want {
		t.Errorf("client a saved to %s, want in %s", pa, want)
	}

	read := func(st *Store, p string) (string, error) {
		return st.ReadFile(ctx, ReadRequest{Path: p})
	}
	if got, err := read(a, pa); err != nil || !strings.Contains(got, "alpha line") {
		t.Errorf("a reads its own file: %q %v", got, err)
	}
	if got, err := read(a, filepath.Base(filepath.Dir(pa))+"/"+filepath.Base(pa)); err != nil || !strings.Contains(got, "alpha line") {
		t.Errorf("a reads its own file by a relative path: %q %v", got, err)
	}
	_, missing := read(a, filepath.Join(filepath.Dir(pa), "none.txt"))
	if missing == nil {
		t.Fatal("reading a missing file succeeded")
	}
	// The message quotes the path (%q), which doubles a Windows path's
	// backslashes.
	wantMsg := func(p string) string {
		return strings.ReplaceAll(missing.Error(), strconv.Quote(filepath.Join(filepath.Dir(pa), "none.txt")), strconv.Quote(p))
	}
	for _, p := range []string{pb, pw, filepath.Dir(pb), "/etc/passwd", filepath.Join(ws, "x"),
		filepath.Join(filepath.Dir(pb), "none.txt")} {
		if got, err := read(a, p); err == nil || err.Error() != wantMsg(p) {
			t.Errorf("a reads %s: %q %v, want %q", p, got, err, wantMsg(p))
		}
		if got, err := a.SearchFiles(ctx, SearchRequest{Pattern: "line", Path: p}); err == nil || err.Error() != wantMsg(p) {
			t.Errorf("a searches %s: %q %v, want %q", p, got, err, wantMsg(p))
		}
	}
	if got, err := a.SearchFiles(ctx, SearchRequest{Pattern: "line"}); err != nil || !strings.Contains(got, pa) ||
		strings.Contains(got, "bravo") || strings.Contains(got, "admin") {
		t.Errorf("a searches all its results: %q %v", got, err)
	}
	got, err := s.SearchFiles(ctx, SearchRequest{Pattern: "line"})
	for _, p := range []string{pa, pb, pw} {
		if err != nil || !strings.Contains(got, p) {
			t.Errorf("the workspace store's search misses %s: %q %v", p, got, err)
		}
	}
	if _, err := a.ForClient("c"); err == nil {
		t.Error("a client's store made a client store")
	}
}

func TestForClientRefusesNames(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "a b"} {
		if _, err := s.ForClient(name); err == nil {
			t.Errorf("ForClient(%q) succeeded", name)
		}
	}
}

// The workspace store's Sweep covers every client's directory and spares
// a file a client is reading.
func TestSweepCoversClients(t *testing.T) {
	ws := t.TempDir()
	s, err := NewStore(ws)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.ForClient("c")
	old, _ := c.Save(context.Background(), KindMCP, "srv", "tool", "old\n")
	reading, _ := c.Save(context.Background(), KindTool, "srv", "tool", "reading\n")
	past := time.Now().Add(-48 * time.Hour)
	for _, p := range []string{old, reading} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	f, _, release, err := c.open(reading)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer release()
	res, err := s.Sweep(Retention{MaxAge: time.Hour})
	if err != nil || res.Removed != 1 {
		t.Fatalf("Sweep: %+v %v, want 1 removed", res, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("old client file kept: %v", err)
	}
	if _, err := os.Stat(reading); err != nil {
		t.Errorf("client file being read removed: %v", err)
	}
}

// Claim moves a spooled result from the workspace's directory of MCP
// results into the client's, and nothing else.
func TestClaim(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.ForClient("c")
	spooled, _ := s.Save(context.Background(), KindMCP, "srv", "result", "big\n")
	moved, err := c.Claim(spooled)
	if err != nil || moved != filepath.Join(c.Dir(KindMCP), filepath.Base(spooled)) {
		t.Fatalf("Claim: %q %v", moved, err)
	}
	if _, err := os.Stat(spooled); !os.IsNotExist(err) {
		t.Errorf("spooled file still in the shared directory: %v", err)
	}
	if got, err := c.ReadFile(context.Background(), ReadRequest{Path: moved}); err != nil || !strings.Contains(got, "big") {
		t.Errorf("client reads its claimed file: %q %v", got, err)
	}
	other, _ := s.ForClient("d")
	tool, _ := s.Save(context.Background(), KindTool, "srv", "t", "x\n")
	for _, p := range []string{moved, tool, filepath.Join(s.Dir(KindMCP), "missing.txt"), "/etc/passwd"} {
		if _, err := other.Claim(p); err == nil {
			t.Errorf("Claim(%s) succeeded", p)
		}
	}
	if _, err := s.Claim(tool); err == nil {
		t.Error("the workspace store claimed a file")
	}
}
