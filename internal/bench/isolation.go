package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/proctree"
)

// IsolationResult is what sessions of their own cost on a server with
// isolation "session".
type IsolationResult struct {
	// Sessions is how many sessions each opened a connection.
	Sessions int `json:"sessions"`
	// FirstCall is the latency of each session's first call, which opens
	// its connection (plugin, server, initialize, tools/list); NextCall that
	// of its second call, on the open connection.
	FirstCall Latency `json:"first_call"`
	NextCall  Latency `json:"next_call"`
	// Total is the wall time of opening every session's connection, one
	// after the other.
	Total time.Duration `json:"total_ns"`
	// Processes counts the processes the sessions started; RSSBytes their
	// resident memory in all, PerSessionRSS that divided by Sessions.
	Processes     int   `json:"processes"`
	RSSBytes      int64 `json:"rss_bytes"`
	PerSessionRSS int64 `json:"per_session_rss_bytes"`
	// Closed is how long closing every session took until the last of
	// their processes was gone; Left counts those still running after 30 s.
	Closed time.Duration `json:"closed_ns"`
	Left   int           `json:"left"`
}

// SessionIsolation starts one server of o with isolation "session" and
// opens sessions sessions, one after the other, each calling o.Tool twice;
// then closes them all and waits for their processes to go.
func SessionIsolation(ctx context.Context, o Options, sessions int) (IsolationResult, error) {
	r := IsolationResult{Sessions: sessions}
	h, err := launchHost(ctx, o, map[string]any{"s0": map[string]any{"enabled": true, "command": o.Command, "args": o.Args,
		"isolation": "session", "max_sessions": sessions, "isolation_idle_seconds": 3600}}, false)
	if err != nil {
		return r, err
	}
	defer h.Close()
	before := proctree.Descendants(os.Getpid())
	name := "mcp_s0_" + o.Tool
	args, _ := json.Marshal(o.ToolArgs)
	var first, next []time.Duration
	var open []*host.Session
	began := time.Now()
	for range sessions {
		s := h.NewSession()
		open = append(open, s)
		for _, into := range []*[]time.Duration{&first, &next} {
			t0 := time.Now()
			if err := checkedHost(s.Call(ctx, name, args)); err != nil {
				return r, fmt.Errorf("session %d: %w", len(open), err)
			}
			*into = append(*into, time.Since(t0))
		}
	}
	r.Total = time.Since(began)
	r.FirstCall, r.NextCall = summarize(first), summarize(next)
	started := newSince(before)
	r.Processes = len(started)
	for _, p := range started {
		if rss := proctree.RSS(p.PID); rss > 0 {
			r.RSSBytes += rss
		}
	}
	r.PerSessionRSS = r.RSSBytes / int64(sessions)
	closing := time.Now()
	for _, s := range open {
		if err := s.Close(ctx); err != nil {
			return r, err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(proctree.Alive(started)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r.Closed = time.Since(closing)
	r.Left = len(proctree.Alive(started))
	return r, nil
}

// newSince returns this process's descendants not in before.
func newSince(before []proctree.Proc) []proctree.Proc {
	var out []proctree.Proc
	for _, p := range proctree.Descendants(os.Getpid()) {
		if !slices.ContainsFunc(before, func(b proctree.Proc) bool { return b.PID == p.PID && b.Start == p.Start }) {
			out = append(out, p)
		}
	}
	return out
}
