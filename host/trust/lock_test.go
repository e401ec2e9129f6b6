package trust

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// While one writer holds the lock, another (another open file, as in
// another process) waits for it and gives up when its context ends.
func TestLockExcludesAnotherHolder(t *testing.T) {
	if !lockingWorks {
		t.Skip("no advisory file locks on this system: processes pinning at the same moment may lose pins (see lock_other.go)")
	}
	path := filepath.Join(t.TempDir(), "pins.json.lock")
	release, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("second lock while the first is held: %v, want to wait until the deadline", err)
	}
	release()
	again, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
}
