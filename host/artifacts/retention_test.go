package artifacts

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/internal/wine"
)

func TestSweep(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	type file struct {
		kind, name string
		size       int
		age        time.Duration
		inUse      bool
	}
	tests := []struct {
		name     string
		files    []file
		r        Retention
		wantLeft []string
		wantRes  SweepResult
	}{
		{
			name:     "older than max age removed",
			files:    []file{{KindMCP, "old", 10, 48 * time.Hour, false}, {KindTool, "old2", 10, 25 * time.Hour, false}, {KindMCP, "new", 10, time.Hour, false}},
			r:        Retention{MaxAge: 24 * time.Hour},
			wantLeft: []string{"mcp/new"},
			wantRes:  SweepResult{Removed: 2, FreedBytes: 20, KeptBytes: 10},
		},
		{
			name: "over the size budget: oldest first, across kinds",
			files: []file{{KindMCP, "a", 100, 5 * time.Hour, false}, {KindTool, "b", 100, 4 * time.Hour, false},
				{KindMCP, "c", 100, 3 * time.Hour, false}, {KindMCP, "d", 100, 2 * time.Hour, false}},
			r:        Retention{MaxAge: 24 * time.Hour, MaxTotalBytes: 250},
			wantLeft: []string{"mcp/c", "mcp/d"},
			wantRes:  SweepResult{Removed: 2, FreedBytes: 200, KeptBytes: 200},
		},
		{
			name:     "files within the grace period survive the size budget",
			files:    []file{{KindMCP, "a", 100, 2 * time.Hour, false}, {KindMCP, "b", 100, time.Minute, false}, {KindMCP, "c", 100, time.Second, false}},
			r:        Retention{MaxTotalBytes: 50, Grace: 10 * time.Minute},
			wantLeft: []string{"mcp/b", "mcp/c"},
			wantRes:  SweepResult{Removed: 1, FreedBytes: 100, KeptBytes: 200},
		},
		{
			name:     "a file in use is never removed",
			files:    []file{{KindMCP, "reading", 10, 100 * time.Hour, true}, {KindMCP, "old", 10, 100 * time.Hour, false}},
			r:        Retention{MaxAge: time.Hour, MaxTotalBytes: 1},
			wantLeft: []string{"mcp/reading"},
			wantRes:  SweepResult{Removed: 1, FreedBytes: 10, KeptBytes: 10},
		},
		{
			name:     "stale temporary files removed, fresh ones kept",
			files:    []file{{KindMCP, tempPrefix + "stale", 10, 2 * time.Hour, false}, {KindMCP, tempPrefix + "writing", 10, time.Minute, false}},
			r:        Retention{MaxAge: 100 * time.Hour},
			wantLeft: []string{"mcp/" + tempPrefix + "writing"},
			wantRes:  SweepResult{Removed: 1, FreedBytes: 10, KeptBytes: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			s.now = func() time.Time { return now }
			for _, f := range tt.files {
				dir := s.Dir(f.kind)
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, []byte(strings.Repeat("x", f.size)), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
				if f.inUse {
					defer s.acquire(p)()
				}
			}
			res, err := s.Sweep(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantRes, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLeft, left(t, s)); diff != "" {
				t.Errorf("files left (-want +got):\n%s", diff)
			}
		})
	}
}

func left(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, kind := range []string{KindMCP, KindTool} {
		des, _ := os.ReadDir(s.Dir(kind))
		for _, de := range des {
			out = append(out, kind+"/"+de.Name())
		}
	}
	slices.Sort(out)
	return out
}

func TestSweepLeavesOtherEntries(t *testing.T) {
	s := newStore(t)
	s.now = func() time.Time { return time.Now().Add(1000 * time.Hour) }
	if err := os.MkdirAll(filepath.Join(s.Dir(KindMCP), "subdir"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "keep.txt")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(s.Dir(KindMCP), "link")
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("SKIP: Windows creates symlinks only in Developer Mode or with SeCreateSymbolicLinkPrivilege: %v", err)
		}
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); err != nil && wine.Running() {
		t.Skipf("SKIP: wine 8's CreateSymbolicLinkW is a stub that reports success and creates nothing (Lstat: %v)", err)
	}
	if _, err := s.Sweep(Retention{MaxAge: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"mcp/link", "mcp/subdir"}, left(t, s)); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("symlink target removed: %v", err)
	}
}

func TestRunRetentionSweepsAtStartAndStops(t *testing.T) {
	s := newStore(t)
	p, err := s.Save(context.Background(), KindMCP, "a", "b", "x")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(p, old, old)
	ctx, cancel := context.WithCancel(context.Background())
	sweeps := make(chan SweepResult, 10)
	done := make(chan struct{})
	go func() {
		s.RunRetention(ctx, Retention{MaxAge: time.Hour}, time.Millisecond, func(r SweepResult, _ error) {
			select {
			case sweeps <- r:
			default: // never block the sweeper
			}
		})
		close(done)
	}()
	if first := <-sweeps; first.Removed != 1 {
		t.Errorf("first sweep = %+v, want the old file removed", first)
	}
	<-sweeps // a periodic sweep ran
	cancel()
	<-done
}
