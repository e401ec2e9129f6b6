//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plughost/plughost/internal/proctree"
)

// keptPrefix is how a running server whose entry turned invalid says so.
const keptPrefix = "config entry invalid, still running previous settings: "

// reloadTypo: "enabled": "yes" written on a running server keeps it
// running its previous settings — same process, its tools answer — and
// the problem, with its JSON path, is in /api/servers and `mcp list`. A
// new server with the same typo is invalid.
func (s *suite) reloadTypo() error {
	sv, err := s.startServe("reload-typo", serveOptions{servers: map[string]any{"steady": s.stdio(), "typo": s.stdio()}})
	if err != nil {
		return err
	}
	defer sv.stop()
	before, err := sv.waitServers(60*time.Second, "servers connected", connected("steady", "typo"))
	if err != nil {
		return err
	}
	typo := s.stdio()
	typo["enabled"] = "yes"
	if _, err := sv.reload(map[string]any{"steady": s.stdio(), "typo": typo, "newtypo": typo}); err != nil {
		return err
	}
	want := keptPrefix + "tools.mcp.servers.typo.enabled: "
	views, err := sv.waitServers(30*time.Second, "typo's problem reported", func(v map[string]serverListing) bool {
		return strings.HasPrefix(v["typo"].LastError, want)
	})
	if err != nil {
		return err
	}
	c := sv.newClient()
	defer c.close(context.Background())
	if err := c.initialize(context.Background()); err != nil {
		return err
	}
	o := c.call(context.Background(), "mcp_typo_echo", map[string]any{"text": "still here"})
	list, _, err := s.cliOut(sv, "mcp-list", "mcp", "list")
	if err != nil {
		return err
	}
	t := views["typo"]
	s.check("reload-typo", "typo on a running server", "keeps its pid and answers; /api/servers and mcp list show "+strings.TrimSpace(want)+" …",
		fmt.Sprintf("state %s, pid %d → %d, call %q; last_error %q; mcp list shows it: %v", t.State, before["typo"].ServerPID, t.ServerPID,
			oneLine(o.text+o.failure(), 80), oneLine(t.LastError, 200), strings.Contains(list, want)),
		t.State == "connected" && t.ServerPID == before["typo"].ServerPID && o.failure() == "" && o.text == "still here" &&
			strings.HasPrefix(t.ConfigError, want) && strings.Contains(list, want))
	n := views["newtypo"]
	s.check("reload-typo", "typo on a new server", "invalid, naming tools.mcp.servers.newtypo.enabled",
		fmt.Sprintf("state %s, last_error %q", n.State, oneLine(n.LastError, 200)),
		n.State == "invalid" && strings.Contains(n.LastError, "tools.mcp.servers.newtypo.enabled"))
	return nil
}

// notificationFlood: a server writing list_changed, progress, log and
// resources/updated notifications in a tight loop costs the gateway a
// bounded fraction of a core with no client traffic; its state says it is
// throttled, then that it was disconnected for flooding; the server
// beside it answers.
func (s *suite) notificationFlood() error {
	window := 4 * time.Second
	if s.full {
		window = 8 * time.Second
	}
	sv, err := s.startServe("notification-flood", serveOptions{servers: map[string]any{"steady": s.stdio(), "flood": s.stdio("-notify-flood")}})
	if err != nil {
		return err
	}
	defer sv.stop()
	if _, err := sv.waitServers(60*time.Second, "servers connected", connected("steady", "flood")); err != nil {
		return err
	}
	time.Sleep(time.Second) // the flood starts once the tools were listed
	procs := func() []int { return append([]int{sv.pid()}, pluginPIDs(sv)...) }
	cpuBefore, gwBefore := cpuOf(procs()), cpuTicks(sv.pid())
	began := time.Now()
	throttled, _ := sv.waitServers(window, "flood throttled", func(v map[string]serverListing) bool { return v["flood"].Throttle != "" })
	if rest := window - time.Since(began); rest > 0 {
		time.Sleep(rest) // no client traffic: what the flood alone costs
	}
	secs := time.Since(began).Seconds()
	gw := float64(cpuTicks(sv.pid())-gwBefore) / clockTicks / secs
	all := float64(cpuOf(procs())-cpuBefore) / clockTicks / secs
	s.check("notification-flood", "gateway CPU, no client traffic", "< 10% of a core (serve; its plugins listed beside)",
		fmt.Sprintf("serve %.1f%% of a core, with its plugins %.1f%%, over %.0f s", 100*gw, 100*all, secs), gw < 0.10)
	s.check("notification-flood", "throttled state", `the flooding server's state says "throttled"`,
		fmt.Sprintf("state %s; %q", throttled["flood"].State, oneLine(throttled["flood"].Description, 240)),
		strings.Contains(throttled["flood"].Throttle, "throttled since"))
	views, err := sv.waitServers(40*time.Second, "flood disconnected", func(v map[string]serverListing) bool {
		return strings.Contains(v["flood"].LastError, "disconnected for flooding")
	})
	c := sv.newClient()
	defer c.close(context.Background())
	o := outcome{err: c.initialize(context.Background())}
	if o.err == nil {
		o = c.call(context.Background(), "mcp_steady_echo", map[string]any{"text": "beside"})
	}
	s.check("notification-flood", "disconnected for flooding", "the server is disconnected with a clear error and restarted with backoff; the server beside it answers",
		fmt.Sprintf("state %s, restarts %d, last error %q%s; steady answered %q", views["flood"].State, views["flood"].Restarts,
			oneLine(views["flood"].LastError, 200), ifNotEmpty(" ", errText(err)), oneLine(o.text+o.failure(), 80)),
		err == nil && o.text == "beside")
	return nil
}

// largeConfig: a reload from one server to many (full: 40,000; short:
// 4,000), disabled, each with arguments and a secret: the log says it in a
// few lines, RSS stays bounded, GET /api/servers answers a page fast, `mcp
// list` pages through all; a file over the 16 MiB limit is refused with
// an error naming it, the previous config kept.
func (s *suite) largeConfig() error {
	n := 4_000
	if s.full {
		n = 40_000
	}
	sv, err := s.startServe("large-config", serveOptions{servers: map[string]any{"steady": s.stdio()}})
	if err != nil {
		return err
	}
	defer sv.stop()
	if _, err := sv.waitServers(60*time.Second, "steady connected", connected("steady")); err != nil {
		return err
	}
	rssBefore := rssMB(sv.pid())
	logBefore := strings.Count(sv.logText(), "\n")
	peak := sv.peakRSS()
	began := time.Now()
	line, err := sv.reload(manyServers(s, n))
	took := time.Since(began)
	if err != nil {
		peak()
		return err
	}
	// The state log prints the reload's changes within a round (200 ms).
	_ = waitLog(sv, 30*time.Second, "servers disabled")
	time.Sleep(time.Second) // the memory return runs 100 ms after the apply
	peakMB, rssAfter := float64(peak())/(1<<20), rssMB(sv.pid())
	lines := strings.Count(sv.logText(), "\n") - logBefore
	s.check("large-config", fmt.Sprintf("reload to %d servers", n+1), "applied; ≤ 10 log lines",
		fmt.Sprintf("applied in %.1f s (%q); %d log lines", took.Seconds(), oneLine(line, 120), lines),
		strings.Contains(line, "config applied") && lines <= 10)
	limit := 150.0
	if s.full {
		limit = 400
	}
	s.check("large-config", "memory", fmt.Sprintf("RSS after ≤ %.0f MB", limit),
		fmt.Sprintf("RSS %.0f MB before, peak %.0f MB, %.0f MB after", rssBefore, peakMB, rssAfter), rssAfter <= limit)

	t0 := time.Now()
	body, status, err := sv.get(context.Background(), "/api/servers", true)
	apiTook := time.Since(t0)
	var page struct {
		Servers    []json.RawMessage     `json:"servers"`
		NextCursor string                `json:"next_cursor"`
		Totals     struct{ Servers int } `json:"totals"`
	}
	if err == nil {
		err = json.Unmarshal(body, &page)
	}
	s.check("large-config", "GET /api/servers (first page)", "≤ 500 servers, < 1 MB, < 2 s, next_cursor and the total",
		fmt.Sprintf("%d %d servers, %d bytes in %.2f s, next_cursor %q, total %d%s", status, len(page.Servers), len(body), apiTook.Seconds(),
			page.NextCursor, page.Totals.Servers, ifNotEmpty(" ", errText(err))),
		err == nil && status == 200 && len(page.Servers) <= 500 && len(body) < 1<<20 && apiTook < 2*time.Second &&
			page.NextCursor != "" && page.Totals.Servers == n+1)

	out, listTook, err := s.cliOut(sv, "mcp-list-json", "mcp", "list", "--json")
	var rows []json.RawMessage
	if err == nil {
		err = json.Unmarshal([]byte(out), &rows)
	}
	s.check("large-config", "mcp list (pages)", fmt.Sprintf("lists all %d servers", n+1),
		fmt.Sprintf("%d rows in %.1f s%s", len(rows), listTook.Seconds(), ifNotEmpty(" ", errText(err))), err == nil && len(rows) == n+1)

	return s.overLimit(sv, n+1)
}

// overLimit writes a config file over 16 MiB: the reload is refused naming
// the limit, and the previous config (want servers) keeps running.
func (s *suite) overLimit(sv *serve, want int) error {
	big := manyServers(s, 0)
	for i := 0; i < 70_000; i++ {
		big[fmt.Sprintf("pad-%05d", i)] = map[string]any{"enabled": false, "command": "true", "args": []string{strings.Repeat("x", 200)}}
	}
	line, err := sv.reload(big)
	if err != nil {
		return err
	}
	steady, err := sv.serverState("steady")
	body, _, _ := sv.get(context.Background(), "/api/servers?limit=1", true)
	var page struct {
		Totals struct{ Servers int } `json:"totals"`
		Apply  struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"apply"`
	}
	_ = json.Unmarshal(body, &page)
	s.check("large-config", "a config file over 16 MiB", "refused naming the 16 MiB limit; the previous config keeps running",
		fmt.Sprintf("%q; apply ok %v, error %q; %d servers, steady %s%s", oneLine(line, 100), page.Apply.OK, oneLine(page.Apply.Error, 200),
			page.Totals.Servers, steady, ifNotEmpty(" ", errText(err))),
		err == nil && !page.Apply.OK && strings.Contains(page.Apply.Error, "at most 16 MiB") && page.Totals.Servers == want &&
			steady == "connected")
	return nil
}

// serverState is one server's state, from GET /api/servers/{name}.
func (sv *serve) serverState(name string) (string, error) {
	body, status, err := sv.get(context.Background(), "/api/servers/"+name, true)
	if err != nil || status != 200 {
		return "", fmt.Errorf("GET /api/servers/%s: %d %v", name, status, err)
	}
	var d struct {
		Server struct{ State string } `json:"server"`
	}
	return d.Server.State, json.Unmarshal(body, &d)
}

// manyServers is n disabled servers, each with arguments and a secret, and
// the running "steady".
func manyServers(s *suite, n int) map[string]any {
	out := map[string]any{"steady": s.stdio()}
	for i := range n {
		out[fmt.Sprintf("server-%05d", i)] = map[string]any{"enabled": false, "command": "/bin/true",
			"args": []string{"--profile", fmt.Sprintf("profile-%d", i), "--description", "a server of the large-config case, disabled"},
			"env":  map[string]string{"SERVER_API_KEY": fmt.Sprintf("key-%05d-abcdefghijklmnop", i)}}
	}
	return out
}

// reload writes servers as the config's servers (the rest as serve started
// with), sends SIGHUP and returns serve's log line saying whether the
// config was applied.
func (sv *serve) reload(servers map[string]any) (string, error) {
	mcp := maps.Clone(sv.mcp)
	mcp["servers"] = servers
	raw, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcp}})
	if err != nil {
		return "", err
	}
	tmp := sv.cfg + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, sv.cfg); err != nil {
		return "", err
	}
	seen := strings.Count(sv.logText(), "  config ")
	if err := sv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return "", err
	}
	deadline := time.Now().Add(15 * time.Minute)
	for time.Now().Before(deadline) {
		lines := strings.Split(sv.logText(), "\n")
		count := 0
		for _, l := range lines {
			if strings.Contains(l, "  config ") {
				if count++; count > seen {
					return l, nil
				}
			}
		}
		select {
		case <-sv.exited:
			return "", fmt.Errorf("serve exited (%v) during a reload", sv.err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("no reload outcome in serve's log within 15 minutes")
}

// waitLog waits until serve's log contains text.
func waitLog(sv *serve, d time.Duration, text string) error {
	deadline := time.Now().Add(d)
	for !strings.Contains(sv.logText(), text) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %q in serve's log within %s", text, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// cliOut runs plughost with args against serve's config and HOME, keeps
// its output under the case's directory, and returns stdout and how long
// it took.
func (s *suite) cliOut(sv *serve, name string, args ...string) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "plughost"), append([]string{"--config", sv.cfg}, args...)...)
	cmd.Env = s.environ(sv.dir)
	cmd.Dir = sv.dir
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	began := time.Now()
	out, err := cmd.Output()
	took := time.Since(began)
	_ = os.WriteFile(filepath.Join(sv.dir, name+".out"), append(out, stderr.String()...), 0o600)
	if err != nil {
		return string(out), took, fmt.Errorf("plughost %s: %w: %s", strings.Join(args, " "), err, oneLine(stderr.String(), 200))
	}
	return string(out), took, nil
}

// pluginPIDs are serve's transport plugin processes.
func pluginPIDs(sv *serve) []int {
	var out []int
	for _, p := range proctree.Descendants(sv.pid()) {
		if strings.HasPrefix(p.Name, "mcp-transport") {
			out = append(out, p.PID)
		}
	}
	return out
}

// cpuOf sums the CPU ticks of pids.
func cpuOf(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		n += cpuTicks(pid)
	}
	return n
}

// rssMB is pid's RSS in MB.
func rssMB(pid int) float64 { return float64(proctree.RSS(pid)) / (1 << 20) }
