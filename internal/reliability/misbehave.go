//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/plughost/plughost/internal/proctree"
)

// misbehaving runs one gateway with a well-behaved server beside servers
// that each misbehave in one way: junk on stdout, silence, a 300 MB line,
// a list_changed flood, 20,000 tools, an exit loop, a 50 MB result. Each
// must degrade only itself, with an error naming the server and what went
// wrong, while the gateway's memory stays bounded and the good server
// answers every call.
func (s *suite) misbehaving() error {
	manyTools, window := 2000, 3*time.Second
	if s.full {
		manyTools, window = 20000, 15*time.Second
	}
	silent := s.stdio("-hang-initialize")
	silent["timeouts"] = map[string]any{"initialize_seconds": 2}
	servers := map[string]any{
		"steady":   s.stdio(),
		"garbage":  s.stdio("-garbage"),
		"silent":   silent,
		"hugeline": s.stdio("-huge-line", "300"),
		"exitloop": s.stdio("-fail-start"),
		"many":     s.stdio("-tools", fmt.Sprint(manyTools)),
	}
	sv, err := s.startServe("misbehaving", serveOptions{servers: servers})
	if err != nil {
		return err
	}
	peak := sv.peakRSS()
	// The flood and the big results run beside it, each on a gateway of its
	// own (what they measure is their own process), while this one waits
	// for the bad servers to fail (the garbage one takes the 10 s junk grace).
	side := make(chan error, 1)
	go func() {
		if err := s.flood(window); err != nil {
			side <- err
			return
		}
		side <- s.bigResult()
	}()
	failing := []string{"garbage", "silent", "hugeline", "exitloop"}
	_, err = sv.waitServers(90*time.Second, "good servers connected, bad ones failed", func(v map[string]serverListing) bool {
		for _, n := range []string{"steady", "many"} {
			if v[n].State != "connected" {
				return false
			}
		}
		for _, n := range failing {
			if v[n].LastError == "" {
				return false
			}
		}
		return true
	})
	if err != nil {
		peak()
		<-side
		return err
	}
	sent, ok, firstFail := s.callSteady(sv, window)
	views, err := sv.servers(context.Background())
	if err != nil {
		<-side
		return err
	}
	s.check("misbehaving", "good server beside them", "100% of calls ok",
		fmt.Sprintf("%d of %d ok%s", ok, sent, ifNotEmpty("; first failure: ", firstFail)), ok == sent && sent > 0)

	c := sv.newClient()
	defer c.close(context.Background())
	if err := c.initialize(context.Background()); err != nil {
		<-side
		return err
	}
	expect := map[string][]string{
		"garbage":  {"not a JSON-RPC message", "garbage line 1"},
		"silent":   {"initialize", "no answer within"},
		"hugeline": {"larger than the 64 MiB limit", "max_message_mb"},
		"exitloop": {"exit status 3", "failing at the first request"},
	}
	for _, n := range failing {
		v := views[n]
		o := c.call(context.Background(), "mcp_"+n+"_noop", map[string]any{})
		callErr := o.failure()
		good := v.State != "connected" && containsAll(v.LastError, expect[n]...) && strings.Contains(callErr, n)
		s.check("misbehaving", n, fmt.Sprintf("only %s fails; status error contains %q; a call's error names it", n, strings.Join(expect[n], `", "`)),
			fmt.Sprintf("state %s, restarts %d, last error %q; call: %q", v.State, v.Restarts, oneLine(v.LastError, 200), oneLine(callErr, 160)), good)
	}
	maxRestarts := int(window.Seconds()/0.2) + 10
	s.check("misbehaving", "exit loop backs off", fmt.Sprintf("≤ %d restarts in the run (backoff 0.2–1 s)", maxRestarts),
		fmt.Sprintf("%d restarts", views["exitloop"].Restarts), views["exitloop"].Restarts <= maxRestarts)
	s.check("misbehaving", fmt.Sprintf("%d tools", manyTools), fmt.Sprintf("connected with %d+ tools", manyTools),
		fmt.Sprintf("state %s, %d tools", views["many"].State, views["many"].Tools), views["many"].State == "connected" && views["many"].Tools >= manyTools)
	p := peak()
	limit := int64(400 << 20)
	s.check("misbehaving", "gateway memory", fmt.Sprintf("peak RSS ≤ %s through all of it (the 300 MB line is refused at 64 MiB)", mb(limit)),
		fmt.Sprintf("peak RSS %s", mb(p)), p > 0 && p <= limit)
	sv.stop()
	return <-side
}

// callSteady calls the steady server's echo for d and counts the answers.
func (s *suite) callSteady(sv *serve, d time.Duration) (sent, ok int, firstFail string) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c := sv.newClient()
	defer c.close(context.Background())
	if err := c.initialize(ctx); err != nil {
		return 1, 0, err.Error()
	}
	for i := 0; ctx.Err() == nil; i++ {
		token := fmt.Sprintf("steady-%d", i)
		o := c.call(context.Background(), "mcp_steady_echo", map[string]any{"text": token})
		sent++
		if o.failure() == "" && o.text == token {
			ok++
		} else if firstFail == "" {
			firstFail = o.failure()
		}
		time.Sleep(5 * time.Millisecond)
	}
	return sent, ok, firstFail
}

// flood: a server announcing list_changed every millisecond costs a few
// log lines and a fraction of a core, and the server beside it answers.
func (s *suite) flood(window time.Duration) error {
	sv, err := s.startServe("flood", serveOptions{servers: map[string]any{"steady": s.stdio(), "flood": s.stdio("-flood", "1ms")}})
	if err != nil {
		return err
	}
	defer sv.stop()
	if _, err := sv.waitServers(60*time.Second, "servers connected", connected("steady", "flood")); err != nil {
		return err
	}
	time.Sleep(time.Second) // the flood starts once the tools were listed
	logBefore := strings.Count(sv.logText(), "\n")
	cpuBefore := cpuTicks(sv.pid())
	sent, ok, firstFail := s.callSteady(sv, window)
	cpu := float64(cpuTicks(sv.pid())-cpuBefore) / clockTicks / window.Seconds()
	lines := float64(strings.Count(sv.logText(), "\n")-logBefore) / window.Seconds()
	views, err := sv.servers(context.Background())
	if err != nil {
		return err
	}
	s.check("misbehaving", "list_changed flood (1/ms)", "flood stays connected; ≤ 2 log lines/s; gateway < 50% of a core (with the calls); the other server 100% ok",
		fmt.Sprintf("state %s; %.1f log lines/s; gateway CPU %.0f%% of a core; other server %d of %d ok%s", views["flood"].State, lines, 100*cpu,
			ok, sent, ifNotEmpty("; first failure: ", firstFail)),
		views["flood"].State == "connected" && lines <= 2 && cpu < 0.5 && ok == sent && sent > 0)
	return nil
}

// startBig starts serve (case name) with one server, "big" (entry),
// waits for it, and returns a client that has initialized and made one
// small call to warm the path, and a function that closes both.
func (s *suite) startBig(name string, entry map[string]any) (*serve, *client, func(), error) {
	sv, err := s.startServe(name, serveOptions{servers: map[string]any{"big": entry}})
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := sv.waitServers(60*time.Second, "big connected", connected("big")); err != nil {
		sv.stop()
		return nil, nil, nil, err
	}
	c := sv.newClient()
	done := func() { c.close(context.Background()); sv.stop() }
	if err := c.initialize(context.Background()); err != nil {
		done()
		return nil, nil, nil, err
	}
	c.call(context.Background(), "mcp_big_big", map[string]any{"chars": 1000})
	time.Sleep(500 * time.Millisecond)
	return sv, c, done, nil
}

// bigResult: one large result reaches the client as a bounded view naming
// its artifact, and the gateway's peak RSS grows by at most twice the
// payload.
func (s *suite) bigResult() error {
	chars := 20_000_000
	if s.full {
		chars = 50_000_000
	}
	sv, c, done, err := s.startBig("bigresult", s.stdio())
	if err != nil {
		return err
	}
	defer done()
	base := proctree.RSS(sv.pid())
	stop := sv.peakRSS()
	o := c.call(context.Background(), "mcp_big_big", map[string]any{"chars": chars})
	peak := stop()
	good := o.failure() == "" && len(o.text) < 1<<20 && strings.Contains(o.text, "artifact")
	growth := float64(peak-base) / float64(chars)
	s.check("misbehaving", fmt.Sprintf("%d MB result", chars/1_000_000), "a bounded view (< 1 MiB) naming the artifact; peak RSS growth ≤ 2× the payload",
		fmt.Sprintf("view %d bytes%s; RSS %s before, peak %s during (growth %.2f× the payload)", len(o.text), ifNotEmpty(", error ", o.failure()),
			mb(base), mb(peak), growth),
		good && growth <= 2)

	// Over max_message_mb (64 MiB): spooled to an artifact while read.
	const spooled = 100_000_000
	base = proctree.RSS(sv.pid())
	stop = sv.peakRSS()
	o = c.call(context.Background(), "mcp_big_big", map[string]any{"chars": spooled})
	peak = stop()
	path, size := spooledFile(o.text)
	views, err := sv.servers(context.Background())
	if err != nil {
		return err
	}
	growth = float64(peak-base) / float64(spooled)
	s.check("misbehaving", "100 MB result (over max_message_mb)", "spooled while read: a bounded view naming the file, which holds all 100 MB; no restart; RSS growth ≤ the 64 MiB read before spooling starts + 16 MB",
		fmt.Sprintf("view %d bytes%s; file %s (%d bytes); restarts %d; RSS %s before, peak %s (growth %.2f×)", len(o.text), ifNotEmpty(", error ", o.failure()),
			path, size, views["big"].Restarts, mb(base), mb(peak), growth),
		o.failure() == "" && len(o.text) < 1<<20 && size == spooled && views["big"].Restarts == 0 && peak-base <= 80<<20)
	return nil
}

// spooledFile returns the file a spooled result's view names, and its
// size (-1 when there is none).
func spooledFile(view string) (string, int64) {
	path := spoolPath.FindString(view)
	if fi, err := os.Stat(path); err == nil {
		return path, fi.Size()
	}
	return path, -1
}

// spoolPath finds the file a spooled result names.
var spoolPath = regexp.MustCompile(`/\S+/\.artifacts/mcp/\S+\.txt`)

// containsAll reports whether s contains every sub.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
