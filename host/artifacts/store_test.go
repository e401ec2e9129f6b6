package artifacts

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/plughost/plughost/internal/ownertest"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := NewStore(filepath.Join(t.TempDir(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSave(t *testing.T) {
	s := newStore(t)
	payload := strings.Repeat("héllo\n", 300_000) // > one write chunk
	path, err := s.Save(context.Background(), KindMCP, "my.server", "get/logs", payload)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != s.Dir(KindMCP) {
		t.Errorf("saved in %s, want %s", filepath.Dir(path), s.Dir(KindMCP))
	}
	if !regexp.MustCompile(`^my_server__get_logs-\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}\.txt$`).MatchString(filepath.Base(path)) {
		t.Errorf("name %q", filepath.Base(path))
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != payload {
		t.Fatalf("content differs (err %v)", err)
	}
	ownertest.Private(t, path)
	if runtime.GOOS != "windows" { // a Windows directory keeps the ACL it inherits
		if fi, err := os.Stat(s.Dir(KindMCP)); err != nil || fi.Mode() != 0o700|os.ModeDir {
			t.Errorf("%s: mode %v, want %v (%v)", s.Dir(KindMCP), fi.Mode(), 0o700|os.ModeDir, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(s.Dir(KindMCP), tempPrefix+"*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSaveUniqueNamesConcurrently(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	paths := make([]string, 20)
	for i := range paths {
		wg.Go(func() {
			p, err := s.Save(context.Background(), KindTool, "srv", "tool", "x")
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Fatalf("duplicate name %s", p)
		}
		seen[p] = true
	}
}

func TestSaveTightensLooseDir(t *testing.T) {
	s := newStore(t)
	if err := os.MkdirAll(s.Dir(KindMCP), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Dir(KindMCP), 0o755)
	if _, err := s.Save(context.Background(), KindMCP, "a", "b", "x"); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("SKIP the mode check: a directory's mode bits say nothing of access on Windows, where it keeps the ACL it inherits (the files in it are kept to their owner)")
	}
	if fi, _ := os.Stat(s.Dir(KindMCP)); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", fi.Mode().Perm())
	}
}

func TestSaveErrors(t *testing.T) {
	s := newStore(t)
	if err := os.MkdirAll(filepath.Dir(s.Dir(KindMCP)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Dir(KindMCP), nil, 0o600); err != nil { // a file where the dir should be
		t.Fatal(err)
	}
	if _, err := s.Save(context.Background(), KindMCP, "a", "b", "x"); err == nil || !strings.Contains(err.Error(), s.Dir(KindMCP)) {
		t.Errorf("err = %v, want one naming %s", err, s.Dir(KindMCP))
	}
	if _, err := s.Save(context.Background(), "other", "a", "b", "x"); err == nil {
		t.Errorf("unknown kind accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Save(ctx, KindTool, "a", "b", "x"); err == nil {
		t.Errorf("cancelled save succeeded")
	}
	if left, _ := os.ReadDir(s.Dir(KindTool)); len(left) != 0 {
		t.Errorf("failed save left files: %v", left)
	}
}
