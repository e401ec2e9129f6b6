package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
)

// door sends one JSON-RPC request of an initialized session and returns
// everything the client got for it: the response and what the gateway
// delivered before it (over HTTP the body, an event stream when something
// was delivered; over stdio the lines up to the response).
type door func(t *testing.T, id int, method, params string) string

// httpDoor opens a session at url.
func httpDoor(t *testing.T, url string) door {
	c := newRaw(t, url)
	c.initialize()
	return func(t *testing.T, id int, method, params string) string {
		t.Helper()
		r := c.request(id, method, params)
		if r.status != 200 {
			t.Fatalf("%s: HTTP %d %s", method, r.status, r.body)
		}
		return r.body
	}
}

// stdioDoor opens a session of h's gateway over stdio pipes.
func stdioDoor(t *testing.T, h *host.Host) door {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- gateway.New(h, gateway.Options{}).ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	d := func(t *testing.T, id int, method, params string) string {
		t.Helper()
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("%s: stdout ended; got %s", method, out.String())
				}
				out.WriteString(line + "\n")
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal([]byte(line), &m) == nil && m.Method == "" && string(m.ID) == strconv.Itoa(id) {
					return out.String()
				}
			case <-timeout:
				t.Fatalf("%s: no answer within 30s; got %s", method, out.String())
			}
		}
	}
	d(t, 0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	return d
}

// A server whose errors and log messages quote its environment: on every
// door — /mcp, /servers/<name>/mcp and stdio — the JSON-RPC error of a
// forwarded request (message and data) and the notifications/message
// reach the client with the configured secret masked, while a tool's
// result stays the server's answer.
func TestServerErrorsAndLogsAreMasked(t *testing.T) {
	integration(t)
	const canary = "cnry-leak-5b1e9d04"
	h := startHost(t, map[string]any{
		"leak": testserver(map[string]any{"env": map[string]any{"LEAK_TOKEN": canary}}, "-leak-env", "LEAK_TOKEN"),
	}, nil)
	url, _ := serveHTTP(t, h)
	doors := []struct {
		name   string
		open   func() door
		prefix string // of tool and prompt names
	}{
		{"/mcp", func() door { return httpDoor(t, url) }, "mcp_leak_"},
		{"/servers/leak/mcp", func() door { return httpDoor(t, strings.TrimSuffix(url, "/mcp")+"/servers/leak/mcp") }, ""},
		{"stdio", func() door { return stdioDoor(t, h) }, "mcp_leak_"},
	}
	for _, dr := range doors {
		t.Run(strings.Trim(strings.ReplaceAll(dr.name, "/", "_"), "_"), func(t *testing.T) {
			d := dr.open()
			for i, c := range []struct{ what, method, params, want string }{
				{"a tools/call protocol error", "tools/call", `{"name":"` + dr.prefix + `leak_error","arguments":{}}`, `"values":["****"]`},
				{"a resources/read error", "resources/read", `{"uri":"test://leak"}`, `"values":["****"]`},
				{"a prompts/get error", "prompts/get", `{"name":"` + dr.prefix + `leak"}`, `"values":["****"]`},
				{"a log message", "tools/call", `{"name":"` + dr.prefix + `leak_log","arguments":{}}`, `"method":"notifications/message"`},
			} {
				out := d(t, i+1, c.method, c.params)
				if strings.Contains(out, canary) {
					t.Errorf("%s reaches the client with the secret:\n%s", c.what, out)
				}
				if !strings.Contains(out, "bad env LEAK_TOKEN=****") || !strings.Contains(out, c.want) {
					t.Errorf("%s: want the server's text with the secret masked (%q and %s):\n%s", c.what, "bad env LEAK_TOKEN=****", c.want, out)
				}
			}
			out := d(t, 9, "tools/call", `{"name":"`+dr.prefix+`leak_result","arguments":{}}`)
			if !strings.Contains(out, `"text":"LEAK_TOKEN=`+canary+`"`) {
				t.Errorf("a tool's result must stay the server's answer, unmasked:\n%s", out)
			}
		})
	}
}
