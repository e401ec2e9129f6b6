//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// waitBound is how long the tests wait for something that normally takes
// milliseconds; generous so a loaded machine cannot make them flaky.
const waitBound = 30 * time.Second

var binary string

func TestMain(m *testing.M) {
	set, err := testbin.Build(map[string]string{"testserver": "./internal/testserver"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build test binaries:", err)
		os.Exit(1)
	}
	binary = set.Path("testserver")
	code := m.Run()
	os.RemoveAll(set.Dir)
	os.Exit(code)
}

// waitFor returns the first submatch of re once stderr matches it.
func waitFor(t *testing.T, stderr *syncbuf.Buffer, re *regexp.Regexp) string {
	t.Helper()
	var m []string
	if !testwait.Until(waitBound, func() bool { m = re.FindStringSubmatch(stderr.String()); return m != nil }) {
		t.Fatalf("stderr never matched %s; got:\n%s", re, stderr.String())
	}
	return m[len(m)-1]
}

func start(t *testing.T, env []string, args ...string) (*client.Client, *syncbuf.Buffer) {
	t.Helper()
	stderr := &syncbuf.Buffer{}
	tr := transport.NewStdioWithOptions(binary, env, args, transport.WithCommandStderrWriter(stderr))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, stderr
}

func initialize(ctx context.Context, c *client.Client) (*mcp.InitializeResult, error) {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "testserver-test", Version: "0"}
	return c.Initialize(ctx, req)
}

func callText(ctx context.Context, t *testing.T, c *client.Client, tool string, args map[string]any) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: %+v", tool, res)
	}
	text, _ := mcp.AsTextContent(res.Content[0])
	return text.Text
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestFixture(t *testing.T) {
	c, stderr := start(t, []string{"FIXTURE_MARK=42"}, "-name", "fx", "-tools", "3", "-spawn-grandchild")
	ctx := t.Context()
	res, err := initialize(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "fx" || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
		t.Errorf("initialize result: %+v", res)
	}
	want := []string{"add_tool", "big", "crash", "echo", "env", "headers", "noop", "pid", "remove_tool", "sleep", "stderr",
		"tool_0", "tool_1", "tool_2"}
	if got := toolNames(t, c); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}

	t.Run("simple tools", func(t *testing.T) {
		for tool, want := range map[string]string{"noop": "ok", "tool_2": "ok"} {
			if got := callText(ctx, t, c, tool, nil); got != want {
				t.Errorf("%s = %q, want %q", tool, got, want)
			}
		}
		if got := callText(ctx, t, c, "echo", map[string]any{"text": "hi"}); got != "hi" {
			t.Errorf("echo = %q", got)
		}
		if got := callText(ctx, t, c, "big", map[string]any{"chars": 5000}); got != strings.Repeat("x", 5000) {
			t.Errorf("big returned %d chars", len(got))
		}
		callText(ctx, t, c, "stderr", map[string]any{"text": "to stderr"})
		waitFor(t, stderr, regexp.MustCompile(`(?m)^to stderr$`))
	})

	t.Run("env", func(t *testing.T) {
		var env map[string]string
		if err := json.Unmarshal([]byte(callText(ctx, t, c, "env", nil)), &env); err != nil {
			t.Fatal(err)
		}
		if env["FIXTURE_MARK"] != "42" {
			t.Errorf("env lacks FIXTURE_MARK=42: %v", env)
		}
	})

	t.Run("pid and grandchild", func(t *testing.T) {
		var p pidInfo
		if err := json.Unmarshal([]byte(callText(ctx, t, c, "pid", nil)), &p); err != nil {
			t.Fatal(err)
		}
		if p.PPID != os.Getpid() || p.Grandchild == 0 {
			t.Fatalf("pid = %+v; want ppid %d and a grandchild", p, os.Getpid())
		}
		t.Cleanup(func() { syscall.Kill(p.Grandchild, syscall.SIGKILL) })
		serverGroup, err1 := syscall.Getpgid(p.PID)
		childGroup, err2 := syscall.Getpgid(p.Grandchild)
		if err := errors.Join(err1, err2); err != nil || serverGroup != childGroup {
			t.Errorf("grandchild group %d, server group %d (%v)", childGroup, serverGroup, err)
		}
	})

	t.Run("add_tool notifies", func(t *testing.T) {
		notified := make(chan struct{}, 10)
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationToolsListChanged) {
				notified <- struct{}{}
			}
		})
		callText(ctx, t, c, "add_tool", map[string]any{"name": "late"})
		select {
		case <-notified:
		case <-time.After(waitBound):
			t.Fatal("no notifications/tools/list_changed after add_tool")
		}
		if got := callText(ctx, t, c, "late", nil); got != "ok from late" {
			t.Errorf("late = %q", got)
		}
		callText(ctx, t, c, "remove_tool", map[string]any{"name": "late"})
		select {
		case <-notified:
		case <-time.After(waitBound):
			t.Fatal("no notifications/tools/list_changed after remove_tool")
		}
		if slices.Contains(toolNames(t, c), "late") {
			t.Error("late still listed after remove_tool")
		}
	})

	t.Run("sleep cancellation reaches the server", func(t *testing.T) {
		callCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "sleep"
			req.Params.Arguments = map[string]any{"seconds": 3600}
			_, err := c.CallTool(callCtx, req)
			done <- err
		}()
		id := waitFor(t, stderr, regexp.MustCompile(`(?m)^sleeping (\S+)$`))
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call returned %v", err)
		}
		waitFor(t, stderr, regexp.MustCompile(`(?m)^cancelled `+regexp.QuoteMeta(id)+`$`))
	})
}

func TestHangInitialize(t *testing.T) {
	c, _ := start(t, nil, "-hang-initialize")
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := initialize(ctx, c); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("initialize against a hanging server returned %v, want a deadline error", err)
	}
}

// TestCrash speaks raw JSON-RPC lines so it can see the exit status.
func TestCrash(t *testing.T) {
	cmd := exec.Command(binary)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// Keep stdin open: at end of input the server would stop before the
	// queued crash call runs.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}`)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			t.Errorf("crash answered: %s", sc.Text())
		}
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("exit = %v, want status 3", err)
	}
	if !strings.Contains(stderr.String(), "crashing\n") {
		t.Errorf("stderr = %q, want it to contain crashing", stderr.String())
	}
}
