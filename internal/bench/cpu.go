package bench

import (
	"strings"
	"time"

	"github.com/plughost/plughost/internal/cluster"
	"github.com/plughost/plughost/internal/proctree"
)

// CPUPer1000 is the CPU time (user + system, from /proc) processes spent
// per 1,000 calls, in seconds.
type CPUPer1000 struct {
	// Plughost is the replicas' own processes: plughost serve and its
	// transport plugins.
	Plughost float64 `json:"plughost_seconds"`
	// Servers is the MCP servers the replicas run.
	Servers float64 `json:"servers_seconds"`
	// Redis is redis-server (0 with the in-memory store).
	Redis float64 `json:"redis_seconds"`
}

// cpuSample is the CPU time used so far by a cluster's processes.
type cpuSample struct{ plughost, servers, redis time.Duration }

// sampleCPU reads the CPU time of c's replicas (serve and plugins apart
// from the servers) and of its redis-server.
func sampleCPU(c *cluster.Cluster) cpuSample {
	var s cpuSample
	for _, r := range c.Replicas {
		t := sampleTree(r.PID(), true)
		s.plughost += t.plughost
		s.servers += t.servers
	}
	if c.Redis != nil {
		s.redis = max(proctree.CPU(c.Redis.PID()), 0)
	}
	return s
}

// treeSample is the CPU time and write system calls of a process tree so
// far, plughost's own processes apart from the MCP servers.
type treeSample struct {
	plughost, servers            time.Duration
	plughostWrites, serverWrites int64
}

// sampleTree reads the process tree under root: root itself is plughost's
// (serve) when owned, else an MCP server; below it, transport plugins
// (mcp-transport-*) are plughost's and everything else is a server.
func sampleTree(root int, owned bool) treeSample {
	var s treeSample
	add := func(pid int, ours bool) {
		cpu, writes := max(proctree.CPU(pid), 0), max(proctree.WriteCalls(pid), 0)
		if ours {
			s.plughost, s.plughostWrites = s.plughost+cpu, s.plughostWrites+writes
		} else {
			s.servers, s.serverWrites = s.servers+cpu, s.serverWrites+writes
		}
	}
	add(root, owned)
	for _, p := range proctree.Descendants(root) {
		add(p.PID, strings.HasPrefix(p.Name, "mcp-transport-"))
	}
	return s
}

// minus is what the tree spent between before and s.
func (s treeSample) minus(before treeSample) treeSample {
	return treeSample{plughost: s.plughost - before.plughost, servers: s.servers - before.servers,
		plughostWrites: s.plughostWrites - before.plughostWrites, serverWrites: s.serverWrites - before.serverWrites}
}

// plus adds what another span spent.
func (s treeSample) plus(o treeSample) treeSample {
	return treeSample{plughost: s.plughost + o.plughost, servers: s.servers + o.servers,
		plughostWrites: s.plughostWrites + o.plughostWrites, serverWrites: s.serverWrites + o.serverWrites}
}

// per1000 turns the CPU used between two samples over calls into seconds
// per 1,000 calls.
func per1000(before, after cpuSample, calls int) CPUPer1000 {
	f := func(a, b time.Duration) float64 { return (b - a).Seconds() * 1000 / float64(max(calls, 1)) }
	return CPUPer1000{Plughost: f(before.plughost, after.plughost), Servers: f(before.servers, after.servers), Redis: f(before.redis, after.redis)}
}

// Saturation estimates, from CPU per call, where one Redis core saturates.
type Saturation struct {
	// RedisCallsPerCore is the calls/s at which redis-server's one core
	// would be busy (Redis runs commands on one thread).
	RedisCallsPerCore float64 `json:"redis_calls_per_core"`
	// ReplicaCallsPerCore is the calls/s one core of a replica (plughost
	// and its servers) serves.
	ReplicaCallsPerCore float64 `json:"replica_calls_per_core"`
	// ReplicaCores is how many replica cores it takes to saturate Redis.
	ReplicaCores float64 `json:"replica_cores_to_saturate_redis"`
}

func saturation(c CPUPer1000) Saturation {
	var s Saturation
	if c.Redis > 0 {
		s.RedisCallsPerCore = 1000 / c.Redis
	}
	if replica := c.Plughost + c.Servers; replica > 0 {
		s.ReplicaCallsPerCore = 1000 / replica
		if c.Redis > 0 {
			s.ReplicaCores = replica / c.Redis
		}
	}
	return s
}
