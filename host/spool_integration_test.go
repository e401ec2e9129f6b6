//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// A result over max_message_mb but within max_result_mb (direct pipes) is
// spooled to an artifact while it is read: the call succeeds with a bounded
// view naming the file, which holds the whole text, and the server is not
// restarted. Over max_result_mb the call fails naming that setting.
func TestLargeResultSpooledToArtifact(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	h := startHostOpts(t, host.Options{}, map[string]any{"big": server()}, func(m map[string]any) {
		m["max_message_mb"] = 1
		m["max_result_mb"] = 8
	})
	s := h.NewSession()
	res := call(t, s, "mcp_big_big", map[string]any{"chars": 3_000_000})
	view := text(t, res)
	if res.IsError || len(view) > 20_000 {
		t.Fatalf("isError %v, view of %d chars; want a bounded view", res.IsError, len(view))
	}
	path := regexp.MustCompile(`(/\S+\.txt)`).FindString(view)
	if path == "" || !strings.Contains(path, filepath.Join(".artifacts", "mcp")) || !strings.Contains(view, "max_message_mb") {
		t.Fatalf("view names no artifact under .artifacts/mcp or not the setting: %.400q", view)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 3_000_000 || strings.Trim(string(b), "x") != "" {
		t.Errorf("artifact holds %d bytes; want the 3,000,000 x's", len(b))
	}
	if st := state(h, "big"); st.Restarts != 0 || st.State != supervisor.StateConnected {
		t.Errorf("server after a spooled result: %+v; want connected, never restarted", st)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = s.Call(ctx, "mcp_big_big", json.RawMessage(`{"chars": 9000000}`))
	for _, want := range []string{"result larger than the 8 MiB limit", "tools.mcp.max_result_mb"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a 9 MB result: error %v; want it to contain %q", err, want)
		}
	}
}
