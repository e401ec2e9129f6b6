// Package cluster runs `plughost serve` replicas on loopback that share
// their sessions through a real redis-server, as a load balancer would see
// them, and a client that sends each request of a session to a replica
// picked at random: the harness of the multi-replica tests and of
// `plughost bench replicas`.
package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
)

// Options say what to run.
type Options struct {
	// Plughost is the plughost binary (its plugins beside it, as built).
	Plughost string
	// Replicas is how many `plughost serve` processes to run.
	Replicas int
	// MCP is the tools.mcp object of the replicas' config (servers,
	// discovery, …); the gateway's store and token file are set here.
	MCP map[string]any
	// Memory keeps each replica's sessions in its own memory instead of
	// Redis (for comparison: a session then works on one replica only).
	Memory bool
	// Dir holds the config, token, Redis data and each replica's home.
	Dir string
	// Environ is the replicas' base environment (PATH at least).
	Environ []string
	// Debug turns on tools.mcp.gateway.debug: every replica serves Go's
	// runtime profiles (see Cluster.Profile).
	Debug bool
	// Wrap, when set, rewrites replica i's command line (argv[0] is the
	// plughost binary) before it starts: e.g. to run it in a cgroup of
	// its own. The wrapper must exec the command, keeping the pid.
	Wrap func(replica int, argv []string) []string
}

// Cluster is a running set of replicas and their Redis.
type Cluster struct {
	// Redis is the redis-server (nil with Options.Memory).
	Redis *testredis.Server
	// Token is the gateway token every replica shares.
	Token secret.String
	// Replicas are the serve processes, in start order.
	Replicas []*Replica

	opts   Options
	config string
	http   *http.Client
}

// Replica is one `plughost serve` process.
type Replica struct {
	// URL is its MCP endpoint, http://127.0.0.1:<port>/mcp.
	URL string
	// Stderr is what it logged so far.
	Stderr *syncbuf.Buffer

	cmd  *exec.Cmd
	done chan struct{}
}

// PID returns the serve process's id (0 for an endpoint of Attach).
func (r *Replica) PID() int {
	if r.cmd == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// Attach returns a Cluster of MCP endpoints it did not start — e.g. a
// server serving streamable HTTP itself — so that its Clients load them
// as they load replicas (sending token, if any, as a bearer token). Its
// replicas are not Alive, and Close leaves them alone.
func Attach(token secret.String, urls ...string) *Cluster {
	c := &Cluster{Token: token, http: clientHTTP()}
	for _, u := range urls {
		done := make(chan struct{})
		close(done)
		c.Replicas = append(c.Replicas, &Replica{URL: u, Stderr: &syncbuf.Buffer{}, done: done})
	}
	return c
}

// Start starts Redis (unless opts.Memory) and opts.Replicas replicas, and
// waits until every replica is ready (/readyz 200).
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	c := &Cluster{opts: opts, http: clientHTTP()}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw) // crypto/rand never fails on supported platforms
	c.Token = secret.String(base64.RawURLEncoding.EncodeToString(raw))
	tokenFile := filepath.Join(opts.Dir, "gateway.token")
	if err := os.WriteFile(tokenFile, []byte(c.Token.Reveal()+"\n"), 0o600); err != nil {
		return nil, err
	}
	store := map[string]any{"type": "memory"}
	if !opts.Memory {
		redisDir := filepath.Join(opts.Dir, "redis")
		if err := os.MkdirAll(redisDir, 0o700); err != nil {
			return nil, err
		}
		srv, err := testredis.Start(redisDir)
		if err != nil {
			return nil, err
		}
		c.Redis = srv
		store = map[string]any{"type": "redis", "url": srv.URL(0), "prefix": "cluster:"}
	}
	mcp := map[string]any{}
	for k, v := range opts.MCP {
		mcp[k] = v
	}
	mcp["gateway"] = map[string]any{"token_file": tokenFile, "store": store, "debug": opts.Debug}
	b, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcp}}) // maps of JSON values encode
	c.config = filepath.Join(opts.Dir, "config.json")
	if err := os.WriteFile(c.config, b, 0o600); err != nil {
		c.Close()
		return nil, err
	}
	for i := range opts.Replicas {
		r, err := c.startReplica(ctx, i)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		c.Replicas = append(c.Replicas, r)
	}
	return c, nil
}

// startReplica runs one serve process and waits until it is ready.
func (c *Cluster) startReplica(ctx context.Context, i int) (*Replica, error) {
	home := filepath.Join(c.opts.Dir, fmt.Sprintf("replica-%d", i))
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	argv := []string{c.opts.Plughost, "--config", c.config,
		"--set", "tools.mcp.workspace=" + filepath.Join(home, "workspace"), "serve", "--listen", "127.0.0.1:0"}
	if c.opts.Wrap != nil {
		argv = c.opts.Wrap(i, argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append([]string(nil), c.opts.Environ...), "HOME="+home)
	cmd.Dir = home
	cmd.SysProcAttr = groupAttr() // Kill takes its plugins with it, like a pod
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r := &Replica{Stderr: &syncbuf.Buffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = r.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(r.done) }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "MCP gateway at "); ok {
				urls <- strings.TrimSpace(u)
			}
		}
	}()
	select {
	case r.URL = <-urls:
	case <-r.done:
		return nil, fmt.Errorf("plughost serve exited at start:\n%s", r.Stderr)
	case <-time.After(30 * time.Second):
		r.Kill()
		return nil, fmt.Errorf("plughost serve printed no URL within 30s:\n%s", r.Stderr)
	case <-ctx.Done():
		r.Kill()
		return nil, ctx.Err()
	}
	if err := c.waitReady(ctx, r); err != nil {
		r.Kill()
		return nil, err
	}
	return r, nil
}

// waitReady polls /readyz until it answers 200 (60 s at most).
func (c *Cluster) waitReady(ctx context.Context, r *Replica) error {
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		status, body, err := c.get(ctx, strings.TrimSuffix(r.URL, "/mcp")+"/readyz")
		if err == nil && status == http.StatusOK {
			return nil
		}
		last = fmt.Sprintf("%d %s %v", status, body, err)
		select {
		case <-r.done:
			return fmt.Errorf("plughost serve exited:\n%s", r.Stderr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("/readyz not ready within 60s: %s\n%s", last, r.Stderr)
}

// Ready returns replica i's /readyz status and body.
func (c *Cluster) Ready(ctx context.Context, i int) (int, string, error) {
	return c.get(ctx, strings.TrimSuffix(c.Replicas[i].URL, "/mcp")+"/readyz")
}

// Status returns replica i's GET /api/status status and body.
func (c *Cluster) Status(ctx context.Context, i int) (int, string, error) {
	return c.get(ctx, strings.TrimSuffix(c.Replicas[i].URL, "/mcp")+"/api/status")
}

// Profile returns a runtime profile of replica i's serve process over the
// next d (it needs Options.Debug): kind "profile" is CPU time, "allocs"
// the allocations made meanwhile; with d 0, "heap" is the heap in use now
// (after a garbage collection).
func (c *Cluster) Profile(ctx context.Context, i int, kind string, d time.Duration) ([]byte, error) {
	url := fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", strings.TrimSuffix(c.Replicas[i].URL, "/mcp"), kind, max(int(d.Seconds()), 1))
	if d == 0 {
		url = fmt.Sprintf("%s/debug/pprof/%s?gc=1", strings.TrimSuffix(c.Replicas[i].URL, "/mcp"), kind)
	}
	status, body, err := c.get(ctx, url)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %.200s", url, status, body)
	}
	return []byte(body), err
}

// RuntimeMemory is what a serve process's Go runtime holds, and has
// allocated, in bytes and objects.
type RuntimeMemory struct {
	// Heap is the heap in use (HeapInuse).
	Heap int64
	// Stacks is the memory of goroutine stacks (StackInuse).
	Stacks int64
	// Allocs and AllocBytes count the heap objects and bytes allocated
	// since the process started (Mallocs, TotalAlloc).
	Allocs, AllocBytes int64
}

// LiveMemory collects garbage in replica i's serve process gcs times (each
// collection also halves the stacks of goroutines using less than a
// quarter of theirs, as a process's periodic collections do over time; 0
// collects none) and returns what its runtime then holds (it needs
// Options.Debug).
func (c *Cluster) LiveMemory(ctx context.Context, i, gcs int) (RuntimeMemory, error) {
	var m RuntimeMemory
	url := strings.TrimSuffix(c.Replicas[i].URL, "/mcp") + "/debug/pprof/heap?debug=1"
	if gcs > 0 {
		url += "&gc=1"
	}
	var status int
	var body string
	var err error
	for range max(gcs, 1) {
		if status, body, err = c.get(ctx, url); err != nil {
			break
		}
	}
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %.200s", url, status, body)
	}
	if err != nil {
		return m, err
	}
	fields := map[string]*int64{"# HeapInuse = ": &m.Heap, "# Stack = ": &m.Stacks, "# Mallocs = ": &m.Allocs, "# TotalAlloc = ": &m.AllocBytes}
	found := 0
	for _, line := range strings.Split(body, "\n") {
		for prefix, dst := range fields {
			v, ok := strings.CutPrefix(line, prefix)
			if !ok {
				continue
			}
			v, _, _ = strings.Cut(v, " / ") // Stack is "inuse / sys"
			if *dst, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
				return m, fmt.Errorf("GET %s: %q: %w", url, line, err)
			}
			found++
		}
	}
	if found != len(fields) {
		return m, fmt.Errorf("GET %s: the answer lacks one of HeapInuse, Stack, Mallocs, TotalAlloc", url)
	}
	return m, nil
}

func (c *Cluster) get(ctx context.Context, url string) (int, string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+c.Token.Reveal())
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// Kill kills the replica's whole process group (the serve process and its
// plugins) with SIGKILL, as when a machine or pod dies, and waits for it.
func (r *Replica) Kill() {
	if r.cmd != nil && r.cmd.Process != nil {
		killGroup(r.cmd.Process) // gone already: nothing to do
	}
	<-r.done
}

// Alive reports whether the process is still running.
func (r *Replica) Alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// Close stops every replica (SIGTERM, then SIGKILL after 10 s) and Redis.
func (c *Cluster) Close() {
	var wg sync.WaitGroup
	for _, r := range c.Replicas {
		wg.Go(func() {
			if !r.Alive() {
				return
			}
			terminate(r.cmd.Process)
			select {
			case <-r.done:
			case <-time.After(10 * time.Second):
				r.Kill()
			}
			killGroup(r.cmd.Process) // leftovers of the group, if any
		})
	}
	wg.Wait()
	if c.Redis != nil {
		c.Redis.Stop()
	}
}

// clientHTTP is the connection pool of a cluster's clients: enough idle
// connections per replica for every session of a load to keep its own.
func clientHTTP() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// errNoReplica: every replica refused the connection.
var errNoReplica = errors.New("no replica accepted the connection")
