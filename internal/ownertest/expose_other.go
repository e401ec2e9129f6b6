//go:build !windows

package ownertest

import (
	"os"
	"testing"
)

// Expose lets every account read the file at path: mode 0644.
func Expose(t testing.TB, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Fix is the command ownerfile.Exposed gives to keep the file at path to
// its owner again.
func Fix(path string) string { return "chmod 600 " + path }
