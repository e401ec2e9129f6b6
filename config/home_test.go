package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

// Without an explicit home, the default user file is under the home the
// environment names: HOME, on Windows USERPROFILE; and on Windows a
// variable is found whatever the case of its name, as Windows finds it.
func TestHomeFromEnviron(t *testing.T) {
	home := filepath.Join(t.TempDir(), "u")
	other := "USERPROFILE"
	if testHomeVar == other {
		other = "HOME"
	}
	environ := []string{other + "=" + filepath.Join(home, "not-this-one"), testHomeVar + "=" + home}
	want := filepath.Join(home, ".plughost", "config.json")
	if got, explicit := UserFilePath(LoadOptions{Environ: environ}); got != want || explicit {
		t.Errorf("UserFilePath with %q = %q, %v; want %q, not explicit", environ, got, explicit, want)
	}

	file := filepath.Join(home, "mine.json")
	got, explicit := UserFilePath(LoadOptions{Environ: []string{"Plughost_Config=" + file}})
	if runtime.GOOS == "windows" {
		if got != file || !explicit {
			t.Errorf("UserFilePath with Plughost_Config = %q, %v; want %q, explicit: names ignore case on Windows", got, explicit, file)
		}
	} else if explicit {
		t.Errorf("UserFilePath with Plughost_Config = %q, explicit; want it ignored: names have case here", got)
	}
}
