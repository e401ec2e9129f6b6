package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/cluster"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

var bins testbin.Set

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, &bins, func() (testbin.Set, error) {
		return testbin.Build(map[string]string{
			"plughost":                    "./cmd/host",
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"testserver":                  "./internal/testserver",
		})
	}))
}

// Tools of the replicas' config: gh is hidden behind search, fs is pinned.
const (
	hidden = "mcp_gh_noop"
	pinned = "mcp_fs_echo"
)

// start runs a redis-server and n replicas serving gh (deferred) and fs
// (pinned) test servers with discovery on and the given ttl.
func start(t *testing.T, n, ttl int) *cluster.Cluster {
	t.Helper()
	server := func(deferred bool) map[string]any {
		return map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": []string{}, "deferred": deferred}
	}
	return startWith(t, n, map[string]any{
		"enabled":   true,
		"servers":   map[string]any{"gh": server(true), "fs": server(false)},
		"discovery": map[string]any{"enabled": true, "ttl": ttl, "use_regex": true},
	})
}

// startWith runs a redis-server and n replicas of the tools.mcp config mcp.
func startWith(t *testing.T, n int, mcp map[string]any) *cluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("multi-replica test: runs redis-server and plughost serve processes: heavy integration test, skipped under -short")
	}
	if _, err := testredis.Binary(); err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: %v ***\n\n", t.Name(), err)
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Options{
		Plughost: bins.Path("plughost"), Replicas: n, Dir: t.TempDir(),
		Environ: []string{"PATH=" + os.Getenv("PATH")},
		MCP:     mcp,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			for i, r := range c.Replicas {
				t.Logf("replica %d stderr:\n%s", i, r.Stderr)
			}
		}
	})
	return c
}

// turnsLeft reads, from Redis itself, how many turns the session's unlock
// of tool has left (0: none).
func turnsLeft(t *testing.T, c *cluster.Cluster, session, tool string) int {
	t.Helper()
	s, err := redisstore.Open(redisstore.Options{URL: secret.URL(c.Redis.URL(0)), Prefix: "cluster:"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(context.Background(), session)
	if err != nil {
		t.Fatalf("session %s in Redis: %v", session, err)
	}
	return st.Unlocks().Unlocked[tool]
}

func search(ctx context.Context, cl *cluster.Client) error {
	text, isErr, err := cl.CallTool(ctx, "tool_search_tool_regex", map[string]any{"pattern": "^" + hidden + "$"})
	if err == nil && (isErr || !strings.Contains(text, hidden)) {
		err = fmt.Errorf("search found no %s: %s", hidden, text)
	}
	return err
}

func echo(ctx context.Context, cl *cluster.Client, text string) error {
	got, isErr, err := cl.CallTool(ctx, pinned, map[string]any{"text": text})
	if err == nil && (isErr || got != text) {
		err = fmt.Errorf("echo %q answered %q (isError %v)", text, got, isErr)
	}
	return err
}

// A search on replica A unlocks the tool for a call on B and the list on C;
// the TTL counts turns made on any replica.
func TestUnlockAndTurnsAcrossReplicas(t *testing.T) {
	const ttl = 3
	c := start(t, 3, ttl)
	ctx := context.Background()
	cl := c.NewClient(1)
	cl.Pin(0)
	if err := cl.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	if names, err := cl.ToolNames(ctx); err != nil || slices.Contains(names, hidden) {
		t.Fatalf("tools/list on A before the search: %v %v", names, err)
	}
	if err := search(ctx, cl); err != nil {
		t.Fatal(err)
	}
	cl.Pin(2)
	if names, err := cl.ToolNames(ctx); err != nil || !slices.Contains(names, hidden) {
		t.Fatalf("tools/list on C after the search on A: %v %v", names, err)
	}
	if left := turnsLeft(t, c, cl.Session(), hidden); left != ttl {
		t.Fatalf("turns left after the search: %d, want %d", left, ttl)
	}
	// Turns on B, C and A: each takes one turn off; the third hides it.
	for i, r := range []int{1, 2, 0} {
		cl.Pin(r)
		if err := echo(ctx, cl, fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
		want := ttl - 1 - i
		if left := turnsLeft(t, c, cl.Session(), hidden); left != want {
			t.Fatalf("after turn %d (on replica %d): %d turns left, want %d", i+1, r, left, want)
		}
	}
	cl.Pin(1)
	if names, err := cl.ToolNames(ctx); err != nil || slices.Contains(names, hidden) {
		t.Errorf("tools/list on B after %d turns: %v %v, want the unlock gone", ttl, names, err)
	}
	// A call of the hidden tool by name on B unlocks it again (and runs it).
	if text, isErr, err := cl.CallTool(ctx, hidden, nil); err != nil || isErr || text != "ok" {
		t.Errorf("exact-name call on B: %q %v %v", text, isErr, err)
	}
}

// A server asks the client for a sampling during a call on replica A; the
// client POSTs its answer to replica B (a load balancer without sticky
// sessions), which forwards it to A through Redis: the call completes with
// the client's answer. And an answer to a request no replica sent is
// accepted and dropped.
func TestClientAnswerOnAnotherReplica(t *testing.T) {
	c := startWith(t, 2, map[string]any{
		"enabled": true,
		"servers": map[string]any{"ai": map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": []string{"-faithful"}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := c.NewClient(1)
	cl.Capabilities = map[string]any{"sampling": map[string]any{}}
	cl.Pin(1)
	if err := cl.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	answer := func(method string, params json.RawMessage) (any, error) {
		return map[string]any{"role": "assistant", "model": "test", "content": map[string]any{"type": "text", "text": "answered on B"}}, nil
	}
	res, asked, err := cl.CallAnswering(ctx, 0, 1, "mcp_ai_sample", map[string]any{"prompt": "hi"}, answer)
	if err != nil {
		t.Fatalf("call on A answered on B: %v (asked %v)", err, asked)
	}
	if !slices.Equal(asked, []string{"sampling/createMessage"}) || !strings.Contains(string(res), "answered on B") {
		t.Errorf("asked %v, result %s; want one sampling request and the answer given on B", asked, res)
	}
	stray := map[string]any{"jsonrpc": "2.0", "id": "plughost-00000000-1", "result": map[string]any{}}
	if _, err := cl.Send(ctx, 1, stray); err != nil {
		t.Errorf("a response no replica asked for: %v, want it accepted (202) and dropped", err)
	}
}

// Sessions spread their calls over three replicas at random; one replica
// is killed mid-load. Every call is answered (those in flight on the dead
// replica are retried on another), no session is lost and no unlock either.
func TestKillReplicaMidLoad(t *testing.T) {
	const ttl, sessions, calls = 1000, 12, 40
	c := start(t, 3, ttl)
	ctx := context.Background()
	clients := make([]*cluster.Client, sessions)
	for i := range clients {
		clients[i] = c.NewClient(uint64(i + 1))
		if err := clients[i].Initialize(ctx); err != nil {
			t.Fatal(err)
		}
		if err := search(ctx, clients[i]); err != nil {
			t.Fatal(err)
		}
	}
	var done atomic.Int64
	killAt := int64(sessions * calls / 3)
	killed := make(chan struct{})
	var kill sync.Once
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i, cl := range clients {
		wg.Go(func() {
			for j := range calls {
				if err := echo(ctx, cl, fmt.Sprintf("session %d call %d", i, j)); err != nil {
					errs <- fmt.Errorf("session %d call %d: %w", i, j, err)
					return
				}
				if done.Add(1) == killAt {
					kill.Do(func() { c.Replicas[1].Kill(); close(killed) })
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	select {
	case <-killed:
	default:
		t.Fatal("the load ended before the kill")
	}
	retries := 0
	for i, cl := range clients {
		retries += cl.Retries
		names, err := cl.ToolNames(ctx)
		if err != nil || !slices.Contains(names, hidden) {
			t.Errorf("session %d after the load: %v %v, want its unlock of %s listed", i, names, err, hidden)
			continue
		}
		// Each call ends one turn; a retried call may have ended one on
		// the dead replica too.
		if left := turnsLeft(t, c, cl.Session(), hidden); left > ttl-calls || left < ttl-calls-cl.Retries {
			t.Errorf("session %d: %d turns left after %d calls (%d retried), want %d…%d", i, left, calls, cl.Retries, ttl-calls-cl.Retries, ttl-calls)
		}
	}
	if retries == 0 {
		t.Error("no request was retried: the killed replica served nothing after the kill?")
	}
	t.Logf("%d sessions × %d calls over 3 replicas, replica 1 killed after %d calls: %d requests retried on another replica", sessions, calls, killAt, retries)
}

// Redis is killed and restarted mid-load: calls fail (503 naming the
// store) only while it is down; afterwards every session goes on with its
// state (Redis keeps its append-only file).
func TestRedisRestartMidLoad(t *testing.T) {
	const ttl, sessions = 1000, 6
	c := start(t, 3, ttl)
	ctx := context.Background()
	clients := make([]*cluster.Client, sessions)
	for i := range clients {
		clients[i] = c.NewClient(uint64(100 + i))
		if err := clients[i].Initialize(ctx); err != nil {
			t.Fatal(err)
		}
		if err := search(ctx, clients[i]); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var down, up time.Time // when Redis was stopped and when it answered again
	type failure struct {
		at  time.Time
		err error
	}
	var failures []failure
	ok := make([]int, sessions)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Go(func() {
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				began := time.Now()
				err := echo(ctx, cl, fmt.Sprintf("session %d call %d", i, j))
				mu.Lock()
				if err != nil {
					failures = append(failures, failure{began, err})
				} else {
					ok[i]++
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(20 * time.Millisecond) // a client backs off
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // traffic before the outage (a load phase, not a wait)
	mu.Lock()
	down = time.Now()
	mu.Unlock()
	c.Redis.Stop()
	storeDown(ctx, t, c, 0)
	time.Sleep(time.Second) // the outage lasts a second of traffic
	if err := c.Redis.Start(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	up = time.Now()
	mu.Unlock()
	time.Sleep(time.Second) // traffic after the recovery
	close(stop)
	wg.Wait()

	if len(failures) == 0 {
		t.Error("no call failed while Redis was down")
	}
	// Calls in flight when Redis was killed fail too; reconnecting takes a
	// moment after it is back.
	const inFlight, grace = time.Second, 2 * time.Second
	for _, f := range failures {
		var he *cluster.HTTPError
		switch {
		case f.at.Before(down.Add(-inFlight)):
			t.Errorf("a call begun %v before Redis was killed failed: %v", down.Sub(f.at), f.err)
		case f.at.After(up.Add(grace)):
			t.Errorf("a call begun %v after Redis came back failed: %v", f.at.Sub(up), f.err)
		case !errors.As(f.err, &he) && !isRPCStoreError(f.err):
			t.Errorf("a call failed without naming the store: %v", f.err)
		case he != nil && (he.Status != 503 || !strings.Contains(he.Body, "session store unavailable: redis at redis://127.0.0.1:")):
			t.Errorf("a call failed with %d %s, want 503 naming the store", he.Status, he.Body)
		}
	}
	for i, cl := range clients {
		if err := echo(ctx, cl, "after"); err != nil {
			t.Errorf("session %d after the restart: %v", i, err)
		}
		if names, err := cl.ToolNames(ctx); err != nil || !slices.Contains(names, hidden) {
			t.Errorf("session %d lost its unlock across the Redis restart: %v %v", i, names, err)
		}
	}
	for i := range c.Replicas {
		if status, body, err := c.Ready(ctx, i); err != nil || status != 200 {
			t.Errorf("replica %d /readyz after the restart: %d %s %v", i, status, body, err)
		}
	}
	t.Logf("Redis down for %v: %d calls failed, all begun while it was down (or in flight when it went); calls answered per session: %v", up.Sub(down), len(failures), ok)
}

// storeDown checks that replica i says it is not ready while Redis is
// down, in /readyz and in the API's status, naming the store.
func storeDown(ctx context.Context, t *testing.T, c *cluster.Cluster, i int) {
	t.Helper()
	if status, body, err := c.Ready(ctx, i); err != nil || status != 503 || !strings.Contains(body, `"up":false`) {
		t.Errorf("/readyz with Redis down: %d %s %v; want 503 with the store down", status, body, err)
	}
	var st struct {
		Ready bool
		Store *struct {
			Name string
			Up   bool
		}
	}
	status, body, err := c.Status(ctx, i)
	if err == nil {
		err = json.Unmarshal([]byte(body), &st)
	}
	if err != nil || status != 200 || st.Ready || st.Store == nil || st.Store.Up || !strings.HasPrefix(st.Store.Name, "redis at ") {
		t.Errorf("/api/status with Redis down: %d %s %v; want ready false and the store named, down", status, body, err)
	}
}

func isRPCStoreError(err error) bool {
	var re *cluster.RPCError
	return errors.As(err, &re) && strings.Contains(re.Message, "session store unavailable")
}
