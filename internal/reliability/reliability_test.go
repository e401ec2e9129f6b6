//go:build linux

package main

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/plughost/plughost/internal/testbin"
)

// TestReliability runs the suite's short profile (make test) against freshly
// built binaries; PLUGHOST_RELIABILITY=full runs the full one (make
// reliability is the usual way). PLUGHOST_RELIABILITY_ONLY restricts the
// cases by name.
func TestReliability(t *testing.T) {
	if testing.Short() {
		t.Skip("reliability suite: starts plughost, plugins and servers: heavy integration test, skipped under -short")
	}
	set, err := testbin.Build(map[string]string{
		"plughost":                    "./cmd/host",
		"plugins/mcp-transport-stdio": "./plugins/stdio",
		"plugins/mcp-transport-http":  "./plugins/http",
		"plugins/mcp-transport-sse":   "./plugins/sse",
		"testserver":                  "./internal/testserver",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(set.Dir)
	var filter *regexp.Regexp
	if only := os.Getenv("PLUGHOST_RELIABILITY_ONLY"); only != "" {
		filter = regexp.MustCompile(only)
	}
	var out bytes.Buffer
	s := newSuite(set.Dir, set.Path("testserver"), t.TempDir(), os.Getenv("PLUGHOST_RELIABILITY") == "full", &out)
	misses := s.run(filter)
	t.Log("\n" + out.String())
	if misses > 0 {
		t.Errorf("%d reliability checks missed (see the log above)", misses)
	}
}
