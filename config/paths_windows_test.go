package config

import (
	"os"
	"testing"

	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/lib/ownerfile"
)

// Absolute paths as the tests write them on Windows, where one has a drive;
// the Unix values are in paths_other_test.go.
const (
	// testHomeVar is the variable that names the user's home.
	testHomeVar = "USERPROFILE"
	// testHome is the home directory of loadUser.
	testHome = `C:\home\u`
	// testUserFile is the user file loadUser names in its messages.
	testUserFile = `C:\home\u\.plughost\config.json`
	// testAbs is an absolute path that needs no cleaning.
	testAbs = `C:\abs`
	// testRootDir is an absolute roots entry and testRootDirURI its URI.
	testRootDir    = `C:\srv\data`
	testRootDirURI = "file:///C:/srv/data"
	// testRootURI is a file:// roots entry of an absolute path.
	testRootURI = "file:///C:/home/u/proj"
	// testRootHint is how a bad roots entry's message says to write one.
	testRootHint = `write it as "C:\\abs\\dir" or "file:///C:/abs/dir"`
)

// setAccess lets other users read the file at path when mode grants them
// any bit, and keeps it to its owner otherwise: mode bits say nothing about
// that here, so it sets the file's ACL, granting Everyone read access or
// the owner alone (ownerfile.Restrict).
func setAccess(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if mode&0o077 == 0 {
		if err := ownerfile.Restrict(f); err != nil {
			t.Fatal(err)
		}
		return
	}
	ownertest.Expose(t, path)
}

// wantFix is the command a warning about an exposed file at path gives.
func wantFix(path string) string { return ownertest.Fix(path) }
