package ownertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/lib/ownerfile"
)

// A file ownerfile.Restrict made passes Private; after Expose,
// ownerfile.Exposed reports it with the command Fix names.
func TestPrivateThenExpose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = ownerfile.Restrict(f)
	f.Close() // before any Fatal: Windows cannot remove an open file
	if err != nil {
		t.Fatal(err)
	}
	Private(t, path)
	Expose(t, path)
	problem, fix, err := ownerfile.Exposed(path)
	if err != nil || problem == "" || fix != Fix(path) {
		t.Errorf("after Expose: Exposed = %q, %q, %v; want a problem and the fix %q", problem, fix, err, Fix(path))
	}
}
