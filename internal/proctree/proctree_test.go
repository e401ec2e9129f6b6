//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestDescendantsAndAlive(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var ds []Proc
	for range 200 { // the shell forks its child at once; wait for it
		if ds = Descendants(os.Getpid()); len(ds) == 2 {
			break
		}
		exec.Command("true").Run()
	}
	if len(ds) != 2 || ds[0].Name != "sh" || ds[1].Name != "sleep" || ds[1].PPID != cmd.Process.Pid {
		t.Fatalf("descendants %v; want sh and its sleep", ds)
	}
	Kill(ds[1:])
	cmd.Wait()
	if alive := Alive(ds); len(alive) != 0 {
		t.Errorf("still alive after kill: %v", alive)
	}
	if FDs(os.Getpid()) < 3 || RSS(os.Getpid()) <= 0 {
		t.Errorf("fds %d, rss %d", FDs(os.Getpid()), RSS(os.Getpid()))
	}
}

// CPU counts this process's own work: it grows while the process spins.
func TestCPUCountsWork(t *testing.T) {
	before := CPU(os.Getpid())
	if before < 0 {
		t.Fatal("no CPU time for this process")
	}
	deadline := time.Now().Add(2 * time.Second)
	for CPU(os.Getpid()) < before+50*time.Millisecond && time.Now().Before(deadline) {
		for i := 0; i < 1_000_000; i++ {
			_ = i * i
		}
	}
	if after := CPU(os.Getpid()); after < before+50*time.Millisecond {
		t.Errorf("CPU went from %v to %v over 2 s of spinning", before, after)
	}
	if got := CPU(1 << 30); got != -1 {
		t.Errorf("CPU of a pid no process has: %v, want -1", got)
	}
}

// PSS is at most RSS (shared pages count only in part) and above zero for
// a live process; a pid no process has reads -1.
func TestPSSWithinRSS(t *testing.T) {
	pss, rss := PSS(os.Getpid()), RSS(os.Getpid())
	if pss <= 0 || pss > rss+64<<10 { // RSS and PSS are read a moment apart
		t.Errorf("pss %d, rss %d: want 0 < pss <= rss", pss, rss)
	}
	if got := PSS(1 << 30); got != -1 {
		t.Errorf("PSS of a pid no process has: %d, want -1", got)
	}
}

// WriteCalls counts this process's write system calls: a write adds one;
// a pid no process has gives -1.
func TestWriteCallsCountWrites(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := WriteCalls(os.Getpid())
	for range 10 {
		if _, err := f.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if after := WriteCalls(os.Getpid()); before < 0 || after-before < 10 {
		t.Errorf("write calls %d → %d around 10 writes", before, after)
	}
	if got := WriteCalls(1 << 30); got != -1 {
		t.Errorf("WriteCalls of a pid no process has: %d, want -1", got)
	}
}
