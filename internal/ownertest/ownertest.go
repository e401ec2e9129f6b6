// Package ownertest holds the checks tests share of the files only their
// owner may read (lib/ownerfile): Private asserts it, Expose undoes it and
// Fix is the command that a refusal of an exposed file gives. On Unix they
// work with mode bits; on Windows, where mode bits say nothing of who may
// read a file, with its ACL. Under wine, which keeps no ACLs (it derives
// each file's from its Unix mode bits, so every file grants \Everyone
// access), Private logs a SKIP line instead of failing.
package ownertest

import (
	"os"
	"runtime"
	"testing"

	"github.com/plughost/plughost/internal/wine"
	"github.com/plughost/plughost/lib/ownerfile"
)

// Private checks that only the owner of the file at path may read it:
// a regular file of mode 0600 on Unix; on Windows an ACL that ownerfile.Exposed finds
// nothing wrong with, which under wine is logged as skipped.
func Private(t testing.TB, path string) {
	t.Helper()
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode(); m != 0o600 {
			t.Errorf("%s mode %v, want a regular file of mode 0600", path, m)
		}
		return
	}
	if wine.Running() {
		t.Logf("SKIP the ACL check of %s: wine derives a file's ACL from its Unix mode bits and keeps none set on it", path)
		return
	}
	if problem, _, err := ownerfile.Exposed(path); err != nil || problem != "" {
		t.Errorf("%s: Exposed = %q, %v; want only its owner to have access", path, problem, err)
	}
}
