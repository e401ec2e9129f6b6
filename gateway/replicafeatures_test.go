package gateway_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// faithfulReplica starts a replica serving the test server "a" with
// -faithful (resources, logging, progress, tasks), its sessions in Redis at
// url, and returns its MCP URL and its store (closing it cuts the replica
// off from the others, as if it died).
func faithfulReplica(t *testing.T, url string) (string, *redisstore.Store) {
	t.Helper()
	const prefix = "replica-features:"
	store, err := redisstore.Open(redisstore.Options{URL: secret.URL(url), Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := startHostWith(t, host.Options{SessionStore: store}, map[string]any{"a": testserver(nil, "-name", "a", "-faithful")},
		func(m map[string]any) {
			m["gateway"] = map[string]any{"store": map[string]any{"type": "redis", "url": url, "prefix": prefix}}
		})
	mcpURL, _ := serveHTTP(t, h)
	return mcpURL, store
}

// sessionOn returns a client of the session of c that sends its requests
// to the replica at url, and takes no event stream on its answers (so
// what a request sends goes to the session's stream).
func sessionOn(c *rawClient, url string) *rawClient {
	return &rawClient{t: c.t, url: url, session: c.session, accept: "application/json"}
}

// lineBefore waits for a stream line containing want, failing if one
// containing bad comes first.
func lineBefore(t *testing.T, lines <-chan string, want, bad, what string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, bad) {
				t.Fatalf("%s: got %s before %q", what, l, want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q: %s", want, what)
		}
	}
}

// waitLineWith waits for a stream line containing every one of wants.
func waitLineWith(t *testing.T, lines <-chan string, what string, wants ...string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(l, w) }) {
				return
			}
		case <-timeout:
			t.Fatalf("no line with %q: %s", wants, what)
		}
	}
}

// Every feature works whichever replica a request lands on: a session
// started on A, its event stream on B.
func TestReplicasServeEveryFeature(t *testing.T) {
	integration(t)
	srv := testredis.New(t)
	urlA, storeA := faithfulReplica(t, srv.URL(0))
	urlB, _ := faithfulReplica(t, srv.URL(0))
	c := newRaw(t, urlA)
	c.initialize()
	a, b := sessionOn(c, urlA), sessionOn(c, urlB)
	stream := openStream(t, urlB, c.session)

	t.Run("resource subscription on A, update on B's stream", func(t *testing.T) {
		if r := a.request(1, "resources/subscribe", `{"uri":"test://static"}`); r.status != 200 || !strings.Contains(r.body, `"result":{}`) {
			t.Fatalf("resources/subscribe on A: %d %s", r.status, r.body)
		}
		a.request(2, "tools/call", `{"name":"mcp_a_touch","arguments":{"uri":"test://static"}}`)
		waitLine(t, stream, `"method":"notifications/resources/updated","params":{"uri":"test://static"}`, "the update of A's subscription on B's stream")

		// Unsubscribed through B, the subscription on A ends: a round of a
		// touch and a progress marker, both from A, brings the marker alone.
		// A hears of it over pub/sub, maybe after B answered: a few rounds.
		if r := b.request(2, "resources/unsubscribe", `{"uri":"test://static"}`); !strings.Contains(r.body, `"result":{}`) {
			t.Fatalf("resources/unsubscribe on B: %d %s", r.status, r.body)
		}
		ended := false
		for i := 0; i < 20 && !ended; i++ {
			a.request(2, "tools/call", `{"name":"mcp_a_touch","arguments":{"uri":"test://static"}}`)
			marker := fmt.Sprintf("round-%d", i)
			a.request(2, "tools/call", `{"name":"mcp_a_progress","arguments":{"steps":1},"_meta":{"progressToken":"`+marker+`"}}`)
			ended = true
			for l := range stream {
				if strings.Contains(l, "resources/updated") {
					ended = false
				}
				if strings.Contains(l, `"`+marker+`"`) {
					break
				}
			}
		}
		if !ended {
			t.Errorf("resources/unsubscribe through B did not end the subscription made on A")
		}
	})

	t.Run("a task created on A, read through B", func(t *testing.T) {
		r := a.request(3, "tools/call", `{"name":"mcp_a_slow","arguments":{"ms":300},"task":{"ttl":60000}}`)
		var created struct {
			Result struct{ Task struct{ TaskID string } }
		}
		if err := json.Unmarshal([]byte(r.body), &created); err != nil || !strings.HasPrefix(created.Result.Task.TaskID, "plughost-") {
			t.Fatalf("a task-augmented call on A: %s; want a task id naming A (plughost-<replica>/a/<id>)", r.body)
		}
		id := created.Result.Task.TaskID
		if got := b.request(4, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id)); !strings.Contains(got.body, `"taskId":"`+id+`"`) || strings.Contains(got.body, `"error"`) {
			t.Errorf("tasks/get on B: %s", got.body)
		}
		res := b.request(5, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
		if txt, isErr := resultText(t, res.msg(t)); txt != "slept 300ms" || isErr {
			t.Errorf("tasks/result on B: %s", res.body)
		}
		waitLineWith(t, stream, "A's task status on B's stream", `"method":"notifications/tasks/status"`, `"taskId":"`+id+`"`)
	})

	t.Run("a task on a replica that is gone", func(t *testing.T) {
		got := b.request(6, "tasks/get", `{"taskId":"plughost-gone0/a/1"}`)
		if _, msg := errorOf(t, got.msg(t)); !strings.Contains(msg, "replica gone0") || !strings.Contains(msg, "not connected") {
			t.Errorf("tasks/get of a task of a replica that is gone: %s; want an error naming the replica", got.body)
		}
	})

	t.Run("log level set on A, applied on B", func(t *testing.T) {
		if r := a.request(7, "logging/setLevel", `{"level":"critical"}`); !strings.Contains(r.body, `"result":{}`) {
			t.Fatalf("logging/setLevel on A: %s", r.body)
		}
		b.request(8, "tools/call", `{"name":"mcp_a_log","arguments":{"level":"error","message":"below-the-level"}}`)
		b.request(9, "tools/call", `{"name":"mcp_a_log","arguments":{"level":"critical","message":"at-the-level"}}`)
		lineBefore(t, stream, "at-the-level", "below-the-level", "B's log messages after the level was set on A")

		// A session with no stream: B learns the level from the record it
		// reads for the request. The test server may write a message after
		// its answer (which then has no session to go to), so a call is
		// repeated until its answer carries the message that passes.
		d := newRaw(t, urlA)
		d.initialize()
		d.request(1, "logging/setLevel", `{"level":"info"}`)
		onB := &rawClient{t: t, url: urlB, session: d.session, accept: "application/json, text/event-stream"}
		passed := false
		for i := 0; i < 20 && !passed; i++ {
			r := onB.request(2, "tools/call", `{"name":"mcp_a_log","arguments":{"level":"debug","message":"debug-message"}}`)
			if strings.Contains(r.body, "debug-message") {
				t.Fatalf("a debug message of a call on B, the level set to info on A: %s", r.body)
			}
			r = onB.request(3, "tools/call", `{"name":"mcp_a_log","arguments":{"level":"info","message":"info-message"}}`)
			passed = strings.Contains(r.body, "info-message")
		}
		if !passed {
			t.Errorf("no info message in the answers of 20 calls on B, the level set to info on A")
		}
	})

	t.Run("progress", func(t *testing.T) {
		// The call's answer is not a stream: progress goes to the session's
		// stream, on B.
		a.request(10, "tools/call", `{"name":"mcp_a_progress","arguments":{"steps":2},"_meta":{"progressToken":"tok-a"}}`)
		waitLine(t, stream, `"progressToken":"tok-a","total":2`, "progress of a call on A on B's stream")
		// The call's answer is a stream: progress goes on it, ahead of the result.
		streamed := &rawClient{t: t, url: urlA, session: c.session, accept: "application/json, text/event-stream"}
		// (The test server may write progress after its answer: then it goes
		// to the session's stream.)
		r := streamed.request(11, "tools/call", `{"name":"mcp_a_progress","arguments":{"steps":2},"_meta":{"progressToken":"tok-s"}}`)
		if !strings.Contains(lastEvent(r), "sent 2") {
			t.Fatalf("a streamed call's answer: %s; want its result last", r.body)
		}
		for step := 1; step <= 2; step++ {
			want := fmt.Sprintf(`"progress":%d,"progressToken":"tok-s"`, step)
			if !strings.Contains(r.body, want) {
				waitLine(t, stream, want, "progress a streamed call on A sent after its answer, on B's stream")
			}
		}
	})
	// Last: A dies (its store closed: no subscription, no publish) while B
	// waits on tasks/result of a task A holds; B answers with an error naming
	// A once A stopped giving signs of life, and at once afterwards.
	t.Run("the replica holding a task dies", func(t *testing.T) {
		r := a.request(20, "tools/call", `{"name":"mcp_a_slow","arguments":{"ms":60000},"task":{"ttl":120000}}`)
		var created struct {
			Result struct{ Task struct{ TaskID string } }
		}
		if err := json.Unmarshal([]byte(r.body), &created); err != nil || created.Result.Task.TaskID == "" {
			t.Fatalf("a long task on A: %s", r.body)
		}
		id := created.Result.Task.TaskID
		replicaA, _ := strings.CutPrefix(strings.Split(id, "/")[0], "plughost-")
		result := make(chan reply, 1)
		go func() { result <- b.request(21, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id)) }()
		// tasks/get through B works while A lives, so A runs B's requests.
		if got := b.request(22, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id)); !strings.Contains(got.body, `"status":"working"`) {
			t.Fatalf("tasks/get on B of A's running task: %s", got.body)
		}
		storeA.Close()
		res := <-result
		// (Usually "stopped answering"; "not connected" if the request left B
		// only after A died.)
		if _, msg := errorOf(t, res.msg(t)); !strings.Contains(msg, "replica "+replicaA+", which ") {
			t.Errorf("tasks/result on B when A died: %s; want an error naming replica %s", res.body, replicaA)
		}
		got := b.request(23, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id))
		if _, msg := errorOf(t, got.msg(t)); !strings.Contains(msg, "replica "+replicaA+", which is not connected") {
			t.Errorf("tasks/get on B after A died: %s; want an error naming replica %s", got.body, replicaA)
		}
	})
}
