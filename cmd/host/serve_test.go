//go:build unix

package main_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/internal/proctree"
	"github.com/plughost/plughost/internal/testwait"
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
			procs := proctree.Descendants(cmd.Process.Pid)
			t.Cleanup(func() { proctree.Kill(procs) })
			var names []string
			for _, p := range procs {
				names = append(names, p.Name)
			}
			slices.Sort(names)
			// The two stdio servers share one plugin process (direct pipes);
			// two's child is the test server again, sleeping.
			want := []string{"mcp-transport-stdio", "testserver", "testserver", "testserver"}
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
			testwait.Until(3*time.Second, func() bool { return len(proctree.Alive(procs)) == 0 })
			for _, p := range proctree.Alive(procs) {
				t.Errorf("%s still running after serve exited", p)
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
