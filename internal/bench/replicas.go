package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/internal/cluster"
)

// ReplicasOptions say what `plughost bench replicas` runs.
type ReplicasOptions struct {
	// Plughost is the plughost binary the replicas run.
	Plughost string
	// Server is the argv of the stdio server every replica serves twice:
	// pinned (its echo is the load) and deferred (a search unlocks its echo
	// in every session). It must offer echo(text).
	Server []string
	// Environ is the replicas' environment.
	Environ []string
	// Sessions, CallsPerSession and Rounds shape the load (as for bench
	// gateway); Calls is the size of the per-call latency comparison and
	// MemorySessions the number of sessions of the Redis memory figure.
	Sessions, CallsPerSession, Rounds, Calls, MemorySessions int
	// Share, when above 0, also runs 1, 2 and 3 replicas on one Redis with
	// each replica (serve, plugins, servers) held to this many CPUs by a
	// cgroup of its own (needs a writable cgroup hierarchy: root).
	Share float64
	// ProfileDir, when set, also takes a CPU profile of the serve process of
	// the in-memory and the Redis replica, each over ProfileSeconds of the
	// same load, into <ProfileDir>/{memory,redis}.pprof.
	ProfileDir     string
	ProfileSeconds int
}

// ReplicasResult is the outcome of Replicas.
type ReplicasResult struct {
	// Setups are the load figures: 1 replica with the in-memory store, 1
	// and 3 replicas with Redis (each call to a replica at random), the
	// median of alternating rounds each.
	Setups []SetupStats `json:"setups"`
	// Memory and Redis compare one client's sequential calls on one
	// replica with each store, alternating: the Redis round trips' cost.
	Memory Latency `json:"memory_store"`
	Redis  Latency `json:"redis_store"`
	// RoundTrip is one Redis round trip from this process — a read of a
	// session's key (GETEX), as the store makes — measured alternating with
	// the calls above: the unit the Redis store pays per read or write.
	RoundTrip Latency `json:"redis_round_trip"`
	// Saturation estimates where one Redis core saturates, from the CPU
	// per call of the "1 replica, Redis store" setup.
	Saturation Saturation `json:"saturation"`
	// Scaling are, with Share, one replica with the in-memory store, then
	// 1, 2 and 3 replicas with Redis, each replica held to Share CPUs;
	// ScalingError says why they were not measured.
	Scaling      []SetupStats `json:"scaling,omitempty"`
	ScalingError string       `json:"scaling_error,omitempty"`
	// CommandsPerCall is how many Redis commands one tools/call costs.
	CommandsPerCall float64 `json:"redis_commands_per_call"`
	// BytesPerSession is Redis's used_memory growth per session (after an
	// initialize and a search that unlocked one tool); ValueBytes is the
	// size of one session's stored value and KeyBytes Redis's MEMORY USAGE
	// of its key.
	BytesPerSession float64 `json:"redis_bytes_per_session"`
	ValueBytes      int64   `json:"redis_value_bytes"`
	KeyBytes        int64   `json:"redis_key_bytes"`
}

// SetupStats are one setup's load figures.
type SetupStats struct {
	Name     string `json:"name"`
	Replicas int    `json:"replicas"`
	Store    string `json:"store"`
	LoadStats
	// Rounds are the calls/s of each round.
	Rounds []float64 `json:"rounds"`
	// CPU is what the setup's processes spent per 1,000 calls, over
	// every round.
	CPU CPUPer1000 `json:"cpu_per_1000_calls"`
}

const (
	pinnedEcho = "mcp_pinned_echo"
	hiddenEcho = "mcp_hidden_echo"
)

// Replicas starts three clusters side by side — one replica with the
// in-memory store, one replica with Redis, three replicas with Redis —
// and runs the same load on each in alternating rounds; then it measures
// the per-call cost of Redis, the Redis commands a call costs and Redis's
// memory per session.
func Replicas(ctx context.Context, o ReplicasOptions) (ReplicasResult, error) {
	var r ReplicasResult
	dir, err := os.MkdirTemp("", "plughost-bench-replicas-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	setups := []*loadSetup{{name: "1 replica, in-memory store", n: 1, memory: true},
		{name: "1 replica, Redis store", n: 1}, {name: "3 replicas, Redis store", n: 3}}
	for _, s := range setups {
		s.debug = o.ProfileDir != ""
	}
	for i, s := range setups {
		if err := s.start(ctx, o, filepath.Join(dir, strconv.Itoa(i)), uint64(i*1_000_000)); err != nil {
			return r, err
		}
		defer s.c.Close()
	}
	r.Setups = alternateLoad(ctx, setups, o)
	r.Saturation = saturation(r.Setups[1].CPU)
	if o.ProfileDir != "" {
		for i, name := range []string{"memory", "redis"} {
			load := func() { clusterLoad(ctx, setups[i].clients, pinnedEcho, max(o.CallsPerSession/10, 1)) }
			if err := profileUnderLoad(ctx, setups[i].c, "profile", load, o.ProfileSeconds, filepath.Join(o.ProfileDir, name+".pprof")); err != nil {
				return r, fmt.Errorf("%s: CPU profile: %w", setups[i].name, err)
			}
		}
	}
	if err := redisCost(ctx, o, setups[0].c, setups[1].c, &r); err != nil {
		return r, err
	}
	if err := redisMemory(ctx, o, setups[1].c, &r); err != nil {
		return r, err
	}
	if o.Share > 0 {
		r.Scaling, err = scaling(ctx, o, filepath.Join(dir, "scaling"))
		if err != nil {
			r.ScalingError = err.Error()
		}
	}
	return r, nil
}

// loadSetup is one cluster of the load comparison.
type loadSetup struct {
	name    string
	n       int
	memory  bool
	wrap    func(int, []string) []string
	debug   bool // serve profiles (ReplicasOptions.ProfileDir)
	c       *cluster.Cluster
	clients []*cluster.Client
	runs    []LoadStats
	calls   int
	cpu     cpuSample // spent over the runs
}

// start starts the setup's cluster in dir and opens its sessions.
func (s *loadSetup) start(ctx context.Context, o ReplicasOptions, dir string, seed uint64) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var err error
	if s.c, err = startBenchCluster(ctx, o, dir, s); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if s.clients, err = benchSessions(ctx, s.c, o.Sessions, seed); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// alternateLoad runs o.Rounds rounds of the load on each setup in turn,
// with the CPU its processes spend, and returns each setup's median round.
func alternateLoad(ctx context.Context, setups []*loadSetup, o ReplicasOptions) []SetupStats {
	for range max(o.Rounds, 1) {
		for _, s := range setups {
			before := sampleCPU(s.c)
			run := clusterLoad(ctx, s.clients, pinnedEcho, o.CallsPerSession)
			after := sampleCPU(s.c)
			s.runs = append(s.runs, run)
			s.calls += run.OK
			s.cpu.plughost += after.plughost - before.plughost
			s.cpu.servers += after.servers - before.servers
			s.cpu.redis += after.redis - before.redis
		}
	}
	out := make([]SetupStats, 0, len(setups))
	for _, s := range setups {
		st := SetupStats{Name: s.name, Replicas: s.n, Store: "redis", LoadStats: median(s.runs), CPU: per1000(cpuSample{}, s.cpu, s.calls)}
		if s.memory {
			st.Store = "memory"
		}
		for _, run := range s.runs {
			st.Rounds = append(st.Rounds, run.Throughput)
		}
		out = append(out, st)
	}
	return out
}

// profileUnderLoad writes a profile of c's first replica (kind: see
// cluster.Profile) over seconds while load runs again and again, to path.
func profileUnderLoad(ctx context.Context, c *cluster.Cluster, kind string, load func(), seconds int, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	done := make(chan struct{})
	var profile []byte
	var err error
	go func() {
		defer close(done)
		profile, err = c.Profile(ctx, 0, kind, time.Duration(max(seconds, 1))*time.Second)
	}()
	for {
		select {
		case <-done:
			if err != nil {
				return err
			}
			return os.WriteFile(path, profile, 0o600)
		default:
			load()
		}
	}
}

// scaling runs one replica with the in-memory store, then 1, 2 and 3
// replicas on one Redis each, every replica held to o.Share CPUs by a
// cgroup of its own, in alternating rounds: with the replica's CPU equal
// and redis-server outside it, the first two compare what Redis costs a
// replica, the last three show scaling.
func scaling(ctx context.Context, o ReplicasOptions, dir string) ([]SetupStats, error) {
	var groups []*cpuGroup
	defer func() {
		for _, g := range groups {
			_ = g.remove()
		}
	}()
	var setups []*loadSetup
	for n := 0; n <= 3; n++ { // 0: one replica with the in-memory store
		var mine []*cpuGroup
		for i := range max(n, 1) {
			g, err := newCPUGroup(fmt.Sprintf("plughost-bench-%d-%d-%d", os.Getpid(), n, i), o.Share)
			if err != nil {
				return nil, fmt.Errorf("a CPU share per replica needs a writable cgroup hierarchy (run as root on a host, or a container with cgroup delegation): %w", err)
			}
			groups, mine = append(groups, g), append(mine, g)
		}
		s := &loadSetup{name: fmt.Sprintf("%d × %.2g CPU, Redis store", n, o.Share), n: n,
			wrap: func(i int, argv []string) []string { return mine[i].wrap(argv) }}
		if n == 0 {
			s.name, s.n, s.memory = fmt.Sprintf("1 × %.2g CPU, in-memory store", o.Share), 1, true
		}
		if err := s.start(ctx, o, filepath.Join(dir, strconv.Itoa(n)), uint64(10_000_000*(n+1))); err != nil {
			return nil, err
		}
		defer s.c.Close()
		setups = append(setups, s)
	}
	out := alternateLoad(ctx, setups, o)
	for _, s := range setups {
		s.c.Close() // before the groups are removed
	}
	return out, nil
}

// startBenchCluster serves o.Server pinned and deferred, with discovery on.
func startBenchCluster(ctx context.Context, o ReplicasOptions, dir string, s *loadSetup) (*cluster.Cluster, error) {
	server := func(deferred bool) map[string]any {
		return map[string]any{"enabled": true, "command": o.Server[0], "args": o.Server[1:], "deferred": deferred}
	}
	return cluster.Start(ctx, cluster.Options{
		Plughost: o.Plughost, Replicas: s.n, Memory: s.memory, Dir: dir, Environ: o.Environ, Wrap: s.wrap, Debug: s.debug,
		MCP: map[string]any{
			"enabled":   true,
			"servers":   map[string]any{"pinned": server(false), "hidden": server(true)},
			"discovery": map[string]any{"enabled": true, "ttl": 1_000_000, "use_regex": true},
		},
	})
}

// benchSessions opens n sessions, each of which searches once (one unlock).
func benchSessions(ctx context.Context, c *cluster.Cluster, n int, seed uint64) ([]*cluster.Client, error) {
	out, err := openSessions(ctx, c, n, seed)
	if err != nil {
		return nil, err
	}
	for i, cl := range out {
		text, _, err := cl.CallTool(ctx, "tool_search_tool_regex", map[string]any{"pattern": "^" + hiddenEcho + "$"})
		if err != nil || !strings.Contains(text, hiddenEcho) {
			return nil, fmt.Errorf("session %d: search: %q %v", i, text, err)
		}
	}
	return out, nil
}

// clusterLoad runs one goroutine per session, each making calls calls of
// echo (a tool taking text) one at a time, every answer checked against
// its request.
func clusterLoad(ctx context.Context, clients []*cluster.Client, echo string, calls int) LoadStats {
	return measureLoad(len(clients), calls, func(i int, text string) (string, error) {
		got, isErr, err := clients[i].CallTool(ctx, echo, map[string]any{"text": text})
		if err == nil && isErr {
			err = fmt.Errorf("error result: %s", got)
		}
		return got, err
	})
}

// redisCost alternates one client's calls on the memory and the Redis
// replica, then counts the Redis commands of o.Calls calls.
func redisCost(ctx context.Context, o ReplicasOptions, mem, red *cluster.Cluster, r *ReplicasResult) error {
	clients := make([]*cluster.Client, 2)
	for i, c := range []*cluster.Cluster{mem, red} {
		cs, err := benchSessions(ctx, c, 1, 9_000_000)
		if err != nil {
			return err
		}
		clients[i] = cs[0]
	}
	call := func(cl *cluster.Client) caller {
		return func() error {
			_, isErr, err := cl.CallTool(ctx, pinnedEcho, map[string]any{"text": "x"})
			if err == nil && isErr {
				err = fmt.Errorf("echo failed")
			}
			return err
		}
	}
	rdb, err := redisClient(red)
	if err != nil {
		return err
	}
	defer rdb.Close()
	key := "cluster:session:" + clients[1].Session()
	read := func() error { return rdb.GetEx(ctx, key, 30*time.Minute).Err() }
	samples, err := alternate(o.Calls, call(clients[0]), call(clients[1]), read)
	if err != nil {
		return err
	}
	r.Memory, r.Redis, r.RoundTrip = summarize(samples[0]), summarize(samples[1]), summarize(samples[2])
	before, err := commandsProcessed(ctx, rdb)
	if err != nil {
		return err
	}
	for range o.Calls {
		if err := call(clients[1])(); err != nil {
			return err
		}
	}
	after, err := commandsProcessed(ctx, rdb)
	if err != nil {
		return err
	}
	r.CommandsPerCall = float64(after-before-1) / float64(o.Calls) // -1: the INFO that read "before"
	return nil
}

// redisMemory opens o.MemorySessions sessions (initialize and a search
// unlocking one tool each) and reads how much Redis's memory grew.
func redisMemory(ctx context.Context, o ReplicasOptions, red *cluster.Cluster, r *ReplicasResult) error {
	rdb, err := redisClient(red)
	if err != nil {
		return err
	}
	defer rdb.Close()
	before, err := usedMemory(ctx, rdb)
	if err != nil {
		return err
	}
	clients, err := benchSessions(ctx, red, o.MemorySessions, 7_000_000)
	if err != nil {
		return err
	}
	after, err := usedMemory(ctx, rdb)
	if err != nil {
		return err
	}
	r.BytesPerSession = float64(after-before) / float64(len(clients))
	key := "cluster:session:" + clients[0].Session()
	if r.ValueBytes, err = rdb.StrLen(ctx, key).Result(); err != nil {
		return fmt.Errorf("STRLEN %s: %w", key, err)
	}
	if r.KeyBytes, err = rdb.MemoryUsage(ctx, key).Result(); err != nil {
		return fmt.Errorf("MEMORY USAGE %s: %w", key, err)
	}
	return nil
}

func redisClient(c *cluster.Cluster) (*redis.Client, error) {
	opts, err := redis.ParseURL(c.Redis.URL(0))
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opts), nil
}

// infoField reads one numeric field of an INFO section.
func infoField(ctx context.Context, rdb *redis.Client, section, field string) (int64, error) {
	info, err := rdb.Info(ctx, section).Result()
	if err != nil {
		return 0, fmt.Errorf("INFO %s: %w", section, err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("INFO %s has no %s", section, field)
}

func usedMemory(ctx context.Context, rdb *redis.Client) (int64, error) {
	return infoField(ctx, rdb, "memory", "used_memory")
}

func commandsProcessed(ctx context.Context, rdb *redis.Client) (int64, error) {
	return infoField(ctx, rdb, "stats", "total_commands_processed")
}
