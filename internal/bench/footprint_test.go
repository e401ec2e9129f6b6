//go:build linux

package bench

import (
	"context"
	"os"
	"testing"
	"time"
)

// A small bench footprint run, against itself as baseline: every server's
// tools are listed, the stdio servers share one plugin process, and the
// memory figures come out of real processes.
func TestFootprintBench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plughost serve with three stdio servers, twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Footprint(ctx, FootprintOptions{Plughost: bins.Path("plughost"), Baseline: bins.Path("plughost"),
		Server: []string{bins.Path("plughost"), "demo-server"}, Environ: os.Environ(), Servers: 3, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []FootprintFigures{r.Plughost, *r.Baseline} {
		m := f.Idle
		if m.Plugins != 1 || m.ServersN != 3 {
			t.Errorf("%d plugin processes and %d servers; want 1 shared plugin for 3 servers", m.Plugins, m.ServersN)
		}
		if m.ServeRSS <= 0 || m.ServePSS <= 0 || m.PluginsPSS <= 0 || m.ServersPSS <= 0 || m.ServePSS > m.ServeRSS {
			t.Errorf("memory figures %+v; want RSS and PSS of every kind, PSS ≤ RSS", m)
		}
		if f.StartupBest <= 0 || f.StartupMedian < f.StartupBest {
			t.Errorf("start-up best %v, median %v", f.StartupBest, f.StartupMedian)
		}
	}
	if r.Ratios == nil || r.Ratios.OwnPSS <= 0 {
		t.Errorf("ratios %+v; want them computed", r.Ratios)
	}
}
