// Package testbin builds the project's binaries (plugins, test servers,
// plughost itself) for integration tests, once per test process, each
// linked once per change of its source (see Build).
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plughost/plughost/internal/copyfile"
)

// Set is a directory of freshly built binaries laid out like a release:
// <Dir>/plughost, <Dir>/plugins/mcp-transport-<type>, <Dir>/testserver.
type Set struct {
	Dir string
}

// PluginDir is where the transport plugins are.
func (s Set) PluginDir() string { return filepath.Join(s.Dir, "plugins") }

// Path returns the path of a built binary by name.
func (s Set) Path(name string) string { return filepath.Join(s.Dir, name) }

// Build compiles the given binaries into a new temp dir. targets maps an
// output path relative to the dir to a package path relative to the module
// root, e.g. {"plugins/mcp-transport-stdio": "./plugins/stdio"}.
//
// Each package is built by `go build` into a cache directory the module's
// test processes share (see cacheDir), then copied into the set: the go
// command links a binary again only when its build ID says it is stale, so
// the packages of one `go test ./...` link each binary once, not once each.
// The set's files are its own copies, as fresh as a build of their own.
func Build(targets map[string]string) (Set, error) {
	root, err := moduleRoot()
	if err != nil {
		return Set{}, err
	}
	cache, err := cacheDir(root)
	if err != nil {
		return Set{}, err
	}
	dir, err := os.MkdirTemp("", "plughost-testbin-")
	if err != nil {
		return Set{}, err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for out, pkg := range targets {
		wg.Go(func() {
			if err := buildInto(root, cache, pkg, filepath.Join(dir, out)); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		os.RemoveAll(dir)
		return Set{}, err
	}
	return Set{Dir: dir}, nil
}

// buildInto brings the cached build of pkg up to date and copies it to dst.
func buildInto(root, cache, pkg, dst string) error {
	cached := filepath.Join(cache, strings.NewReplacer("/", "_", ".", "_").Replace(strings.TrimPrefix(pkg, "./")))
	cmd := exec.Command("go", "build", "-o", cached, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	if err := copyExecutable(cached, dst); err != nil {
		return fmt.Errorf("copy the build of %s: %w", pkg, err)
	}
	return nil
}

// cacheDir is where Build keeps its builds for the module at root: a
// directory of the temp dir go build links in (so it moves a new build
// there with one atomic rename, which a concurrent build or copy never
// sees half done), named after the module's path on disk (so worktrees
// keep apart).
func cacheDir(root string) (string, error) {
	out, err := exec.Command("go", "env", "GOTMPDIR").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOTMPDIR: %w", err)
	}
	tmp := strings.TrimSpace(string(out))
	if tmp == "" {
		tmp = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(tmp, "plughost-testbin-cache-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// copyExecutable copies the file src to dst (creating dst's directory) with
// mode 0755.
func copyExecutable(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return copyfile.New(src, dst, 0o755)
}

// Standard builds the transport plugins, the test server and plughost.
func Standard() (Set, error) {
	return Build(map[string]string{
		"plugins/mcp-transport-stdio": "./plugins/stdio",
		"plugins/mcp-transport-sse":   "./plugins/sse",
		"plugins/mcp-transport-http":  "./plugins/http",
		"testserver":                  "./internal/testserver",
		"plughost":                    "./cmd/host",

		"plugins/mcp-transport-logging": "./examples/logging-transport", // third-party example
	})
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("find module root: not inside the plughost module")
	}
	return filepath.Dir(gomod), nil
}

// NPMServer returns the entry script of an npm reference server installed by
// `make testdeps` (under $PLUGHOST_NPM_DIR, else <module>/.cache/npm), or an
// explanation of why it is missing.
func NPMServer(pkg, script string) (string, error) {
	dir := os.Getenv("PLUGHOST_NPM_DIR")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, ".cache", "npm")
	}
	p := filepath.Join(dir, "node_modules", pkg, script)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is not installed at %s (run `make testdeps`, which needs npm): %w", pkg, p, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is not on PATH: %w", err)
	}
	return p, nil
}

// Main runs a test package's tests with binaries built by build (skipped
// under -short, where *set stays empty), removes them afterwards and exits
// with the tests' status. A build failure exits at once, naming what failed.
// Call it from TestMain: os.Exit(testbin.Main(m, &bins, testbin.Standard)).
func Main(m interface{ Run() int }, set *Set, build func() (Set, error)) int {
	if !flag.Parsed() {
		flag.Parse() // testing.Short needs the flags
	}
	if !testing.Short() {
		var err error
		if *set, err = build(); err != nil {
			fmt.Fprintln(os.Stderr, "build test binaries:", err)
			return 1
		}
	}
	code := m.Run()
	if set.Dir != "" {
		os.RemoveAll(set.Dir)
	}
	return code
}

// SharedPath finds rel (e.g. "conformance/everything-server.ts") in the
// project's shared folder, which sits beside the checkout: $envVar when set,
// else the first "shared/<rel>" found walking up from the module root's
// parent (so worktrees and scratch clones find it too). The error says
// where it looked and which variable to set.
func SharedPath(envVar, rel string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$%s: %w", envVar, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if dir == filepath.Dir(dir) {
			return "", fmt.Errorf("shared/%s is not beside the checkout %s or any folder above it (set $%s to its path)", rel, root, envVar)
		}
	}
}
