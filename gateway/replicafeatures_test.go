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
	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// faithfulReplica starts a replica serving the test server "a" with
// -faithful (resources, logging, progress, tasks; tasks/list pages of
// taskPage tasks), its sessions in Redis at url, and returns its MCP URL and its store (closing it cuts the replica
// off from the others, as if it died).
func faithfulReplica(t *testing.T, url string) (string, *redisstore.Store) {
	t.Helper()
	const prefix = "replica-features:"
	store, err := redisstore.Open(redisstore.Options{URL: secret.URL(url), Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := startHostWith(t, host.Options{SessionStore: store, TaskListPage: taskPage}, map[string]any{"a": testserver(nil, "-name", "a", "-faithful")},
		func(m map[string]any) {
			m["gateway"] = map[string]any{"store": map[string]any{"type": "redis", "url": url, "prefix": prefix}}
		})
	mcpURL, _ := serveHTTP(t, h)
	return mcpURL, store
}

// taskPage is the most tasks a tasks/list answer of the tests' replicas
// holds: a few tasks take several pages.
const taskPage = 2

// sessionOn returns a client of the session of c that sends its requests
// to the replica at url, and takes no event stream on its answers (so
// what a request sends goes to the session's stream).
// replicaPair is two replicas (A and B) on one Redis, and a session begun
// on A, with a client for it on each.
type replicaPair struct {
	srv        *testredis.Server
	urlA, urlB string
	storeA     *redisstore.Store
	c, a, b    *rawClient
}

func startPair(t *testing.T) replicaPair {
	t.Helper()
	p := replicaPair{srv: testredis.New(t)}
	p.urlA, p.storeA = faithfulReplica(t, p.srv.URL(0))
	p.urlB, _ = faithfulReplica(t, p.srv.URL(0))
	p.c = newRaw(t, p.urlA)
	p.c.initialize()
	p.a, p.b = sessionOn(p.c, p.urlA), sessionOn(p.c, p.urlB)
	return p
}

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
	t.Parallel() // its own servers, host and front door
	p := startPair(t)
	urlA, storeA, urlB, c, a, b := p.urlA, p.storeA, p.urlB, p.c, p.a, p.b
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

// createTask makes a task-augmented call of mcp_a_slow sleeping ms through
// c and returns the task's id.
func createTask(t *testing.T, c *rawClient, ms int) string {
	t.Helper()
	r := c.request(1, "tools/call", fmt.Sprintf(`{"name":"mcp_a_slow","arguments":{"ms":%d},"task":{"ttl":120000}}`, ms))
	var created struct {
		Result struct{ Task struct{ TaskID string } }
	}
	if err := json.Unmarshal([]byte(lastEvent(r)), &created); err != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("a task-augmented call: %s", r.body)
	}
	return created.Result.Task.TaskID
}

// taskPages is what paging through tasks/list gave: the tasks' ids and
// statuses in order, the number of pages, and the last page's _meta.
type taskPages struct {
	ids      []string
	statuses map[string]string
	pages    int
	meta     map[string]any
}

// listTasks pages through tasks/list with c, failing on an error or a page
// larger than taskPage.
func listTasks(t *testing.T, c *rawClient) taskPages {
	t.Helper()
	got := taskPages{statuses: map[string]string{}}
	cursor := ""
	for got.pages < 50 {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		r := c.request(1, "tasks/list", params)
		var page struct {
			Result *struct {
				Tasks []struct {
					TaskID, Status string
				}
				NextCursor string
				Meta       map[string]any `json:"_meta"`
			}
		}
		if err := json.Unmarshal([]byte(lastEvent(r)), &page); err != nil || page.Result == nil {
			t.Fatalf("tasks/list %s: %d %s", params, r.status, r.body)
		}
		got.pages++
		if len(page.Result.Tasks) > taskPage {
			t.Errorf("a tasks/list page of %d tasks; want at most %d", len(page.Result.Tasks), taskPage)
		}
		for _, task := range page.Result.Tasks {
			got.ids = append(got.ids, task.TaskID)
			got.statuses[task.TaskID] = task.Status
		}
		got.meta = page.Result.Meta
		if cursor = page.Result.NextCursor; cursor == "" {
			return got
		}
	}
	t.Fatalf("tasks/list: more than %d pages", got.pages)
	return got
}

// A session's tasks are listed on every replica, whichever replica created
// them, page by page, with current statuses; another session's never.
func TestReplicasListTasks(t *testing.T) {
	integration(t)
	t.Parallel() // its own servers, host and front door
	p := startPair(t)
	srv, urlA, storeA, urlB, a, b := p.srv, p.urlA, p.storeA, p.urlB, p.a, p.b
	d := newRaw(t, urlB)
	d.initialize()
	dA, dB := sessionOn(d, urlA), sessionOn(d, urlB)

	// c: two tasks on A, one on B, one more on A; d: one on each.
	mine := []string{createTask(t, a, 10), createTask(t, a, 10), createTask(t, b, 10), createTask(t, a, 10)}
	theirs := []string{createTask(t, dB, 10), createTask(t, dA, 10)}
	for client, ids := range map[*rawClient][]string{b: mine, dB: theirs} { // every task done
		for _, id := range ids {
			if got := client.request(2, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id)); !strings.Contains(got.body, "slept 10ms") {
				t.Fatalf("tasks/result of %s: %s", id, got.body)
			}
		}
	}

	t.Run("every replica lists the session's tasks of both, in order, page by page", func(t *testing.T) {
		for name, client := range map[string]*rawClient{"A": a, "B": b} {
			got := listTasks(t, client)
			if !slices.Equal(got.ids, mine) {
				t.Errorf("tasks/list through %s: %v; want the session's %v in the order it created them", name, got.ids, mine)
			}
			if want := (len(mine) + taskPage - 1) / taskPage; got.pages != want {
				t.Errorf("tasks/list through %s took %d pages; want %d (%d tasks, %d a page)", name, got.pages, want, len(mine), taskPage)
			}
			for _, id := range mine {
				if got.statuses[id] != "completed" {
					t.Errorf("tasks/list through %s: %s is %q; want completed", name, id, got.statuses[id])
				}
			}
			if got.meta != nil {
				t.Errorf("tasks/list through %s: _meta %v; want none (nothing missing)", name, got.meta)
			}
		}
	})

	t.Run("another session's tasks are never listed", func(t *testing.T) {
		for name, client := range map[string]*rawClient{"A": dA, "B": dB} {
			if got := listTasks(t, client); !slices.Equal(got.ids, theirs) {
				t.Errorf("the other session's tasks/list through %s: %v; want its own %v alone", name, got.ids, theirs)
			}
		}
	})

	t.Run("statuses are current", func(t *testing.T) {
		id := createTask(t, a, 60000)
		if got := listTasks(t, b); got.statuses[id] != "working" {
			t.Errorf("a running task on A listed through B: %q; want working", got.statuses[id])
		}
		b.request(3, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id))
		if got := listTasks(t, b); got.statuses[id] != "cancelled" {
			t.Errorf("a cancelled task on A listed through B: %q; want cancelled", got.statuses[id])
		}
		mine = append(mine, id)
	})

	t.Run("a cursor tasks/list did not give", func(t *testing.T) {
		for _, cursor := range []string{"nonsense!", "MTIz"} {
			got := b.request(4, "tasks/list", fmt.Sprintf(`{"cursor":%q}`, cursor))
			if code, msg := errorOf(t, got.msg(t)); code != -32602 || !strings.Contains(msg, "cursor") {
				t.Errorf("tasks/list with cursor %q: %s; want -32602 naming the cursor", cursor, got.body)
			}
		}
	})

	t.Run("a replica holding tasks of the session is gone", func(t *testing.T) {
		storeA.Close()
		got := listTasks(t, b)
		if len(got.ids) != 1 || got.ids[0] != mine[2] {
			t.Errorf("tasks/list through B, A gone: %v; want B's task %s", got.ids, mine[2])
		}
		replicaA, _ := strings.CutPrefix(strings.Split(mine[0], "/")[0], "plughost-")
		if note, _ := got.meta["plughost/partial"].(string); !strings.Contains(note, "replica "+replicaA) || !strings.Contains(note, "not connected") {
			t.Errorf("tasks/list through B, A gone: _meta %v; want plughost/partial naming replica %s", got.meta, replicaA)
		}
		// Said once: the record forgets A, so the next list is whole.
		if again := listTasks(t, b); len(again.ids) != 1 || again.meta["plughost/partial"] != nil {
			t.Errorf("the next tasks/list through B: %v, _meta %v; want B's task and no partial note", again.ids, again.meta)
		}
	})

	// Once B notices (its copy of the session, which names B alone now,
	// may answer until then), the session read fails (503), or the request
	// to another replica does (a JSON-RPC error): either names the store.
	t.Run("Redis down", func(t *testing.T) {
		srv.Stop()
		var last string
		if !testwait.Until(15*time.Second, func() bool {
			got := b.request(5, "tasks/list", `{}`)
			last = fmt.Sprintf("%d %s", got.status, got.body)
			return strings.Contains(got.body, "session store unavailable: redis at")
		}) {
			t.Errorf("tasks/list with Redis down: %s; want an error naming the store", last)
		}
	})
}

// One replica on the memory store pages tasks/list the same way.
func TestTasksListPagesOnOneReplica(t *testing.T) {
	integration(t)
	h := startHostWith(t, host.Options{TaskListPage: taskPage}, map[string]any{"a": testserver(nil, "-name", "a", "-faithful")}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	other := newRaw(t, url)
	other.initialize()
	var mine []string
	for range 3 {
		mine = append(mine, createTask(t, c, 10))
	}
	theirs := createTask(t, other, 10)
	if got := listTasks(t, c); !slices.Equal(got.ids, mine) || got.pages != 2 {
		t.Errorf("tasks/list: %v in %d pages; want %v in 2", got.ids, got.pages, mine)
	}
	if got := listTasks(t, other); !slices.Equal(got.ids, []string{theirs}) {
		t.Errorf("the other session's tasks/list: %v; want %s alone", got.ids, theirs)
	}
}
