//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// leakRequests are what the leak server (testserver -leak-env) answers
// quoting its secret: three JSON-RPC errors of forwarded requests, and a
// call during which it sends a log message. prefix is the door's prefix of
// tool and prompt names ("mcp_leak_" on the aggregate endpoints).
func leakRequests(prefix string) []leakRequest {
	return []leakRequest{
		{"tools/call error", "tools/call", `{"name":"` + prefix + `leak_error","arguments":{}}`, `"values":["****"]`},
		{"resources/read error", "resources/read", `{"uri":"test://leak"}`, `"values":["****"]`},
		{"prompts/get error", "prompts/get", `{"name":"` + prefix + `leak"}`, `"values":["****"]`},
		{"log message", "tools/call", `{"name":"` + prefix + `leak_log","arguments":{}}`, `"notifications/message"`},
	}
}

// leakRequest is one request whose answer, or what comes before it, quotes
// the leak server's secret; want is what shows it arrived masked, beside
// the masked quote itself.
type leakRequest struct{ what, method, params, want string }

// doorExchange sends one request of an initialized session and returns all
// the client received for it, the response last.
type doorExchange func(ctx context.Context, id int, method, params string) (string, error)

// gatewayDoorCanary sends the leak requests on every door of the gateway —
// /mcp, /servers/leak/mcp and a `plughost stdio` of the same config —
// keeps everything received under dir for the canary scan, and checks that
// each answer carries the server's text with the secret masked.
func (s *suite) gatewayDoorCanary(sv *serve, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stdio, stop, err := s.stdioDoor(ctx, sv, dir)
	if err != nil {
		return err
	}
	defer stop()
	doors := []struct {
		name, prefix string
		ex           doorExchange
	}{
		{"/mcp", "mcp_leak_", httpDoor(sv.newClientAt("/mcp", "application/json, text/event-stream"))},
		{"/servers/leak/mcp", "", httpDoor(sv.newClientAt("/servers/leak/mcp", "application/json, text/event-stream"))},
		{"plughost stdio", "mcp_leak_", stdio},
	}
	for i, d := range doors {
		var bad []string
		masked := 0
		reqs := leakRequests(d.prefix)
		for j, r := range reqs {
			out, err := d.ex(ctx, j+1, r.method, r.params)
			file := filepath.Join(dir, fmt.Sprintf("door-%d-%d.txt", i, j))
			if werr := os.WriteFile(file, []byte(out), 0o600); werr != nil {
				return werr
			}
			switch {
			case err != nil:
				bad = append(bad, r.what+": "+err.Error())
			case strings.Contains(out, "bad env LEAK_SECRET=****") && strings.Contains(out, r.want):
				masked++
			default: // the file, not the text: it may hold the canary
				bad = append(bad, r.what+" not masked (see "+filepath.Base(file)+")")
			}
		}
		s.check("secret-canary", "errors, logs on "+d.name,
			"the server's errors (message and data) and log message arrive with the secret masked",
			fmt.Sprintf("%d of %d masked (tools/call, resources/read, prompts/get errors; notifications/message)%s",
				masked, len(reqs), ifNotEmpty("; ", strings.Join(bad, "; "))), masked == len(reqs))
	}
	return nil
}

// httpDoor initializes c's session on first use and sends requests on it.
func httpDoor(c *client) doorExchange {
	return func(ctx context.Context, id int, method, params string) (string, error) {
		if c.session == "" {
			if err := c.initialize(ctx); err != nil {
				return "", err
			}
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
		status, b, _, err := c.post(ctx, []byte(body))
		if err == nil && status != 200 {
			err = fmt.Errorf("HTTP %d", status)
		}
		return string(b), err
	}
}

// stdioDoor starts `plughost stdio` on serve's config (its log kept under
// dir) and returns an exchange over its stdin and stdout, initialized.
func (s *suite) stdioDoor(ctx context.Context, sv *serve, dir string) (doorExchange, func(), error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "plughost"), "--config", sv.cfg, "stdio", "--wait", "60s")
	cmd.Env = s.environ(sv.dir)
	cmd.Dir = sv.dir
	logFile, err := os.Create(filepath.Join(dir, "stdio.log"))
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = logFile
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		logFile.Close()
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, nil, err
	}
	stop := func() {
		in.Close() // stdio ends with its input
		_ = cmd.Wait()
		logFile.Close()
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	ex := stdioExchange(in, lines)
	init := `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"reliability","version":"1"}}`
	if _, err := ex(ctx, 0, "initialize", init); err != nil {
		stop()
		return nil, nil, fmt.Errorf("plughost stdio: initialize: %w", err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		stop()
		return nil, nil, err
	}
	return ex, stop, nil
}

// stdioExchange writes a request on in and reads lines until its response.
func stdioExchange(in io.Writer, lines <-chan string) doorExchange {
	return func(ctx context.Context, id int, method, params string) (string, error) {
		if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			return "", err
		}
		var got strings.Builder
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return got.String(), fmt.Errorf("stdout ended before the answer to %s", method)
				}
				got.WriteString(line + "\n")
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal([]byte(line), &m) == nil && m.Method == "" && string(m.ID) == strconv.Itoa(id) {
					return got.String(), nil
				}
			case <-ctx.Done():
				return got.String(), fmt.Errorf("no answer to %s: %w", method, ctx.Err())
			}
		}
	}
}
