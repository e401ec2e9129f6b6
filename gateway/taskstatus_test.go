package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
)

// Every notifications/tasks/status of a task reaches the client that
// created it, in the server's order, on every endpoint and over every
// upstream transport: server-everything's simulate-research-query run as a
// task sends one per stage and one when it completes, the first while it
// creates the task — before its answer tells plughost whose task it is.
// A client connected to the server directly gets them all; a client of the
// gateway must get the same sequence (it used to miss the first).
func TestTaskStatusNotificationsAllArrive(t *testing.T) {
	integration(t)
	t.Parallel() // its own servers, host and front door
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	direct := taskStatuses(t, startFaithful(t, transport.NewStdio("node", nil, everything, "stdio"), true), "simulate-research-query")
	if len(direct) < 2 || !strings.HasPrefix(direct[len(direct)-1], "completed") {
		t.Fatalf("a direct client got %q; want several statuses ending with completed", direct)
	}
	upstreams := map[string]func(t *testing.T) map[string]any{
		"stdio": func(*testing.T) map[string]any {
			return map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"}}
		},
		"http": func(t *testing.T) map[string]any {
			return map[string]any{"enabled": true, "type": "http", "url": startEverything(t, "streamableHttp") + "/mcp"}
		},
		"sse": func(t *testing.T) map[string]any {
			return map[string]any{"enabled": true, "type": "sse", "url": startEverything(t, "sse") + "/sse"}
		},
	}
	for upstream, entry := range upstreams {
		t.Run(upstream, func(t *testing.T) {
			t.Parallel()
			h := startHost(t, map[string]any{"e": entry(t)}, nil)
			url, door := serveHTTP(t, h)
			// Statuses after the call's answer go on the session's GET stream,
			// which the client opens in the background: wait for it.
			clients := map[string]func(t *testing.T) *faithfulClient{
				"/mcp": func(t *testing.T) *faithfulClient { return withStream(t, door, connectFaithful(t, url, true)) },
				"/servers/e/mcp": func(t *testing.T) *faithfulClient {
					return withStream(t, door, connectFaithful(t, strings.TrimSuffix(url, "/mcp")+"/servers/e/mcp", true))
				},
				"/stdio": func(t *testing.T) *faithfulClient {
					return startFaithful(t, stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio), true)
				},
			}
			prefix := map[string]string{"/mcp": "mcp_e_", "/stdio": "mcp_e_"}
			for endpoint, connect := range clients {
				t.Run(endpoint, func(t *testing.T) {
					t.Parallel() // tasks of several sessions created at once
					got := taskStatuses(t, connect(t), prefix[endpoint]+"simulate-research-query")
					if diff := cmp.Diff(direct, got); diff != "" {
						t.Errorf("the task's status notifications differ from a direct client's (-direct +gateway):\n%s", diff)
					}
				})
			}
		})
	}
}

// withStream returns c once its session's GET stream is attached to gw.
func withStream(t *testing.T, gw *gateway.Gateway, c *faithfulClient) *faithfulClient {
	t.Helper()
	id := c.GetTransport().GetSessionId()
	if !testwait.Until(20*time.Second, func() bool { return gw.StreamAttached(id) }) {
		t.Fatalf("session %s opened no GET stream within 20s", id)
	}
	return c
}

// taskStatuses runs tool as a task on c and returns the task's status
// notifications in the order they came, "<status>: <statusMessage>", once
// one says the task completed.
func taskStatuses(t *testing.T, c *faithfulClient, tool string) []string {
	t.Helper()
	created := rawRequest(t, c, "tools/call", json.RawMessage(fmt.Sprintf(`{"name":%q,"arguments":{"topic":"owls"},"task":{"ttl":60000}}`, tool)))
	var cr struct {
		Task struct{ TaskID string }
	}
	if err := json.Unmarshal(created, &cr); err != nil || cr.Task.TaskID == "" {
		t.Fatalf("a task-augmented call answered %s; want a task", created)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		var got []string
		for _, n := range c.notifications("notifications/tasks/status") {
			if n.Params.AdditionalFields["taskId"] == cr.Task.TaskID {
				got = append(got, fmt.Sprintf("%v: %v", n.Params.AdditionalFields["status"], n.Params.AdditionalFields["statusMessage"]))
			}
		}
		if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "completed") {
			return got
		}
		select {
		case <-c.got:
		case <-ctx.Done():
			t.Fatalf("the task %s did not complete within 30s; statuses so far: %q", cr.Task.TaskID, got)
		}
	}
}
