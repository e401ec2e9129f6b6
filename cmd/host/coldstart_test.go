//go:build unix

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/syncbuf"
)

// Through `plughost stdio`, a client's first requests naming a server that
// is still starting — a tools/call, a prompts/get, a resources/read, sent
// right after initialize — wait for it: answered once it is up, failed at
// once with its state and last error when its start fails, failed at its
// start bound naming the setting when it never comes up. A call to another
// server meanwhile is answered at once. The slow server (the test server
// with -faithful) starts when the test opens its gate.
func TestStdioColdStart(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	requests := []struct{ method, params, up string }{
		{"tools/call", `{"name":"mcp_slow_echo","arguments":{"text":"cold"}}`, `"text":"cold"`},
		{"prompts/get", `{"name":"mcp_slow_greet","arguments":{"who":"you"}}`, "Hello, you, from slow"},
		{"resources/read", `{"uri":"test://slow/own"}`, "own text of slow"},
	}
	for _, tc := range []struct {
		name     string
		args     []string       // the slow server's flags beside -faithful
		timeouts map[string]any // its timeouts
		gated    bool           // it waits for the gate: the requests wait until the test opens it
		want     func(i int) []string
	}{
		{"up", nil, nil, true, func(i int) []string { return []string{`"result"`, requests[i].up} }},
		{"start fails", []string{"-fail-start"}, map[string]any{"start_seconds": 60, "initialize_seconds": 60}, true,
			func(int) []string { return []string{`"error"`, "state error", "last error: "} }},
		{"never up", []string{"-hang-initialize"}, map[string]any{"start_seconds": 1, "initialize_seconds": 1}, false,
			func(int) []string { return []string{`"error"`, "initialize_seconds"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gate := filepath.Join(dir, "gate")
			slow := testserver(append([]string{"-faithful", "-name", "slow"}, tc.args...)...)
			if tc.gated {
				slow["args"] = append(slow["args"].([]string), "-start-gate", gate)
			}
			if tc.timeouts != nil {
				slow["timeouts"] = tc.timeouts
			}
			path := filepath.Join(dir, "c.json")
			writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "workspace": filepath.Join(dir, "ws"),
				"restart": map[string]any{"initial_backoff_seconds": 60, "max_backoff_seconds": 60},
				"servers": map[string]any{"slow": slow, "fast": testserver()}}))
			s := startStdio(t, c, "--config", path, "stdio", "--wait", "1s")
			s.send(t, 0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cold","version":"1"}}`)
			s.answer(t, 0)
			s.notify(t, "notifications/initialized")
			for i, r := range requests {
				s.send(t, i+1, r.method, r.params)
			}
			s.send(t, 9, "tools/call", `{"name":"mcp_fast_echo","arguments":{"text":"not delayed"}}`)
			answers := map[int]string{}
			for {
				id, msg := s.next(t)
				if id == 9 {
					if !strings.Contains(msg, `"not delayed"`) {
						t.Errorf("a call to another server while slow starts: %s", msg)
					}
					break
				}
				if tc.gated {
					t.Fatalf("request %d was answered while its server was still starting: %s", id, msg)
				}
				answers[id] = msg
			}
			if tc.gated {
				if err := os.WriteFile(gate, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for len(answers) < len(requests) {
				id, msg := s.next(t)
				answers[id] = msg
			}
			for i, r := range requests {
				for _, w := range tc.want(i) {
					if !strings.Contains(answers[i+1], w) {
						t.Errorf("%s: %s; want it to hold %q", r.method, answers[i+1], w)
					}
				}
			}
		})
	}
}

// stdioSession is a running `plughost stdio` spoken to line by line.
type stdioSession struct {
	in     io.Writer
	lines  chan string
	stderr *syncbuf.Buffer
}

// startStdio runs plughost with args until the test ends.
func startStdio(t *testing.T, c *cli, args ...string) *stdioSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := c.command(ctx, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &stdioSession{in: stdin, lines: make(chan string, 64), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
		cancel()
	})
	return s
}

func (s *stdioSession) send(t *testing.T, id int, method, params string) {
	t.Helper()
	if _, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		t.Fatal(err)
	}
}

func (s *stdioSession) notify(t *testing.T, method string) {
	t.Helper()
	if _, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method); err != nil {
		t.Fatal(err)
	}
}

// next returns the next response (notifications are skipped) and its id.
func (s *stdioSession) next(t *testing.T) (int, string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("plughost stdio ended its output; stderr:\n%s", s.stderr)
			}
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("a line that is not JSON-RPC: %q", line)
			}
			if m.ID != nil && m.Method == "" {
				return *m.ID, line
			}
		case <-timeout:
			t.Fatalf("no response within a minute; stderr:\n%s", s.stderr)
		}
	}
}

// answer waits for the response to request id.
func (s *stdioSession) answer(t *testing.T, id int) string {
	t.Helper()
	for {
		if got, msg := s.next(t); got == id {
			return msg
		}
	}
}
