package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testbin"
)

// refName is the reference server's name in plughost's config: its tools
// and prompts are mcp_ref_<name> on the aggregate endpoint.
const refName = "ref"

// TestServerScenarios runs the suite's server scenarios three ways, side
// by side, against one reference server: directly, through plughost's
// per-server endpoint /servers/ref/mcp (unmodified), and through the
// aggregate endpoint /mcp (with the scenarios' tool and prompt names
// rewritten to mcp_ref_<name>). Every scenario that passes directly must
// pass through both endpoints, each with a non-zero number of checks.
func TestServerScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite and its reference server (Node) and plughost serve: heavy integration test, skipped under -short")
	}
	cli, nodeBin, err := suite()
	if err == nil {
		err = referenceDeps(filepath.Dir(filepath.Dir(filepath.Dir(cli))))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: the MCP conformance suite or its reference server is unavailable: %v ***\n\n", t.Name(), err)
		t.Skipf("the MCP conformance suite or its reference server is unavailable: %v", err)
	}
	confDir := filepath.Dir(filepath.Dir(filepath.Dir(cli)))
	env := append(os.Environ(), "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	node := filepath.Join(nodeBin, "node") // exec looks a bare name up in this process's PATH
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	refURL := startReference(t, ctx, node, confDir, env)
	set, err := testbin.Build(map[string]string{
		"plughost":                   "./cmd/host",
		"plugins/mcp-transport-http": "./plugins/http",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(set.Dir)
	gatewayURL := startServe(t, ctx, set.Path("plughost"), refURL)
	aggregateCLI := renamedSuite(t, confDir)

	runs := []struct {
		name, cli, url string
	}{
		{"direct", cli, refURL},
		{"/servers/ref/mcp", cli, strings.TrimSuffix(gatewayURL, "/mcp") + "/servers/" + refName + "/mcp"},
		{"/mcp", aggregateCLI, gatewayURL},
	}
	// The direct run goes beside the first endpoint's; the two endpoints run
	// one after the other: their sessions share plughost's one connection
	// to the server, and the reference server sends its sampling and
	// elicitation requests on its standalone stream, not on the stream of
	// the call that made them, so while both endpoints have calls in flight
	// nothing tells which session a request is for (docs/gateway.md).
	results := make([]map[string]counts, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		if i == 2 {
			wg.Wait()
		}
		wg.Go(func() {
			out := t.TempDir()
			cmd := exec.CommandContext(ctx, node, r.cli, "server", "--url", r.url, "-o", out)
			cmd.Env = env
			log, runErr := cmd.CombinedOutput()
			res, err := readResults(out)
			if err != nil || len(res) == 0 {
				t.Errorf("%s: no results (%v; suite exit %v):\n%s", r.name, err, runErr, tail(log))
			}
			results[i] = res
		})
	}
	wg.Wait()
	t.Logf("server scenarios, side by side:\n%s", sideBySide(runs[0].name, runs[1].name, runs[2].name, results[0], results[1], results[2]))
	direct := results[0]
	passing := 0
	for name, c := range direct {
		if !c.ok() {
			continue
		}
		passing++
		for i := 1; i < len(runs); i++ {
			if got := results[i][name]; !got.ok() {
				t.Errorf("%s passes directly (%d checks) but not through %s: %d passed, %d failed", name, c.Success, runs[i].name, got.Success, got.Failure)
			}
		}
	}
	if passing < 25 {
		t.Errorf("only %d scenarios pass directly against the reference server; the suite or the server is broken", passing)
	}
}

// ok: the scenario recorded checks and none failed.
func (c counts) ok() bool { return c.Success > 0 && c.Failure == 0 }

// referenceDeps checks that the packages the reference server imports are
// installed under dir.
func referenceDeps(dir string) error {
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "express", "cors", "zod"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			return fmt.Errorf("%s is not installed under %s (run `make testdeps`): %w", pkg, dir, err)
		}
	}
	return nil
}

// startReference runs the reference server (shared/conformance/everything-server.ts,
// the suite's own, kept beside the checkout; the npm package lacks it) from
// a directory inside confDir, so its imports resolve to confDir's
// node_modules, on a free port; it returns its MCP URL.
func startReference(t *testing.T, ctx context.Context, node, confDir string, env []string) string {
	t.Helper()
	dir, err := os.MkdirTemp(confDir, "reference-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path, err := testbin.SharedPath("PLUGHOST_CONFORMANCE_SERVER", filepath.Join("conformance", "everything-server.ts"))
	if err != nil {
		t.Skipf("SKIPPED: the conformance suite's reference server is not available: %v", err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "everything-server.ts"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.CommandContext(ctx, node, "everything-server.ts")
	cmd.Dir = dir
	cmd.Env = append(env, "PORT="+port)
	logs := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	addr := "127.0.0.1:" + port
	deadline := time.After(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the reference server exited (%v):\n%s", err, logs.String())
		case <-deadline:
			t.Fatalf("the reference server did not listen on %s:\n%s", addr, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startServe runs `plughost serve` on a free loopback port without a token
// (the suite sends none), with the reference server configured as "ref",
// and returns the MCP URL once the server is connected.
func startServe(t *testing.T, ctx context.Context, plughost, refURL string) string {
	t.Helper()
	home := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true,
		"servers": map[string]any{refName: map[string]any{"enabled": true, "type": "http", "url": refURL}},
		"gateway": map[string]any{"auth": false},
	}}})
	path := filepath.Join(home, "config.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, plughost, "--config", path, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	serving := regexp.MustCompile(`serving \d+ configured server\(s\) at (http://\S+/mcp);`)
	url, log := "", &strings.Builder{}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if m := serving.FindStringSubmatch(line); m != nil {
			url = m[1]
		}
		if url != "" && strings.Contains(line, refName) && strings.Contains(line, "connected,") {
			go io.Copy(io.Discard, stderr)
			return url
		}
	}
	t.Fatalf("plughost serve did not connect the reference server:\n%s", log)
	return ""
}

// renamedSuite copies the suite's package into confDir's node_modules with
// the scenarios' tool and prompt names (name:`test_…`) rewritten to
// mcp_ref_test_…, the names the aggregate endpoint gives them, and returns
// its CLI script.
func renamedSuite(t *testing.T, confDir string) string {
	t.Helper()
	src := filepath.Join(confDir, "node_modules", "@modelcontextprotocol", "conformance")
	dst, err := os.MkdirTemp(filepath.Join(confDir, "node_modules"), ".plughost-aggregate-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	for _, f := range []string{"package.json", filepath.Join("dist", "index.js")} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".js") {
			data = scenarioName.ReplaceAll(data, []byte("name:`mcp_"+refName+"_$1`"))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dst, "dist", "index.js")
}

// scenarioName matches a tool or prompt name the scenarios call.
var scenarioName = regexp.MustCompile("name:`(test_[a-z0-9_]+)`")

// sideBySide renders the three runs as the Markdown rows of
// docs/conformance.md: checks passed/failed per scenario.
func sideBySide(n0, n1, n2 string, r0, r1, r2 map[string]counts) string {
	names := map[string]bool{}
	for _, r := range []map[string]counts{r0, r1, r2} {
		for n := range r {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	cell := func(c counts) string {
		v := "fail"
		if c.ok() {
			v = "pass"
		}
		return fmt.Sprintf("%s %d/%d", v, c.Success, c.Failure)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | %s | %s | %s |\n|---|---|---|---|\n", n0, n1, n2)
	for _, n := range sorted {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", n, cell(r0[n]), cell(r1[n]), cell(r2[n]))
	}
	return b.String()
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}
