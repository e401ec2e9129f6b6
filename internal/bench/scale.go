package bench

import (
	"context"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/client"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
)

// ScaleOptions say how the catalog-size comparison runs.
type ScaleOptions struct {
	// Servers and Tools are the large setup: Servers copies of the server,
	// with Tools tools in all (each server adds no-op tools to reach it).
	Servers int
	Tools   int
	// ToolsFlag asks the server for n extra no-op tools ("--tools" for
	// plughost demo-server, "-tools" for the test server).
	ToolsFlag string
	// OwnTools is how many tools the server has without extras.
	OwnTools int
	// Rounds is how many load runs each setup gets, alternating.
	Rounds int
}

// ScaleResult compares the gateway's throughput over one server with its
// throughput over a large catalog, the same load each time.
type ScaleResult struct {
	Servers int `json:"servers"`
	Tools   int `json:"tools"`
	// Small and Large are the median runs (by throughput) of each setup.
	Small LoadStats `json:"small"`
	Large LoadStats `json:"large"`
	// SmallRuns and LargeRuns are every run's throughput, in order.
	SmallRuns []float64 `json:"small_runs"`
	LargeRuns []float64 `json:"large_runs"`
	// Ratio is the median over rounds of Large / Small throughput in that
	// round: 1 means the catalog costs nothing per call.
	Ratio float64 `json:"ratio"`
	// SmallTools is how many tools the small setup has.
	SmallTools int `json:"small_tools"`
}

// Scale serves one server, and sc.Servers servers with sc.Tools tools in
// all, through two gateways at once, and runs the same load (o.Sessions ×
// o.CallsPerSession echo calls, every answer checked) against each in
// alternation, sc.Rounds times.
func Scale(ctx context.Context, o GatewayOptions, sc ScaleOptions) (ScaleResult, error) {
	r := ScaleResult{Servers: sc.Servers, Tools: sc.Tools, SmallTools: sc.OwnTools}
	small, err := startHost(ctx, o.Options, 1, false)
	if err != nil {
		return r, err
	}
	defer small.Close()
	extra := max(sc.Tools/sc.Servers-sc.OwnTools, 0)
	big := o.Options
	big.Args = append(append([]string(nil), o.Args...), sc.ToolsFlag, fmt.Sprint(extra))
	large, err := startHost(ctx, big, sc.Servers, false)
	if err != nil {
		return r, err
	}
	defer large.Close()
	if n := large.Registry().Len(); n < sc.Tools-sc.Servers {
		return r, fmt.Errorf("the large setup has %d tools, want about %d", n, sc.Tools)
	}
	r.Tools = large.Registry().Len()
	smallClients, stopSmall, err := gatewayClients(ctx, small, o.Sessions)
	if err != nil {
		return r, err
	}
	defer stopSmall()
	largeClients, stopLarge, err := gatewayClients(ctx, large, o.Sessions)
	if err != nil {
		return r, err
	}
	defer stopLarge()
	var smallRuns, largeRuns []LoadStats
	for range max(sc.Rounds, 1) {
		smallRuns = append(smallRuns, runLoad(ctx, o, smallClients, "mcp_s0_"+o.Tool))
		largeRuns = append(largeRuns, runLoad(ctx, o, largeClients, "mcp_s0_"+o.Tool))
	}
	for _, s := range smallRuns {
		r.SmallRuns = append(r.SmallRuns, s.Throughput)
	}
	for _, s := range largeRuns {
		r.LargeRuns = append(r.LargeRuns, s.Throughput)
	}
	r.Small, r.Large = median(smallRuns), median(largeRuns)
	r.Ratio = medianRatio(r.LargeRuns, r.SmallRuns)
	return r, nil
}

// gatewayClients serves h through a gateway and opens n client sessions.
func gatewayClients(ctx context.Context, h *host.Host, n int) ([]*client.Client, func(), error) {
	url, tok, stop, err := serveGateway(ctx, h, gateway.New(h, gateway.Options{Version: "bench"}))
	if err != nil {
		return nil, nil, err
	}
	clients := make([]*client.Client, 0, n)
	closeAll := func() {
		for _, c := range clients {
			c.Close()
		}
		stop()
	}
	for i := range n {
		c, err := gatewayClient(ctx, url, tok)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("session %d: %w", i, err)
		}
		clients = append(clients, c)
	}
	return clients, closeAll, nil
}

// medianRatio is the median of a[i]/b[i].
func medianRatio(a, b []float64) float64 {
	var q []float64
	for i := range a {
		if i < len(b) && b[i] > 0 {
			q = append(q, a[i]/b[i])
		}
	}
	if len(q) == 0 {
		return 0
	}
	sort.Float64s(q)
	return q[len(q)/2]
}

// median returns the run of median throughput.
func median(runs []LoadStats) LoadStats {
	s := append([]LoadStats(nil), runs...)
	sort.Slice(s, func(i, j int) bool { return s[i].Throughput < s[j].Throughput })
	return s[len(s)/2]
}
