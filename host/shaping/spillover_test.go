package shaping

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/artifacts"
)

func TestSpillover(t *testing.T) {
	alpha := "abcdefghijklmnopqrstuvwxyz"
	head := "abcd\n[MCP RESULT TRUNCATED - 16 chars omitted out of 26 total]\nuvwxyz\n"
	tests := []struct {
		name      string
		failKinds []string
		wantText  string
		wantKinds []string
	}{
		{name: "artifact works: no spillover", wantText: head + "[file:/ws/.artifacts/mcp/srv__big-0.txt]", wantKinds: []string{KindMCP}},
		{
			name: "artifact fails: spillover saves to .artifacts/tool", failKinds: []string{KindMCP},
			wantText: head + "[file:/ws/.artifacts/tool/srv__big-0.txt]", wantKinds: []string{KindMCP, KindTool},
		},
		{
			name: "both fail: the bounded view says why", failKinds: []string{KindMCP, KindTool},
			wantText:  head + "[the full payload could not be saved: saving to .artifacts/mcp failed: disk full; saving to .artifacts/tool failed: disk full]",
			wantKinds: []string{KindMCP, KindTool},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saver := newMemSaver(tt.failKinds...)
			got := run(t, textResult(alpha), Bound(10), Spillover(saver), Artifact(10, saver))
			if diff := cmp.Diff(tt.wantText, onlyText(t, got)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantKinds, saver.kinds); diff != "" {
				t.Errorf("save attempts (-want +got):\n%s", diff)
			}
			for _, p := range saver.saved {
				if p != alpha {
					t.Errorf("saved %q, want the full payload", p)
				}
			}
		})
	}
}

// blockDir makes dir unwritable: read-only permissions, and — since root
// ignores permissions — a regular file in place of the directory when the
// permissions alone do not stop a write.
func blockDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o600); err == nil {
		os.Remove(probe)
		os.Chmod(dir, 0o700)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, []byte("not a directory"), 0o400); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpilloverWithReadOnlyArtifactDir(t *testing.T) {
	text := `{"result":"` + repeat(`line\n`, 40) + `","status":"ok"}`
	unwrapped := repeat("line\n", 40) + "\n<mcp-result-metadata>\n{\"status\":\"ok\"}\n</mcp-result-metadata>\n"
	tests := []struct {
		name     string
		block    []string
		wantKind string
	}{
		{name: "mcp dir read-only: spillover to tool dir", block: []string{artifacts.KindMCP}, wantKind: artifacts.KindTool},
		{name: "both dirs read-only: nothing saved", block: []string{artifacts.KindMCP, artifacts.KindTool}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, err := artifacts.NewStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tt.block {
				blockDir(t, store.Dir(k))
			}
			got := onlyText(t, run(t, textResult(text), Standard(Options{MaxInlineChars: 50, Saver: store})...))
			if tt.wantKind == "" {
				if !strings.Contains(got, "[the full payload could not be saved: saving to .artifacts/mcp failed: ") ||
					!strings.Contains(got, "; saving to .artifacts/tool failed: ") {
					t.Errorf("bounded view does not say why nothing was saved:\n%s", got)
				}
				return
			}
			i := strings.LastIndex(got, "[file:")
			if i < 0 || !strings.HasSuffix(got, "]") {
				t.Fatalf("no file reference in:\n%s", got)
			}
			path := got[i+len("[file:") : len(got)-1]
			if filepath.Dir(path) != store.Dir(tt.wantKind) {
				t.Errorf("saved in %s, want %s", filepath.Dir(path), store.Dir(tt.wantKind))
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(unwrapped, string(b)); diff != "" {
				t.Errorf("spilled payload is not the pageable unwrapped text (-want +got):\n%s", diff)
			}
		})
	}
}
