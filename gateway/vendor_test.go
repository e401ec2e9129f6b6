package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/listenurl"
)

// A tools/call result reaches the gateway's client with every member the
// server sent — a vendor member and a newer spec's at the top, _meta (with a
// number float64 cannot hold), items with members mcp-go does not model,
// annotations and an embedded resource with such members, an explicit
// "isError": false — over both front doors and every way the host reaches a
// server: the direct pipes, the stdio plugin's relay, the http plugin.
// Compared as JSON trees (numbers as written) with the result read from the
// server directly, but for the one deliberate rewrite it calls for: the
// embedded resource's URI, which no server lists, in the per-server form.
func TestToolResultsKeepEveryMember(t *testing.T) {
	integration(t)
	want := vendorResultDirect(t)
	resource := want.(map[string]any)["content"].([]any)[2].(map[string]any)["resource"].(map[string]any)
	resource["uri"] = "plughost://v/" + resource["uri"].(string)
	for _, tc := range []struct {
		name   string
		opts   host.Options
		server func(t *testing.T) map[string]any
	}{
		{"direct pipes", host.Options{}, func(*testing.T) map[string]any { return testserver(nil, "-vendor-result") }},
		{"stdio plugin relay", host.Options{RelayOnly: true}, func(*testing.T) map[string]any { return testserver(nil, "-vendor-result") }},
		{"http plugin", host.Options{}, func(t *testing.T) map[string]any {
			return map[string]any{"enabled": true, "type": "http", "url": vendorHTTPServer(t)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHostWith(t, tc.opts, map[string]any{"v": tc.server(t)}, nil)
			url, _ := serveHTTP(t, h)
			doors := map[string]transport.Interface{
				"streamable HTTP": httpTransport(t, url),
				"stdio":           stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio),
			}
			for door, tr := range doors {
				c := start(t, tr)
				got := rawCall(t, c, "mcp_v_vendor_result")
				if diff := cmp.Diff(want, jsonTree(t, got)); diff != "" {
					t.Errorf("%s: the result differs from the server's (-server +gateway):\n%s", door, diff)
				}
				got = rawTaskResult(t, c, "mcp_v_vendor_result")
				if diff := cmp.Diff(want, jsonTree(t, got)); diff != "" {
					t.Errorf("%s: the task's result differs from the server's (-server +gateway):\n%s", door, diff)
				}
			}
		})
	}
}

// httpTransport is a streamable-HTTP client transport to url with the test
// token.
func httpTransport(t *testing.T, url string) transport.Interface {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken.Reveal()}))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// rawCall calls tool over c's transport and returns the result as it
// arrived, undecoded.
func rawCall(t *testing.T, c *mcpClient, tool string) json.RawMessage {
	t.Helper()
	return sendRaw(t, c, string(mcp.MethodToolsCall), map[string]any{"name": tool, "arguments": map[string]any{}})
}

// rawTaskResult calls tool as a task over c's transport and returns the
// task's tasks/result as it arrived, undecoded.
func rawTaskResult(t *testing.T, c *mcpClient, tool string) json.RawMessage {
	t.Helper()
	created := sendRaw(t, c, string(mcp.MethodToolsCall),
		map[string]any{"name": tool, "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
	var task struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if err := json.Unmarshal(created, &task); err != nil || task.Task.TaskID == "" {
		t.Fatalf("a task-augmented call answered %s; want a task", created)
	}
	return sendRaw(t, c, "tasks/result", map[string]any{"taskId": task.Task.TaskID})
}

// rawIDs numbers the requests sendRaw sends.
var rawIDs atomic.Int64

// sendRaw sends a request over c's transport and returns its result as
// it arrived, undecoded.
func sendRaw(t *testing.T, c *mcpClient, method string, params map[string]any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("raw-%d", rawIDs.Add(1))), Method: method, Params: params,
	})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if resp.Error != nil {
		t.Fatalf("%s: %+v", method, resp.Error)
	}
	return resp.Result
}

// vendorResultDirect runs the test server on its own and returns its
// vendor_result answer, read from its stdout, as a JSON tree.
func vendorResultDirect(t *testing.T) any {
	t.Helper()
	cmd := exec.Command(bins.Path("testserver"), "-vendor-result")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vendor_result","arguments":{}}}`+"\n")
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && string(msg.ID) == "2" {
			return jsonTree(t, msg.Result)
		}
	}
	t.Fatalf("the test server did not answer the call: %v", sc.Err())
	return nil
}

// vendorHTTPServer starts the test server over streamable HTTP with
// -vendor-result and returns its URL.
func vendorHTTPServer(t *testing.T) string {
	t.Helper()
	return httpTestServer(t, "-vendor-result")
}

// httpTestServer starts the test server over streamable HTTP with args and
// returns its URL.
func httpTestServer(t *testing.T, args ...string) string {
	t.Helper()
	url, stop, err := listenurl.Start(exec.Command(bins.Path("testserver"), append([]string{"-serve", "http"}, args...)...), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
}

// jsonTree decodes b with numbers kept as written.
func jsonTree(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}
