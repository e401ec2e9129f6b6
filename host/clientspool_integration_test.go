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
)

// A result spooled while it was read for a named client's call is moved to
// that client's directory: the view names the new path, the client pages
// it, another client cannot, and the administrator can.
func TestClientSpooledResult(t *testing.T) {
	integration(t)
	_, digest := host.NewClientToken()
	_, otherDigest := host.NewClientToken()
	h := startHostOpts(t, host.Options{}, map[string]any{"big": server()}, func(m map[string]any) {
		m["max_message_mb"] = 1
		m["max_result_mb"] = 8
		m["gateway"] = map[string]any{"clients": map[string]any{
			"ci":    map[string]any{"token_sha256": digest, "servers": []string{"big"}},
			"other": map[string]any{"token_sha256": otherDigest, "servers": []string{"big"}},
		}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session := func(client string) *host.Session {
		s, err := h.CreateSession(ctx, host.SessionRecord{ClientName: client})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ci, other := session("ci"), session("other")

	res := call(t, ci, "mcp_big_big", map[string]any{"chars": 3_000_000})
	view := text(t, res)
	path := regexp.MustCompile(`(/\S+\.txt)`).FindString(view)
	wantDir := filepath.Join(h.Artifacts().Workspace(), ".artifacts", "clients", "ci", "mcp")
	if res.IsError || filepath.Dir(path) != wantDir {
		t.Fatalf("isError %v; view names %q, want a file in %s: %.400q", res.IsError, path, wantDir, view)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 3_000_000 {
		t.Fatalf("moved spooled result: %d bytes, %v", len(b), err)
	}
	if left, _ := filepath.Glob(filepath.Join(h.Artifacts().Dir("mcp"), "big__result-*")); len(left) != 0 {
		t.Errorf("spooled result left in the shared directory: %v", left)
	}
	args, _ := json.Marshal(map[string]any{"path": path, "limit": 1})
	page := call(t, ci, "read_file", json.RawMessage(args))
	if page.IsError || !strings.Contains(text(t, page), "xxxx") {
		t.Errorf("client pages its spooled result: %.300q", text(t, page))
	}
	if r := call(t, other, "read_file", json.RawMessage(args)); !r.IsError || !strings.Contains(text(t, r), "no such file") {
		t.Errorf("another client reads it: %.300q", text(t, r))
	}
	if r := call(t, h.NewSession(), "read_file", json.RawMessage(args)); r.IsError {
		t.Errorf("admin cannot read it: %.300q", text(t, r))
	}
}
