package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// serve stops every plugin, server and server child on SIGTERM and SIGINT,
// and exits 0.
func TestServeShutdownLeavesNoProcess(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "serve.json")
			writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
				"one": testserver(),
				"two": testserver("-spawn-grandchild"),
			}}))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := c.command(ctx, "--config", path, "serve", "--listen", "127.0.0.1:0")
			var stdout bytes.Buffer
			stderr := &notifyBuffer{changed: make(chan struct{}, 1)}
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() { // the test fails before the signal: stop everything
				cmd.Process.Kill()
				<-exited
			}()

			connected := regexp.MustCompile(`(?m)^\S+\s+(one|two)\s+connected, `)
			stderr.waitFor(t, 30*time.Second, "both servers connected", func(s string) bool {
				return len(connected.FindAllString(s, -1)) == 2
			})
			procs := descendants(cmd.Process.Pid)
			t.Cleanup(func() { killAlive(procs) })
			var names []string
			for _, p := range procs {
				names = append(names, p.name)
			}
			slices.Sort(names)
			want := []string{"mcp-transport-stdio", "mcp-transport-stdio", "sleep", "testserver", "testserver"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Fatalf("descendants of serve (-want +got):\n%s", diff)
			}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				exited <- err // for the deferred cleanup
				if err != nil {
					t.Errorf("serve after %v: %v, want exit 0\nstderr:\n%s", sig, err, stderr)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("serve still running 15s after %v\nstderr:\n%s", sig, stderr)
			}
			wantContains(t, "stderr", stderr.String(), "plughost: shutting down")

			// The kill of a process group is asynchronous: give it a moment.
			deadline := time.Now().Add(3 * time.Second)
			for len(stillAlive(procs)) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			for _, p := range stillAlive(procs) {
				t.Errorf("%s (pid %d) still running after serve exited", p.name, p.pid)
			}
		})
	}
}

// notifyBuffer collects a process's output and signals every write.
type notifyBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (b *notifyBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return b.buf.Write(p)
}

func (b *notifyBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until cond holds for the output so far.
func (b *notifyBuffer) waitFor(t *testing.T, timeout time.Duration, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.After(timeout)
	for !cond(b.String()) {
		select {
		case <-b.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; output so far:\n%s", what, b)
		}
	}
}

// proc identifies one process; start (clock ticks after boot) tells it from a
// later process that reuses the pid.
type proc struct {
	pid, ppid int
	start     uint64
	state     byte
	name      string // base name of argv[0]
}

// readProc reads /proc/<pid>/stat and cmdline.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return proc{}, false
	}
	f := strings.Fields(s[i+2:]) // f[0] is field 3 (state), f[19] field 22 (starttime)
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	p := proc{pid: pid, ppid: ppid, start: start, state: f[0][0]}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		p.name = filepath.Base(string(argv0))
	}
	return p, true
}

// descendants returns every live descendant of root.
func descendants(root int) []proc {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		for _, p := range children[queue[0]] {
			out = append(out, p)
			queue = append(queue, p.pid)
		}
		queue = queue[1:]
	}
	return out
}

// stillAlive returns the processes of ps that still run; a zombie counts as
// dead, and so does a process that now has a different start time.
func stillAlive(ps []proc) []proc {
	var out []proc
	for _, p := range ps {
		if now, ok := readProc(p.pid); ok && now.start == p.start && now.state != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

// killAlive kills what a failed test left running.
func killAlive(ps []proc) {
	for _, p := range stillAlive(ps) {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
}
