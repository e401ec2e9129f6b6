package wine

import (
	"os"
	"runtime"
	"testing"
)

// TestRunning checks Running against what the test runner knows: wine.sh
// sets WINEPREFIX for the Windows binaries it starts under wine, and no
// other system runs this test with it set.
func TestRunning(t *testing.T) {
	_, underWine := os.LookupEnv("WINEPREFIX")
	want := runtime.GOOS == "windows" && underWine
	if got := Running(); got != want {
		t.Fatalf("Running() = %v on %s with WINEPREFIX set %v; want %v", got, runtime.GOOS, underWine, want)
	}
}
