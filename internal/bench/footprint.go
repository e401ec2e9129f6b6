package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plughost/plughost/internal/cluster"
	"github.com/plughost/plughost/internal/copyfile"
	"github.com/plughost/plughost/internal/proctree"
)

// FootprintOptions say what `plughost bench footprint` runs.
type FootprintOptions struct {
	// Plughost is the plughost binary measured (its plugins beside it).
	Plughost string
	// Baseline, when set, is another plughost binary measured the same way,
	// alternately with Plughost, so that before/after ratios come from one
	// run on one machine state.
	Baseline string
	// Server is the argv of the stdio server each configured server runs
	// (the same for both binaries).
	Server []string
	// Environ is the processes' environment.
	Environ []string
	// Servers is how many stdio servers serve runs.
	Servers int
	// Runs is how many times each binary is started and measured.
	Runs int
	// Settle is how long serve idles after it is ready before its memory
	// is read.
	Settle time.Duration
}

// FootprintResult is the outcome of Footprint: the figures of Plughost and,
// with a baseline, of Baseline and the ratios between them.
type FootprintResult struct {
	Servers  int               `json:"servers"`
	Plughost FootprintFigures  `json:"plughost"`
	Baseline *FootprintFigures `json:"baseline,omitempty"`
	// Ratios are Plughost's figures over Baseline's (nil without one).
	Ratios *FootprintRatios `json:"ratios,omitempty"`
}

// FootprintFigures are one binary's start-up times over the runs and its
// idle memory (the median run, by plughost's own PSS).
type FootprintFigures struct {
	Binary string `json:"binary"`
	// StartupBest and StartupMedian are the time from starting serve to a
	// tools/list that holds the tools of every server.
	StartupBest   time.Duration `json:"startup_best_ns"`
	StartupMedian time.Duration `json:"startup_median_ns"`
	Startups      []float64     `json:"startups_ms"`
	// Idle is the memory of the median run.
	Idle FootprintMemory `json:"idle"`
}

// FootprintMemory is the resident memory, idle, of serve, of its transport
// plugin processes and of the MCP servers, in bytes.
type FootprintMemory struct {
	ServeRSS   int64 `json:"serve_rss"`
	ServePSS   int64 `json:"serve_pss"`
	Plugins    int   `json:"plugins"`
	PluginsRSS int64 `json:"plugins_rss"`
	PluginsPSS int64 `json:"plugins_pss"`
	ServersN   int   `json:"server_processes"`
	ServersRSS int64 `json:"servers_rss"`
	ServersPSS int64 `json:"servers_pss"`
}

// OwnRSS is plughost's own resident memory: serve plus its plugins.
func (m FootprintMemory) OwnRSS() int64 { return m.ServeRSS + m.PluginsRSS }

// OwnPSS is plughost's own proportional memory: serve plus its plugins.
func (m FootprintMemory) OwnPSS() int64 { return m.ServePSS + m.PluginsPSS }

// FootprintRatios compare two binaries' figures (measured / baseline).
type FootprintRatios struct {
	StartupMedian float64 `json:"startup_median"`
	OwnRSS        float64 `json:"own_rss"`
	OwnPSS        float64 `json:"own_pss"`
	PluginsRSS    float64 `json:"plugins_rss"`
	PluginsPSS    float64 `json:"plugins_pss"`
}

// footprintRun is one measured start of one binary.
type footprintRun struct {
	startup time.Duration
	mem     FootprintMemory
}

// Footprint starts `plughost serve` with o.Servers stdio servers o.Runs
// times per binary (alternating with o.Baseline when set, the order
// swapped every run), timing each start until every server's tools are
// listed, and reads the idle memory of serve, its plugins and its servers
// from /proc after o.Settle.
func Footprint(ctx context.Context, o FootprintOptions) (FootprintResult, error) {
	r := FootprintResult{Servers: o.Servers}
	binaries := []string{o.Plughost}
	if o.Baseline != "" {
		binaries = append(binaries, o.Baseline)
	}
	// Every measured executable runs from a copy of its own: a process
	// shares the pages of its executable file with every other process
	// running that file, so serve's PSS would otherwise depend on whether
	// this command or the servers run the very same plughost file.
	scratch, err := os.MkdirTemp("", "plughost-bench-footprint-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(scratch)
	server := filepath.Join(scratch, "footprint-server")
	if err := copyfile.New(o.Server[0], server, 0o700); err != nil {
		return r, fmt.Errorf("copy the server executable: %w", err)
	}
	o.Server = append([]string{server}, o.Server[1:]...)
	staged := make([]string, len(binaries))
	for i, b := range binaries {
		if staged[i], err = stagePlughost(b, filepath.Join(scratch, fmt.Sprint(i))); err != nil {
			return r, fmt.Errorf("copy %s: %w", b, err)
		}
	}
	runs := make([][]footprintRun, len(binaries))
	for run := range max(o.Runs, 1) {
		for k := range binaries {
			i := k
			if run%2 == 1 {
				i = len(binaries) - 1 - k
			}
			fr, err := footprintOnce(ctx, o, staged[i])
			if err != nil {
				return r, fmt.Errorf("%s, run %d: %w", binaries[i], run+1, err)
			}
			runs[i] = append(runs[i], fr)
		}
	}
	r.Plughost = footprintFigures(o.Plughost, runs[0])
	if o.Baseline != "" {
		b := footprintFigures(o.Baseline, runs[1])
		r.Baseline = &b
		r.Ratios = footprintRatios(r.Plughost, b)
	}
	return r, nil
}

// footprintOnce runs one serve of binary until every tool is listed, idles
// o.Settle and reads the memory of its process tree.
func footprintOnce(ctx context.Context, o FootprintOptions, binary string) (footprintRun, error) {
	dir, err := os.MkdirTemp("", "plughost-bench-footprint-")
	if err != nil {
		return footprintRun{}, err
	}
	defer os.RemoveAll(dir)
	servers := map[string]any{}
	for i := range o.Servers {
		servers[fmt.Sprintf("demo%d", i+1)] = map[string]any{"enabled": true, "command": o.Server[0], "args": o.Server[1:]}
	}
	began := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{
		Plughost: binary, Replicas: 1, Memory: true, Dir: dir, Environ: o.Environ,
		MCP: map[string]any{"enabled": true, "discovery": map[string]any{"enabled": false}, "servers": servers},
	})
	if err != nil {
		return footprintRun{}, err
	}
	defer c.Close()
	if err := waitAllListed(ctx, c, o.Servers); err != nil {
		return footprintRun{}, err
	}
	fr := footprintRun{startup: time.Since(began)}
	select {
	case <-time.After(o.Settle):
	case <-ctx.Done():
		return fr, ctx.Err()
	}
	fr.mem = treeMemory(c.Replicas[0].PID())
	return fr, nil
}

// waitAllListed polls tools/list until the tools of n servers (named
// demo1 … demoN) are all there (60 s at most).
func waitAllListed(ctx context.Context, c *cluster.Cluster, n int) error {
	cl := c.NewClient(1)
	if err := cl.Initialize(ctx); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	seen := map[string]bool{}
	for {
		names, err := cl.ToolNames(ctx)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		clear(seen)
		for _, name := range names {
			if server, _, ok := strings.Cut(strings.TrimPrefix(name, "mcp_"), "_"); ok {
				seen[server] = true
			}
		}
		if len(seen) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d servers listed their tools within 60s", len(seen), n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// treeMemory reads the RSS and PSS of serve (root), of the transport
// plugins below it (mcp-transport-*) and of everything else below it (the
// MCP servers and their children).
func treeMemory(root int) FootprintMemory {
	m := FootprintMemory{ServeRSS: max(proctree.RSS(root), 0), ServePSS: max(proctree.PSS(root), 0)}
	for _, p := range proctree.Descendants(root) {
		rss, pss := max(proctree.RSS(p.PID), 0), max(proctree.PSS(p.PID), 0)
		if strings.HasPrefix(p.Name, "mcp-transport-") {
			m.Plugins++
			m.PluginsRSS += rss
			m.PluginsPSS += pss
			continue
		}
		m.ServersN++
		m.ServersRSS += rss
		m.ServersPSS += pss
	}
	return m
}

// footprintFigures summarises one binary's runs: best and median start-up,
// and the memory of the run with the median own PSS.
func footprintFigures(binary string, runs []footprintRun) FootprintFigures {
	f := FootprintFigures{Binary: binary}
	startups := make([]time.Duration, len(runs))
	for i, r := range runs {
		startups[i] = r.startup
		f.Startups = append(f.Startups, float64(r.startup)/float64(time.Millisecond))
	}
	slices.Sort(startups)
	f.StartupBest, f.StartupMedian = startups[0], startups[len(startups)/2]
	byPSS := slices.Clone(runs)
	slices.SortFunc(byPSS, func(a, b footprintRun) int { return int(a.mem.OwnPSS() - b.mem.OwnPSS()) })
	f.Idle = byPSS[len(byPSS)/2].mem
	return f
}

// footprintRatios divides a's figures by b's.
func footprintRatios(a, b FootprintFigures) *FootprintRatios {
	div := func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	}
	return &FootprintRatios{
		StartupMedian: div(float64(a.StartupMedian), float64(b.StartupMedian)),
		OwnRSS:        div(float64(a.Idle.OwnRSS()), float64(b.Idle.OwnRSS())),
		OwnPSS:        div(float64(a.Idle.OwnPSS()), float64(b.Idle.OwnPSS())),
		PluginsRSS:    div(float64(a.Idle.PluginsRSS), float64(b.Idle.PluginsRSS)),
		PluginsPSS:    div(float64(a.Idle.PluginsPSS), float64(b.Idle.PluginsPSS)),
	}
}

// stagePlughost copies the plughost binary into dir, with a link to the
// plugins directory beside it, and returns the copy's path.
func stagePlughost(binary, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "plughost")
	if err := copyfile.New(binary, out, 0o700); err != nil {
		return "", err
	}
	plugins, err := filepath.Abs(filepath.Join(filepath.Dir(binary), "plugins"))
	if err != nil {
		return "", err
	}
	return out, os.Symlink(plugins, filepath.Join(dir, "plugins"))
}
