//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/proctree"
	"github.com/plughost/plughost/internal/syncbuf"
)

// servedGateway is a running `plughost serve` and what it printed.
type servedGateway struct {
	url, token string
	stdout     string // the snippet
	stderr     *notifyBuffer
	config     string // the config file it serves
	pid        int
}

// startServe runs `plughost serve --listen 127.0.0.1:0 [args]` on cfg until
// the test ends and reads the URL and token from the snippet it prints.
func startServe(t *testing.T, c *cli, cfg any, args ...string) servedGateway {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.json")
	writeConfig(t, path, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := c.command(ctx, append([]string{"--config", path, "serve", "--listen", "127.0.0.1:0"}, args...)...)
	stdout := &notifyBuffer{changed: make(chan struct{}, 1)}
	stderr := &notifyBuffer{changed: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	url := regexp.MustCompile(`"url": "(http://127\.0\.0\.1:\d+/mcp)"`)
	stdout.waitFor(t, 30*time.Second, "the client snippet", func(s string) bool { return url.MatchString(s) && strings.Contains(s, "stdio") })
	stderr.waitFor(t, 30*time.Second, "servers connected", func(s string) bool { return strings.Contains(s, "connected, ") })
	out := stdout.String()
	return servedGateway{url: url.FindStringSubmatch(out)[1], token: snippetToken(t, out), stdout: out, stderr: stderr, config: path, pid: cmd.Process.Pid}
}

// snippetToken is the bearer token of a snippet: printed in it, or read
// from the file it names.
func snippetToken(t *testing.T, out string) string {
	t.Helper()
	if m := regexp.MustCompile(`"Authorization": "Bearer ([A-Za-z0-9_-]+)"`).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	m := regexp.MustCompile(`it is in (\S+);`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the snippet neither shows the token nor says where it is:\n%s", out)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("the token file the snippet names: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// serve prints a ready snippet with the token it stored 0600, never logs
// the token, and serves the tools to an MCP client that sends it.
func TestServeGateway(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))

	tokFile := filepath.Join(c.home, ".plughost", "gateway.token")
	fi, err := os.Stat(tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	stored, _ := os.ReadFile(tokFile)
	if strings.TrimSpace(string(stored)) != g.token {
		t.Errorf("printed token differs from the stored one")
	}
	if strings.Contains(g.stderr.String(), g.token) {
		t.Errorf("the token appears in the logs:\n%s", g.stderr)
	}
	// stdout is not a terminal here (a service manager's log keeps it):
	// the snippet says where the token is instead of showing it.
	if strings.Contains(g.stdout, g.token) || !strings.Contains(g.stdout, "it is in "+tokFile+";") ||
		!strings.Contains(g.stdout, "cat "+tokFile) || !strings.Contains(g.stdout, `"Authorization": "Bearer <token>"`) {
		t.Errorf("serve's stdout (not a terminal) must name the token file, not show the token:\n%s", g.stdout)
	}

	tr, err := transport.NewStreamableHTTP(g.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + g.token}))
	if err != nil {
		t.Fatal(err)
	}
	mc := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := mc.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "mcp_one_echo", map[string]any{"text": "through serve"}
	res, err := mc.CallTool(ctx, req)
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "through serve" {
		t.Fatalf("echo through serve: %+v %v", res, err)
	}

	for _, auth := range []string{"", "Bearer not-" + g.token} {
		hreq, _ := http.NewRequest("POST", g.url, strings.NewReader("{}"))
		if auth != "" {
			hreq.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), tokFile) || strings.Contains(string(body), c.home) {
			t.Errorf("token %q: %d %q, want 401 naming no path of the machine", auth, resp.StatusCode, body)
		}
	}
}

// On a terminal, serve shows the token in the snippet, ready to paste.
func TestServeShowsTokenOnTerminal(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to provide a terminal")
	}
	path := filepath.Join(t.TempDir(), "serve.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", "exec "+filepath.Join(bins, "plughost")+" --config '"+path+"' serve --listen 127.0.0.1:0", "/dev/null")
	cmd.Env, cmd.Dir, cmd.WaitDelay = c.environ(), c.home, 5*time.Second
	out := &notifyBuffer{changed: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range proctree.Descendants(cmd.Process.Pid) {
			syscall.Kill(p.PID, syscall.SIGTERM)
		}
		cmd.Wait()
	}()
	out.waitFor(t, 30*time.Second, "the client snippet", func(s string) bool { return strings.Contains(s, `"stdio"`) })
	stored, err := os.ReadFile(filepath.Join(c.home, ".plughost", "gateway.token"))
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(stored))
	if !strings.Contains(out.String(), `"Authorization": "Bearer `+tok+`"`) || strings.Contains(out.String(), "<token>") {
		t.Errorf("serve on a terminal must show the token:\n%s", out)
	}
}

// The stdio form serve prints starts plughost on the config serve runs:
// it carries the --config serve was started with.
func TestServeStdioSnippetKeepsConfig(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	i := strings.Index(g.stdout, "over stdio")
	if i < 0 {
		t.Fatalf("no stdio form:\n%s", g.stdout)
	}
	var stdio struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	block := g.stdout[i+strings.Index(g.stdout[i:], "{"):]
	if err := json.NewDecoder(strings.NewReader(block)).Decode(&stdio); err != nil {
		t.Fatalf("stdio form: %v\n%s", err, g.stdout)
	}
	entry := stdio.MCPServers["plughost"]
	if diff := cmp.Diff([]string{"--config", g.config, "stdio"}, entry.Args); diff != "" || entry.Command != filepath.Join(bins, "plughost") {
		t.Errorf("stdio form %+v (-want +got args):\n%s", entry, diff)
	}
}

// With auth off, serve refuses a non-loopback address before serving.
func TestServeRefusesPublicWithoutAuth(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "gateway": map[string]any{"auth": false}}))
	r := c.run(t, "--config", path, "serve", "--listen", "0.0.0.0:0")
	if r.code != 1 || !strings.Contains(r.stderr, "not a loopback address") || !strings.Contains(r.stderr, "tools.mcp.gateway.auth") {
		t.Errorf("serve on 0.0.0.0 without auth: %s", r)
	}
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "gateway": map[string]any{"listen": "0.0.0.0:8765", "auth": false}}))
	r = c.run(t, "--config", path, "tools")
	if r.code != 1 || !strings.Contains(r.stderr, "tools.mcp.gateway.listen") {
		t.Errorf("config with a public address and no auth: %s", r)
	}
}

// stdio serves MCP on stdin/stdout and writes nothing else there.
func TestStdioCommand(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "--config", path, "--log-level", "debug", "stdio")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen syncbuf.Buffer
	mc := client.NewClient(transport.NewIO(io.TeeReader(stdoutPipe, &seen), stdin, io.NopCloser(strings.NewReader(""))),
		client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := mc.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr.String())
	}
	tools, err := mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "mcp_one_echo", map[string]any{"text": "over stdio"}
	res, err := mc.CallTool(ctx, req)
	if err != nil || res.IsError || res.Content[0].(mcp.TextContent).Text != "over stdio" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	stdin.Close() // end of input ends the session and the command
	waitErr := cmd.Wait()
	mc.Close()
	if waitErr != nil {
		t.Errorf("stdio after stdin closed: %v, want exit 0\nstderr:\n%s", waitErr, stderr.String())
	}
	if !strings.Contains(stderr.String(), "connected") {
		t.Errorf("debug logs did not go to stderr:\n%s", stderr.String())
	}
	sc := bufio.NewScanner(strings.NewReader(seen.String()))
	for sc.Scan() {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not a JSON-RPC message: %q", sc.Text())
		}
	}
}

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector-cli) lists
// and calls tools, lists and reads resources, lists and gets prompts and
// sets the log level through `plughost serve` over streamable HTTP with the
// bearer token, through `plughost stdio`, and through serve's per-server
// endpoint /servers/one/mcp, which shows the server's own names.
func TestInspectorCLI(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	dir, err := inspectorDir()
	if err != nil {
		t.Skipf("SKIPPING the MCP Inspector integration test: %v", err)
	}
	cfg := mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver("-faithful", "-name", "one")}})
	g := startServe(t, c, cfg)
	path := filepath.Join(t.TempDir(), "c.json")
	writeConfig(t, path, cfg)
	for _, target := range []struct {
		name string
		args []string
	}{
		{"http", []string{g.url, "--transport", "http", "--header", "Authorization: Bearer " + g.token}},
		{"stdio", []string{filepath.Join(bins, "plughost"), "--config", path, "stdio"}},
	} {
		t.Run(target.name, func(t *testing.T) {
			list := inspector(t, c, dir, append(append([]string{}, target.args...), "--method", "tools/list")...)
			wantContains(t, "inspector tools/list", list, `"name": "mcp_one_echo"`, `"name": "mcp_one_noop"`)
			call := inspector(t, c, dir, append(append([]string{}, target.args...), "--method", "tools/call",
				"--tool-name", "mcp_one_echo", "--tool-arg", "text=from the inspector")...)
			wantContains(t, "inspector tools/call", call, `"text": "from the inspector"`)
			run := func(args ...string) string {
				return inspector(t, c, dir, append(append([]string{}, target.args...), args...)...)
			}
			wantContains(t, "inspector resources/list", run("--method", "resources/list"), `"uri": "test://static"`, `"uri": "test://one/own"`)
			wantContains(t, "inspector resources/read", run("--method", "resources/read", "--uri", "test://one/own"), `"text": "own text of one"`)
			wantContains(t, "inspector prompts/list", run("--method", "prompts/list"), `"name": "mcp_one_greet"`)
			wantContains(t, "inspector prompts/get", run("--method", "prompts/get", "--prompt-name", "mcp_one_greet", "--prompt-args", "who=ada"),
				`"text": "Hello, ada, from one"`)
			wantContains(t, "inspector logging/setLevel", run("--method", "logging/setLevel", "--log-level", "debug"), `{}`)
		})
	}
	t.Run("server endpoint", func(t *testing.T) {
		url := strings.TrimSuffix(g.url, "/mcp") + "/servers/one/mcp"
		auth := []string{url, "--transport", "http", "--header", "Authorization: Bearer " + g.token}
		list := inspector(t, c, dir, append(auth, "--method", "tools/list")...)
		wantContains(t, "inspector tools/list on /servers/one/mcp", list, `"name": "echo"`, `"name": "slow"`)
		if strings.Contains(list, "mcp_one_") {
			t.Errorf("the per-server endpoint shows aggregate names:\n%s", list)
		}
		wantContains(t, "inspector prompts/get on /servers/one/mcp", inspector(t, c, dir, append(auth, "--method", "prompts/get", "--prompt-name", "greet", "--prompt-args", "who=bo")...),
			`"text": "Hello, bo, from one"`)
	})
	t.Run("wrong token", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "index.js", g.url, "--transport", "http",
			"--header", "Authorization: Bearer wrong-token-0123456789", "--method", "tools/list")
		cmd.Dir, cmd.Env = dir, c.environ()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || strings.Contains(string(out), "mcp_one_echo") {
			t.Errorf("inspector with a wrong token: %v\n%s", err, out)
		}
	})
}

// inspector runs the inspector CLI and returns its stdout.
func inspector(t *testing.T, c *cli, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"index.js"}, args...)...)
	// inspector-cli 1.0.3 finds its package.json relative to the working
	// directory, so it must run in its build directory.
	cmd.Dir, cmd.Env = dir, c.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// inspectorDir finds the inspector CLI installed by `make testdeps`.
func inspectorDir() (string, error) {
	npmDir := os.Getenv("PLUGHOST_NPM_DIR")
	if npmDir == "" {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			return "", err
		}
		npmDir = filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), ".cache", "npm")
	}
	dir := filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	if _, err := os.Stat(filepath.Join(dir, "index.js")); err != nil {
		return "", errors.New("@modelcontextprotocol/inspector-cli is not installed under " + npmDir + " (run `make testdeps`, which needs npm)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not on PATH")
	}
	return dir, nil
}
