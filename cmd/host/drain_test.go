//go:build unix

package main_test

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/testwait"
)

// drainingServe is a running `plughost serve` with a drain configured.
type drainingServe struct {
	cmd            *exec.Cmd
	exited         chan error
	base, mcpURL   string
	token          string
	stdout, stderr *notifyBuffer
}

// startDraining runs serve with tools.mcp.gateway.drain_seconds = drain and
// one test server, and waits until it serves.
func startDraining(t *testing.T, c *cli, drain float64) *drainingServe {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true,
		"servers": map[string]any{"one": testserver()},
		"gateway": map[string]any{"drain_seconds": drain}}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	s := &drainingServe{cmd: c.command(ctx, "--config", path, "serve", "--listen", "127.0.0.1:0"), exited: make(chan error, 1),
		stdout: &notifyBuffer{changed: make(chan struct{}, 1)}, stderr: &notifyBuffer{changed: make(chan struct{}, 1)}}
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() { // the test failed before serve exited: stop it
		s.cmd.Process.Kill()
		s.exited <- <-s.exited
	})
	url := regexp.MustCompile(`"url": "(http://127\.0\.0\.1:\d+/mcp)"`)
	s.stdout.waitFor(t, 30*time.Second, "the client snippet", func(out string) bool {
		select {
		case err := <-s.exited:
			s.exited <- err
			t.Fatalf("serve exited before serving: %v\nstderr:\n%s", err, s.stderr)
		default:
		}
		return url.MatchString(out)
	})
	s.mcpURL = url.FindStringSubmatch(s.stdout.String())[1]
	s.base = strings.TrimSuffix(s.mcpURL, "/mcp")
	s.token = snippetToken(t, s.stdout.String())
	testwait.Eventually(t, 30*time.Second, "/readyz to answer 200", func() bool {
		code, _ := s.get(t, "/readyz")
		return code == http.StatusOK
	})
	return s
}

// get GETs path without a token, as a probe does; the status is 0 when
// the request failed.
func (s *drainingServe) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// client initializes a new MCP session with serve.
func (s *drainingServe) client(t *testing.T, ctx context.Context) *client.Client {
	t.Helper()
	return mcpClient(ctx, t, s.mcpURL, s.token)
}

// echo calls the test server's echo tool through mc.
func echo(t *testing.T, ctx context.Context, mc *client.Client, text string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "mcp_one_echo", map[string]any{"text": text}
	res, err := mc.CallTool(ctx, req)
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != text {
		t.Fatalf("echo %q: %+v %v", text, res, err)
	}
}

// toolNames lists the tools mc sees.
func toolNames(t *testing.T, ctx context.Context, mc *client.Client) []string {
	t.Helper()
	res, err := mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// waitExit waits for serve to exit and checks it exited 0.
func (s *drainingServe) waitExit(t *testing.T, after string) {
	t.Helper()
	select {
	case err := <-s.exited:
		s.exited <- err
		if err != nil {
			t.Errorf("serve after %s: %v, want exit 0\nstderr:\n%s", after, err, s.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve still running a minute after %s\nstderr:\n%s", after, s.stderr)
	}
}

// On SIGTERM with a drain, serve goes on serving every request — calls of
// a session begun before, new sessions — while /readyz answers 503
// "draining"; a second SIGTERM stops it now, and it exits 0.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	s := startDraining(t, c, 600) // only the second SIGTERM ends this drain
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := s.client(t, ctx)
	echo(t, ctx, before, "before the signal")
	listed := toolNames(t, ctx, before)

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.stderr.waitFor(t, 30*time.Second, "the drain to begin", func(out string) bool { return strings.Contains(out, "plughost: draining for 10m0s") })
	testwait.Eventually(t, 30*time.Second, "/readyz to answer 503", func() bool {
		code, _ := s.get(t, "/readyz")
		return code == http.StatusServiceUnavailable
	})
	if code, body := s.get(t, "/readyz"); code != 503 || strings.TrimSpace(body) != `{"ready":false,"reason":"draining"}` {
		t.Errorf("/readyz while draining: %d %s, want 503 {\"ready\":false,\"reason\":\"draining\"}", code, body)
	}
	if code, body := s.get(t, "/healthz"); code != 200 {
		t.Errorf("/healthz while draining: %d %s, want 200 (the process is alive: nothing should restart it)", code, body)
	}
	echo(t, ctx, before, "during the drain")
	after := s.client(t, ctx)
	if diff := cmp.Diff(listed, toolNames(t, ctx, after)); diff != "" {
		t.Errorf("tools/list of a session begun during the drain differs from before the signal (-before +during):\n%s", diff)
	}
	echo(t, ctx, after, "a new session during the drain")
	before.Close()
	after.Close()
	select {
	case err := <-s.exited:
		s.exited <- err
		t.Fatalf("serve exited during its drain: %v\nstderr:\n%s", err, s.stderr)
	default:
	}

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.waitExit(t, "a second SIGTERM")
	wantContains(t, "stderr", s.stderr.String(), "plughost: stopping now")
	if code, _ := s.get(t, "/healthz"); code != 0 {
		t.Errorf("serve exited but its address still answers %d", code)
	}
}

// A drain ends by itself: after drain_seconds serve closes its listener,
// finishes, and exits 0 without a second signal.
func TestServeDrainEnds(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	s := startDraining(t, c, 1)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.waitExit(t, "SIGTERM and a drain of 1s")
	out := s.stderr.String()
	wantContains(t, "stderr", out, "plughost: draining for 1s", "plughost: shutting down")
	if strings.Contains(out, "stopping now") {
		t.Errorf("serve stopped now without a second signal:\n%s", out)
	}
}
