package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/internal/bench"
)

func newBenchReplicasCommand(g *globals) *cobra.Command {
	var o bench.ReplicasOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replicas",
		Short: "Load-test gateway replicas sharing sessions in Redis: 1 vs 3 replicas, memory vs Redis store",
		Long: `bench replicas runs real redis-server processes (Debian's redis-server must be on
PATH) and three sets of ` + "`plughost serve`" + ` processes on loopback, side by side: one replica
with the in-memory session store, one replica with Redis, three replicas sharing one
Redis. Each serves the built-in demo server twice (pinned, and deferred behind search),
with discovery on; every session searches once (one unlock), then makes echo calls whose
answers are checked, each call sent to a replica at random. In one run it measures:
  - calls/s and p50/p99 latency of --sessions concurrent sessions × --per-session calls
    on each setup, alternating --rounds rounds (median round);
  - one client's sequential per-call latency on one replica with each store, and one
    Redis round trip (a GETEX of a session's key), alternating (--calls each): what the Redis round trips add
    per call, and how many Redis commands one call costs;
  - Redis's memory per session, over --memory-sessions sessions;
  - the CPU time (from /proc) each setup's processes spend per 1,000 calls — the
    replicas' own (serve and plugins), their MCP servers', redis-server's — and from
    it the calls/s at which one Redis core saturates and the replica cores that takes;
  - with --share S (root: a writable cgroup hierarchy), one replica with the in-memory
    store, then 1, 2 and 3 replicas on one Redis, each replica held to S CPUs by a
    cgroup of its own, alternating rounds: what Redis costs a replica when redis-server
    does not share its CPU, and whether replicas add capacity when each has its own;
  - with --cpuprofile DIR, a CPU profile of the memory and the Redis replica's serve
    process under the same load (go tool pprof DIR/redis.pprof).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			o.Plughost, o.Server, o.Environ = exe, []string{exe, "demo-server"}, os.Environ()
			r, err := bench.Replicas(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			printReplicasBench(g.stdout, o, r)
			for _, s := range append(r.Setups, r.Scaling...) {
				if s.Lost+s.Mismatched > 0 {
					return fmt.Errorf("%s: %d calls lost and %d mismatched", s.Name, s.Lost, s.Mismatched)
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Sessions, "sessions", 30, "concurrent client sessions")
	cmd.Flags().IntVar(&o.CallsPerSession, "per-session", 100, "calls per session and round")
	cmd.Flags().IntVar(&o.Rounds, "rounds", 3, "load rounds per setup, alternating")
	cmd.Flags().IntVar(&o.Calls, "calls", 2000, "calls per store in the per-call comparison")
	cmd.Flags().IntVar(&o.MemorySessions, "memory-sessions", 1000, "sessions of the Redis memory measurement")
	cmd.Flags().StringVar(&o.ProfileDir, "cpuprofile", "", "also write CPU profiles of the memory and the Redis replica's serve process under the same load into this folder (memory.pprof, redis.pprof)")
	cmd.Flags().IntVar(&o.ProfileSeconds, "profile-seconds", 10, "length of each --cpuprofile profile")
	cmd.Flags().Float64Var(&o.Share, "share", 0, "also measure 1, 2 and 3 replicas each held to this many CPUs (e.g. 0.3; needs root for cgroups)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printReplicasBench(w io.Writer, o bench.ReplicasOptions, r bench.ReplicasResult) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
	fmt.Fprintf(w, "replicas load: %d sessions × %d echo calls, each call to a replica at random, median of %d alternating rounds\n",
		o.Sessions, o.CallsPerSession, max(o.Rounds, 1))
	for _, s := range r.Setups {
		fmt.Fprintf(w, "  %-28s %6.0f calls/s   p50 %s  p99 %s   lost %d  mismatched %d   rounds %.0f\n",
			s.Name+":", s.Throughput, ms(s.Latency.P50), ms(s.Latency.P99), s.Lost, s.Mismatched, s.Rounds)
	}
	fmt.Fprintf(w, "CPU-seconds per 1,000 calls (utime + stime from /proc, over every round)\n")
	for _, s := range r.Setups {
		fmt.Fprintf(w, "  %-28s plughost %.3f   MCP servers %.3f   redis-server %.3f\n", s.Name+":", s.CPU.Plughost, s.CPU.Servers, s.CPU.Redis)
	}
	if sat := r.Saturation; sat.RedisCallsPerCore > 0 {
		fmt.Fprintf(w, "  one Redis core saturates at ≈ %.0f calls/s; one replica core (plughost + servers) serves ≈ %.0f calls/s: ≈ %.1f replica cores per Redis core\n",
			sat.RedisCallsPerCore, sat.ReplicaCallsPerCore, sat.ReplicaCores)
	}
	if len(r.Scaling) > 0 {
		fmt.Fprintf(w, "scaling: each replica held to %.2g CPUs by a cgroup of its own, one Redis, median of %d alternating rounds\n", o.Share, max(o.Rounds, 1))
		one, mem := scalingBases(r.Scaling)
		for _, s := range r.Scaling {
			rel := fmt.Sprintf("%.2f× one Redis replica", s.Throughput/one)
			if s.Store == "memory" {
				rel = fmt.Sprintf("one Redis replica serves %.2f× this", one/mem)
			}
			fmt.Fprintf(w, "  %-32s %6.0f calls/s (%s)   p50 %s  p99 %s   lost %d  mismatched %d   rounds %.0f\n",
				s.Name+":", s.Throughput, rel, ms(s.Latency.P50), ms(s.Latency.P99), s.Lost, s.Mismatched, s.Rounds)
		}
	}
	if r.ScalingError != "" {
		fmt.Fprintf(w, "scaling: not measured: %s\n", r.ScalingError)
	}
	fmt.Fprintf(w, "per-call latency, one client, one replica, %d calls each (alternating rounds)\n", r.Memory.N)
	fmt.Fprintf(w, "  in-memory store  p50 %8s  p99 %8s\n", us(r.Memory.P50), us(r.Memory.P99))
	fmt.Fprintf(w, "  Redis store      p50 %8s  p99 %8s   (+%s p50, +%s p99)\n", us(r.Redis.P50), us(r.Redis.P99),
		us(r.Redis.P50-r.Memory.P50), us(r.Redis.P99-r.Memory.P99))
	fmt.Fprintf(w, "  one Redis read (GETEX)  p50 %8s  p99 %8s\n", us(r.RoundTrip.P50), us(r.RoundTrip.P99))
	fmt.Fprintf(w, "  Redis commands per tools/call: %.1f\n", r.CommandsPerCall)
	fmt.Fprintf(w, "Redis memory per session (initialize + one unlock): %.0f bytes (value %d bytes, MEMORY USAGE of the key %d bytes)\n",
		r.BytesPerSession, r.ValueBytes, r.KeyBytes)
}

// scalingBases returns the calls/s of the one-replica Redis and in-memory
// setups among the scaling figures.
func scalingBases(scaling []bench.SetupStats) (redis, memory float64) {
	for _, s := range scaling {
		switch {
		case s.Store == "memory":
			memory = s.Throughput
		case s.Replicas == 1 && redis == 0:
			redis = s.Throughput
		}
	}
	return redis, memory
}
