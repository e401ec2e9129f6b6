package deploy_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// contextMatcher reads the repository's .dockerignore as Docker does
// (moby/patternmatcher, the library of Docker's build context).
func contextMatcher(t *testing.T) *patternmatcher.PatternMatcher {
	t.Helper()
	f, err := os.Open("../.dockerignore")
	if err != nil {
		t.Fatalf("the repository root has no .dockerignore: deploy/Dockerfile's COPY . . would send .git, .cache and bin/: %v", err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return pm
}

// The build context leaves out the repository's history, caches, build
// outputs and node_modules.
func TestDockerignoreExcludes(t *testing.T) {
	pm := contextMatcher(t)
	for _, path := range []string{
		".git/HEAD", ".git/objects/pack/x.pack", ".cache/npm/node_modules/x/package.json", ".cache/conformance/x",
		"bin/plughost", "bin/plugins/mcp-transport-stdio", "node_modules/x/index.js",
		"dashboard/node_modules/x/index.js", "cmd/host/host.test", "cover.out", "plughost", "testserver",
	} {
		if ok, err := pm.MatchesOrParentMatches(path); err != nil || !ok {
			t.Errorf("%s is sent to docker build (.dockerignore does not exclude it; %v)", path, err)
		}
	}
}

// Every file git tracks is in the build context: the image's `make build`
// has all the sources.
func TestDockerignoreKeepsSources(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("SKIP: git is not installed: the tracked files are not listed")
	}
	out, err := exec.Command(git, "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("SKIP: git ls-files (not a git checkout?): %v", err)
	}
	pm := contextMatcher(t)
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files; want the whole repository", len(files))
	}
	for _, f := range files {
		if ok, err := pm.MatchesOrParentMatches(f); err != nil || ok {
			t.Errorf("%s is tracked but .dockerignore leaves it out of the build context (%v)", f, err)
		}
	}
}
