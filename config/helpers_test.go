package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// testEnv is a temporary home, system dir and user file location.
type testEnv struct {
	home, system, user string
}

func newTestEnv(t *testing.T) testEnv {
	t.Helper()
	root := t.TempDir()
	e := testEnv{
		home:   filepath.Join(root, "home"),
		system: filepath.Join(root, "etc"),
	}
	e.user = filepath.Join(e.home, ".plughost", "config.json")
	for _, d := range []string{filepath.Dir(e.user), e.system} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e testEnv) opts() LoadOptions {
	return LoadOptions{Home: e.home, SystemDir: e.system}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t *testing.T, opts LoadOptions) *Loaded {
	t.Helper()
	ld, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ld
}

// loadUser loads data as the user file over the real embedded defaults, with
// no system layers, for a user whose home is testHome.
func loadUser(t *testing.T, data string) *Loaded {
	t.Helper()
	return mustLoad(t, LoadOptions{UserData: []byte(data), Home: testHome, SystemDir: t.TempDir()})
}

// messages returns the Error strings of a problem list.
func messages(list []*ValidationError) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

// jsonString returns s as a JSON string, for fixtures that hold a path.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// minimalDefaults is a defaults FS small enough for precedence tests.
func minimalDefaults(json string) fstest.MapFS {
	return fstest.MapFS{"00-defaults.json": {Data: []byte(json)}}
}
