//go:build unix

package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/testwait"
)

// A server started with a package runner (here a stand-in npx that takes
// 3 s, as a download would, before it runs the test server) is not failed
// by a 1 s initialize timeout on its first start: its status says it is
// installing, and it connects.
func TestFirstStartOfAPackageRunner(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	dir := t.TempDir()
	npx := filepath.Join(dir, "npx")
	script := fmt.Sprintf("#!/bin/sh\nsleep 3\nexec %q \"$@\"\n", bins.Path("testserver"))
	if err := os.WriteFile(npx, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"enabled": true, "command": npx, "args": []string{}, "timeouts": map[string]any{"initialize_seconds": 1}}
	h, err := newHost(t, map[string]any{"enabled": true, "servers": map[string]any{"pkg": entry}})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	var seen string
	if !testwait.Until(10*time.Second, func() bool {
		st := state(h, "pkg")
		if st.Installing != "" {
			seen = host.StateText(st)
		}
		return st.State == supervisor.StateConnected
	}) {
		t.Fatalf("the first start did not connect: %+v", state(h, "pkg"))
	}
	if !strings.Contains(seen, "installing: the first start of a npx package") {
		t.Errorf("while starting, the status read %q; want it to say it is installing", seen)
	}
	if st := state(h, "pkg"); st.Installing != "" || st.Restarts != 0 {
		t.Errorf("connected: installing %q, %d restarts; want none", st.Installing, st.Restarts)
	}
}
