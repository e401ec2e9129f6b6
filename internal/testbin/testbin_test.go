package testbin

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Two builds of one package (as two test packages make) give each set a
// file of its own with the same, runnable binary: the second comes from
// the cache, and removing one set leaves the other whole.
func TestBuildGivesEachSetItsOwnCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("links the test server: skipped under -short")
	}
	targets := map[string]string{"bin/testserver": "./internal/testserver"}
	a, err := Build(targets)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(a.Dir)
	b, err := Build(targets)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(b.Dir)
	if a.Dir == b.Dir {
		t.Fatalf("both sets are %s", a.Dir)
	}
	ab, err := os.ReadFile(a.Path("bin/testserver"))
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(b.Path("bin/testserver"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ab, bb) {
		t.Errorf("the two builds differ (%d and %d bytes)", len(ab), len(bb))
	}
	if err := os.RemoveAll(a.Dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(b.Path("bin/testserver"), "-h") // prints its usage and exits 0
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the second set's test server, after the first set was removed: %v\n%s", err, out)
	}
}
