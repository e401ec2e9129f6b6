package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/cluster"
)

// openStream opens the session's event stream on replica i and returns its
// lines until the test ends.
func openStream(t *testing.T, c *cluster.Cluster, i int, session string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", c.Replicas[i].URL, nil)
	req.Header.Set("Authorization", "Bearer "+c.Token.Reveal())
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream on replica %d: %v %v", i, resp, err)
	}
	lines := make(chan string, 256)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// waitFor waits for a line containing every one of wants.
func waitFor(t *testing.T, lines <-chan string, what string, wants ...string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-lines:
			all := true
			for _, w := range wants {
				all = all && strings.Contains(l, w)
			}
			if all {
				return
			}
		case <-timeout:
			t.Fatalf("no line with %q: %s", wants, what)
		}
	}
}

// Resource subscriptions, tasks and log levels of a session whose stream
// is on replica 0 work with requests sent to any replica; a task whose
// replica was killed gets an error naming that replica.
func TestEveryFeatureOnAnyReplica(t *testing.T) {
	c := startWith(t, 3, map[string]any{
		"enabled": true,
		"servers": map[string]any{"a": map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": []string{"-name", "a", "-faithful"}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.NewClient(27)
	if err := cl.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	lines := openStream(t, c, 0, cl.Session())

	// Subscribed through a replica at random; that replica's server's
	// update reaches the stream on replica 0.
	if _, err := cl.Request(ctx, "resources/subscribe", map[string]any{"uri": "test://static"}); err != nil {
		t.Fatal(err)
	}
	cl.Pin(cl.Last)
	if _, _, err := cl.CallTool(ctx, "mcp_a_touch", map[string]any{"uri": "test://static"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, lines, "a subscription's update on the stream on replica 0", "notifications/resources/updated", "test://static")

	// A task created on replica 1 is read through every replica, its result
	// fetched at random; its status reaches the stream on replica 0.
	cl.Pin(1)
	res, err := cl.Request(ctx, "tools/call", map[string]any{"name": "mcp_a_slow", "arguments": map[string]any{"ms": 200}, "task": map[string]any{"ttl": 60000}})
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Task struct{ TaskID string } }
	if err := json.Unmarshal(res, &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("a task-augmented call: %s (%v)", res, err)
	}
	id := created.Task.TaskID
	for i := range c.Replicas {
		cl.Pin(i)
		if got, err := cl.Request(ctx, "tasks/get", map[string]any{"taskId": id}); err != nil || !strings.Contains(string(got), id) {
			t.Errorf("tasks/get on replica %d: %s %v", i, got, err)
		}
	}
	cl.Pin(-1)
	if got, err := cl.Request(ctx, "tasks/result", map[string]any{"taskId": id}); err != nil || !strings.Contains(string(got), "slept 200ms") {
		t.Errorf("tasks/result on replica %d: %s %v", cl.Last, got, err)
	}
	waitFor(t, lines, "the task's status on the stream on replica 0", "notifications/tasks/status", id)

	// The level set through one replica filters the log messages of calls
	// on every replica (the server's default level, error, lets errors through).
	cl.Pin(2)
	if _, err := cl.Request(ctx, "logging/setLevel", map[string]any{"level": "critical"}); err != nil {
		t.Fatal(err)
	}
	for i := range c.Replicas {
		cl.Pin(i)
		got, _ := cl.Request(ctx, "tools/call", map[string]any{"name": "mcp_a_log", "arguments": map[string]any{"level": "error", "message": "below-the-level"}})
		if strings.Contains(string(got), "below-the-level") {
			t.Errorf("an error message of a call on replica %d, the level set to critical on replica 2: %s", i, got)
		}
	}

	// Replica 1, holding a task, is killed: the task's requests get an error
	// naming it.
	cl.Pin(1)
	if res, err = cl.Request(ctx, "tools/call", map[string]any{"name": "mcp_a_slow", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{"ttl": 120000}}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res, &created); err != nil {
		t.Fatal(err)
	}
	replica, _, _ := strings.Cut(strings.TrimPrefix(created.Task.TaskID, "plughost-"), "/")
	c.Replicas[1].Kill()
	cl.Pin(2)
	_, err = cl.Request(ctx, "tasks/get", map[string]any{"taskId": created.Task.TaskID})
	var re *cluster.RPCError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "replica "+replica+", which is not connected") {
		t.Errorf("tasks/get of a task of a killed replica: %v; want an error naming replica %s", err, replica)
	}
}
