//go:build !windows

package config

import (
	"os"
	"testing"

	"github.com/plughost/plughost/internal/ownertest"
)

// Absolute paths as the tests write them on this system; the Windows
// values, with a drive, are in paths_windows_test.go.
const (
	// testHomeVar is the variable that names the user's home.
	testHomeVar = "HOME"
	// testHome is the home directory of loadUser.
	testHome = "/home/u"
	// testUserFile is the user file loadUser names in its messages.
	testUserFile = "/home/u/.plughost/config.json"
	// testAbs is an absolute path that needs no cleaning.
	testAbs = "/abs"
	// testRootDir is an absolute roots entry and testRootDirURI its URI.
	testRootDir    = "/srv/data"
	testRootDirURI = "file:///srv/data"
	// testRootURI is a file:// roots entry of an absolute path.
	testRootURI = "file:///home/u/proj"
	// testRootHint is how a bad roots entry's message says to write one.
	testRootHint = `write it as "/abs/dir" or "file:///abs/dir"`
)

// setAccess lets other users read the file at path when mode grants them
// any bit, and keeps it to its owner otherwise: here, its mode bits.
func setAccess(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// wantFix is the command a warning about an exposed file at path gives.
func wantFix(path string) string { return ownertest.Fix(path) }
