package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/config/catalog"
)

func TestEmbeddedCatalog(t *testing.T) {
	c, err := catalog.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ids := c.IDs()
	if len(ids) < 15 {
		t.Errorf("%d presets; the dashboard promises at least 15", len(ids))
	}
	for _, want := range []string{"filesystem", "github", "gitlab", "postgres", "sqlite", "slack", "memory", "everything",
		"fetch", "brave-search", "playwright", "sequential-thinking", "context7", "google-maps", "redis", "time"} {
		if !slices.Contains(ids, want) {
			t.Errorf("the catalog lacks %q", want)
		}
	}
	if p, _ := c.Find("context7"); p.Transport != "http" {
		t.Errorf("context7 transport %q", p.Transport)
	}
}

func TestBuild(t *testing.T) {
	c, err := catalog.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	// A path argument's leading ~ is the user's home, in this system's
	// syntax; ~\ is one only on Windows, where a backslash separates.
	fs, _ := c.Find("filesystem")
	s, err := fs.Build(catalog.Input{Arguments: map[string]catalog.Value{"directories": {testDirA + "\n~/b\n~\\d", testDirC}}, Home: testHome})
	backslashed := `~\d`
	if runtime.GOOS == "windows" {
		backslashed = filepath.Join(testHome, "d")
	}
	want := []string{"-y", "@modelcontextprotocol/server-filesystem", testDirA, filepath.Join(testHome, "b"), backslashed, testDirC}
	if err != nil || !slices.Equal(s.Args, want) {
		t.Errorf("filesystem: %q, %v; want %q", s.Args, err, want)
	}
	gh, _ := c.Find("github")
	s, err = gh.Build(catalog.Input{Credentials: map[string]string{"Authorization": "tok"}})
	if err != nil || s.Headers["Authorization"].Reveal() != "Bearer tok" {
		t.Errorf("github: %+v, %v", s, err)
	}
	_, err = gh.Build(catalog.Input{Credentials: map[string]string{"Nope": "x"}})
	var ie *catalog.InputError
	if !errors.As(err, &ie) || len(ie.Problems) != 2 || ie.Problems[0].Path != "credentials.Nope" || ie.Problems[1].Path != "credentials.Authorization" {
		t.Errorf("github without its token: %v", err)
	}
	// An optional empty argument leaves its args element and env key out.
	pw, _ := c.Find("playwright")
	if s, err = pw.Build(catalog.Input{Arguments: map[string]catalog.Value{"flags": {" "}}}); err != nil || strings.Join(s.Args, " ") != "-y @playwright/mcp@latest --browser chromium --headless" {
		t.Errorf("playwright defaults: %q, %v", s.Args, err)
	}
	mem, _ := c.Find("memory")
	if s, err = mem.Build(catalog.Input{}); err != nil || len(s.Env) != 0 {
		t.Errorf("memory without a file: %+v, %v", s.Env, err)
	}
}

// A user file adds and replaces presets; a bad preset is an error naming
// it and the file.
func TestUserFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"presets":[{"id":"time","name":"My time","description":"d","server":{"enabled":true,"command":"mytime"}},
		{"id":"mine","name":"Mine","description":"d","server":{"enabled":true,"url":"https://x.example/mcp","type":"http"}}]}`)
	c, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := catalog.Embedded()
	if tm, _ := c.Find("time"); tm.Name != "My time" || len(c.Presets) != len(emb.Presets)+1 {
		t.Errorf("time %+v, %d presets", tm, len(c.Presets))
	}
	for _, tc := range []struct{ file, want string }{
		{`{"presets":[{"id":"Bad Id","name":"n","description":"d","server":{"enabled":true,"command":"x"}}]}`, `preset 1 ("Bad Id"): id must be`},
		{`{"presets":[{"id":"x","name":"n","description":"d","server":{"enabled":true,"command":"x","args":["{{dir}}"]}}]}`, `preset 1 ("x"): server.args[0] uses {{dir}}`},
		{`{"presets":[{"id":"x","name":"n","description":"d","server":{"enabled":true,"command":"x"},"credentials":[{"key":"K","label":"k","kind":"header"}]}]}`, `a stdio server takes no header credentials`},
		{`{"presets":[{"id":"x","name":"n","description":"d","server":{"enabled":true,"command":"x"},"arguments":[{"key":"a","label":"A","kind":"text"}]}]}`, `argument "a" is not used`},
		{`{"preset":[]}`, `not a catalog file`},
	} {
		write(tc.file)
		if _, err := catalog.Load(path); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want an error with %q naming the file", tc.file, err, tc.want)
		}
	}
}
