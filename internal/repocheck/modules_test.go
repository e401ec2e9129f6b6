package repocheck

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// heavyTestDeps are module path prefixes that only deploy/'s validation
// tests need (the Kubernetes API types and the Compose loader, with their
// own large dependency trees); they belong in deploy/go.mod, never in the
// main module.
var heavyTestDeps = []string{"k8s.io/", "sigs.k8s.io/", "github.com/compose-spec/"}

// TestMainModuleHasNoDeployDependencies: the main module's go.mod lists
// none of the deploy tests' dependencies, and deploy/ is a module of its
// own that does.
func TestMainModuleHasNoDeployDependencies(t *testing.T) {
	root := repoRoot(t)
	for _, req := range requires(t, filepath.Join(root, "go.mod")) {
		for _, p := range heavyTestDeps {
			if strings.HasPrefix(req, p) {
				t.Errorf("go.mod requires %s: it is a dependency of deploy/'s tests only; keep it in deploy/go.mod (go mod tidy in both)", req)
			}
		}
	}
	deployMod := filepath.Join(root, "deploy", "go.mod")
	if got := modulePath(t, deployMod); got != "github.com/plughost/plughost/deploy" {
		t.Fatalf("deploy/go.mod declares module %q, want github.com/plughost/plughost/deploy", got)
	}
	var hasK8s bool
	for _, req := range requires(t, deployMod) {
		hasK8s = hasK8s || strings.HasPrefix(req, "k8s.io/api")
	}
	if !hasK8s {
		t.Error("deploy/go.mod does not require k8s.io/api: the manifests would not be validated")
	}
}

// TestMakeTestRunsNestedModules: `go test ./...` stops at a nested
// module's go.mod, so the Makefile's test target must run each nested
// module's tests itself.
func TestMakeTestRunsNestedModules(t *testing.T) {
	root := repoRoot(t)
	recipe := makeRecipe(t, filepath.Join(root, "Makefile"), "test")
	for _, dir := range nestedModules(t, root) {
		want := "cd " + dir + " && $(GO) test"
		if !strings.Contains(recipe, want) {
			t.Errorf("make test does not run the tests of the nested module %s/ (want %q in its recipe):\n%s", dir, want, recipe)
		}
	}
}

// repoRoot is the checkout: two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root %s: %v", root, err)
	}
	return root
}

// requires returns the module paths a go.mod file requires (direct and
// indirect).
func requires(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "" && !strings.HasPrefix(line, "//"):
			out = append(out, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			out = append(out, strings.Fields(line)[1])
		}
	}
	return out
}

// modulePath returns the module path a go.mod file declares ("" when the
// file does not exist).
func modulePath(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// nestedModules returns the directories (relative to root, slash-separated)
// below root that hold a go.mod of their own and Go code, skipping hidden
// directories and node_modules. tools/ holds only the requirements of the
// release tools (go.mod and go.sum): nothing there to test.
func nestedModules(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(path) != root && holdsGo(t, filepath.Dir(path)) {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// holdsGo reports whether a .go file is anywhere under dir.
func holdsGo(t *testing.T, dir string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || found {
			return err
		}
		found = !d.IsDir() && strings.HasSuffix(d.Name(), ".go")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// makeRecipe returns the recipe lines of target in a Makefile.
func makeRecipe(t *testing.T, path, target string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			b.WriteString(line + "\n")
		case in:
			return b.String()
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !in {
		t.Fatalf("%s has no %q target", path, target)
	}
	return b.String()
}
