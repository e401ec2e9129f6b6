package repocheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedBinariesLinkNoResearch: nothing under search/research (the
// experiments docs/benchmarks.md quotes, run with go run) is a dependency
// of a binary plughost ships.
func TestShippedBinariesLinkNoResearch(t *testing.T) {
	const research = "github.com/plughost/plughost/search/research"
	cmd := exec.Command("go", "list", "-deps", "./cmd/host", "./plugins/stdio", "./plugins/sse", "./plugins/http")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		if p == research || strings.HasPrefix(p, research+"/") {
			t.Errorf("a shipped binary depends on %s: research code stays out of the product (run it with go run)", p)
		}
	}
}
