//go:build unix

package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testbin"
)

// bins is the directory TestMain builds the binaries into, laid out like a
// release so that plughost finds its plugins beside itself:
// <bins>/plughost, <bins>/plugins/mcp-transport-{stdio,http}, <bins>/testserver.
var bins string

// testserverTools is how many tools internal/testserver offers.
const testserverTools = 11

func TestMain(m *testing.M) {
	var set testbin.Set
	code := testbin.Main(m, &set, func() (testbin.Set, error) {
		s, err := testbin.Build(map[string]string{
			"plughost":                    "./cmd/host",
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"plugins/mcp-transport-http":  "./plugins/http", // remote servers: secrets_test, login_test
			"testserver":                  "./internal/testserver",
		})
		bins = s.Dir
		return s, err
	})
	os.Exit(code)
}

// cli runs the built plughost with a temporary HOME of its own.
type cli struct {
	home string
}

// newCLI skips the test under -short and returns a runner with an empty HOME.
func newCLI(t *testing.T) *cli {
	t.Helper()
	if testing.Short() {
		t.Skip("CLI test: builds and runs plughost, plugin and server binaries: heavy integration test, skipped under -short")
	}
	return &cli{home: t.TempDir()}
}

// result is what one plughost run produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// environ is the whole environment of a run: nothing (in particular no
// PLUGHOST_* variable) leaks in from the test's own environment.
func (c *cli) environ() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home}
}

// command prepares a plughost run in HOME.
func (c *cli) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "plughost"), args...)
	cmd.Env = c.environ()
	cmd.Dir = c.home
	// A process left behind holding stdout or stderr must not hang the test.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs plughost to completion (at most a minute).
func (c *cli) run(t *testing.T, args ...string) result {
	t.Helper()
	return c.runWith(t, nil, args...)
}

// userConfig is the path of the default user config file in HOME.
func (c *cli) userConfig() string {
	return filepath.Join(c.home, ".plughost", "config.json")
}

// writeUserConfig writes cfg as $HOME/.plughost/config.json, mode 0600.
func (c *cli) writeUserConfig(t *testing.T, cfg any) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(c.userConfig()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, c.userConfig(), cfg)
	return c.userConfig()
}

// writeConfig writes cfg as indented JSON to path with mode 0600.
func writeConfig(t *testing.T, path string, cfg any) {
	t.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// mcpConfig wraps an "mcp" object into a whole config document.
func mcpConfig(mcp map[string]any) map[string]any {
	return map[string]any{"tools": map[string]any{"mcp": mcp}}
}

// testserver is a stdio server entry running the test server.
func testserver(args ...string) map[string]any {
	if args == nil {
		args = []string{}
	}
	return map[string]any{"enabled": true, "command": filepath.Join(bins, "testserver"), "args": args}
}

var startedIn = regexp.MustCompile(`^(connected, \d+ tools) \(started in [^)]*\)$`)

// listRows parses the table of `plughost mcp list` into server name →
// status column. It fails the test on a line that is not a well-formed row,
// so every server must be on exactly one line.
func listRows(t *testing.T, stdout string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	col := strings.Index(lines[0], "STATUS")
	if !strings.HasPrefix(lines[0], "NAME") || col < 0 {
		t.Fatalf("mcp list: no NAME … STATUS header:\n%s", stdout)
	}
	rows := map[string]string{}
	for _, line := range lines[1:] {
		name, _, _ := strings.Cut(line, " ")
		if len(line) <= col || name == "" || line[col-1] != ' ' {
			t.Fatalf("mcp list: malformed row %q in:\n%s", line, stdout)
		}
		if _, dup := rows[name]; dup {
			t.Fatalf("mcp list: server %q listed twice:\n%s", name, stdout)
		}
		rows[name] = line[col:]
	}
	return rows
}

// summary shortens a status phrase to its stable part: "connected, 7 tools",
// "invalid config", "disabled", … (start-up times and reasons vary).
func summary(status string) string {
	if m := startedIn.FindStringSubmatch(status); m != nil {
		return m[1]
	}
	if head, _, ok := strings.Cut(status, ":"); ok {
		return head
	}
	return status
}

func summaries(rows map[string]string) map[string]string {
	out := make(map[string]string, len(rows))
	for name, st := range rows {
		out[name] = summary(st)
	}
	return out
}

// wantContains reports each of subs missing from s.
func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

// bench gateway --cpuprofile writes a CPU profile of its load comparison,
// readable only by its owner.
func TestBenchGatewayCPUProfile(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.pprof")
	r := c.run(t, "bench", "gateway", "--sessions", "2", "--per-session", "5", "--calls", "10", "--rounds", "1",
		"--scale-servers", "0", "--memory-sessions", "0", "--cpuprofile", path)
	if r.code != 0 || !strings.Contains(r.stdout, "lost: 0") {
		t.Fatalf("bench gateway: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile: %d bytes, %v; want a gzipped profile", len(b), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the profile's mode is %v, want 0600", fi.Mode().Perm())
	}
}
