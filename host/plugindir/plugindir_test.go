package plugindir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := write(first, "mcp-transport-stdio"+exeSuffix, 0o755)
	write(second, "mcp-transport-stdio"+exeSuffix, 0o755)
	write(second, "mcp-transport-ws"+exeSuffix, 0o755)
	// Not runnable: no execute bit on Unix, no .exe suffix on Windows.
	write(first, "mcp-transport-noexec", 0o644)
	dirs := []string{first, second}

	if got, err := Locate("stdio", dirs); err != nil || got != want {
		t.Errorf("Locate(stdio) = %q, %v; want first dir %q", got, err, want)
	}
	if got, err := Locate("ws", dirs); err != nil || got != filepath.Join(second, "mcp-transport-ws"+exeSuffix) {
		t.Errorf("Locate(ws) = %q, %v", got, err)
	}
	for _, typ := range []string{"slack", "noexec", "../x", ""} {
		_, err := Locate(typ, dirs)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Locate(%q): want *NotFoundError, got %v", typ, err)
		}
		msg := err.Error()
		for _, part := range []string{"mcp-transport-" + typ, first, second, "stdio, sse, http"} {
			if !strings.Contains(msg, part) {
				t.Errorf("Locate(%q) error %q lacks %q", typ, msg, part)
			}
		}
	}
}
