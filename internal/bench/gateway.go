package bench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
)

// GatewayOptions say what the gateway load test runs.
type GatewayOptions struct {
	Options
	// Sessions is the number of concurrent MCP client sessions.
	Sessions int
	// CallsPerSession is how many calls each session makes, one at a time.
	CallsPerSession int
	// EchoArg is the name of o.Tool's string argument that the tool returns
	// verbatim; every response is checked against its request through it.
	EchoArg string
	// Rounds is how many times each load setup runs, alternating (0 = 1).
	Rounds int
}

// GatewayResult is the outcome of GatewayLoad.
type GatewayResult struct {
	// Sessions and CallsPerSession repeat the load that was run.
	Sessions        int `json:"sessions"`
	CallsPerSession int `json:"calls_per_session"`
	// Calls is the number of calls made; OK those answered with their own
	// request's text; Lost those that failed or got no answer; Mismatched
	// those answered with another request's text (or an error result).
	Calls      int           `json:"calls"`
	OK         int           `json:"ok"`
	Lost       int           `json:"lost"`
	Mismatched int           `json:"mismatched"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Throughput is calls per second over the whole load run.
	Throughput float64 `json:"calls_per_second"`
	// Latency is the per-call latency under load.
	Latency Latency `json:"latency"`
	// Direct and Gateway compare one client's per-call latency calling the
	// server directly (mcp-go stdio client) and through the gateway (HTTP →
	// gateway → host → plugin → the same server), alternating in rounds;
	// RatioP50/RatioP99 are Gateway / Direct.
	Direct   Latency `json:"direct"`
	Gateway  Latency `json:"gateway"`
	RatioP50 float64 `json:"ratio_p50"`
	RatioP99 float64 `json:"ratio_p99"`
	// DirectLoad is the same load (sessions × calls, each response checked)
	// sent straight to the server over one mcp-go stdio client: the
	// upstream's own capacity on this machine, for comparison.
	DirectLoad LoadStats `json:"direct_load"`
	// DirectHTTPLoad is the same load from the same kind of clients (one
	// mcp-go streamable-HTTP client per session) sent straight to the
	// server serving streamable HTTP itself (Options.HTTPServer): what the
	// clients get without plughost. Absent without an HTTPServer.
	DirectHTTPLoad *LoadStats `json:"direct_http_load,omitempty"`
	// Rounds are the calls/s of every round; Lost and Mismatched above are
	// the worst of the gateway's rounds.
	Rounds []Round `json:"rounds"`
	// VsStdio and VsHTTP are the medians over rounds of the gateway's
	// calls/s over the direct stdio and direct HTTP loads' in that round.
	VsStdio float64 `json:"gateway_vs_direct_stdio"`
	VsHTTP  float64 `json:"gateway_vs_direct_http,omitempty"`
}

// LoadStats is the outcome of one load run.
type LoadStats struct {
	Calls      int           `json:"calls"`
	OK         int           `json:"ok"`
	Lost       int           `json:"lost"`
	Mismatched int           `json:"mismatched"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Throughput float64       `json:"calls_per_second"`
	Latency    Latency       `json:"latency"`
}

// GatewayLoad serves one server (o.Command) through a gateway over real
// HTTP with a bearer token and runs o.Sessions concurrent sessions of
// o.CallsPerSession calls of o.Tool against it, every response checked
// against its request; in alternation, round by round (o.Rounds), it runs
// the same load straight to the server over one stdio client and, with
// o.HTTPServer, from one HTTP client per session to the server serving HTTP
// itself. Each figure is the median round. Then it measures one client's
// per-call overhead against a direct client.
func GatewayLoad(ctx context.Context, o GatewayOptions) (GatewayResult, error) {
	r := GatewayResult{Sessions: o.Sessions, CallsPerSession: o.CallsPerSession}
	h, err := startHost(ctx, o.Options, 1, false)
	if err != nil {
		return r, err
	}
	defer h.Close()
	url, tok, stop, err := serveGateway(ctx, h, gateway.New(h, gateway.Options{Version: "bench"}))
	if err != nil {
		return r, err
	}
	defer stop()
	viaGateway := make([]*client.Client, o.Sessions)
	for i := range viaGateway {
		c, err := gatewayClient(ctx, url, tok)
		if err != nil {
			return r, fmt.Errorf("session %d: %w", i, err)
		}
		defer c.Close()
		viaGateway[i] = c
	}
	direct, err := directClient(ctx, o.Options)
	if err != nil {
		return r, err
	}
	defer direct.Close()
	viaStdio := make([]*client.Client, o.Sessions)
	for i := range viaStdio {
		viaStdio[i] = direct
	}
	var viaHTTP []*client.Client
	if len(o.HTTPServer) > 0 {
		httpURL, stopHTTP, err := startHTTPServer(ctx, o.HTTPServer)
		if err != nil {
			return r, fmt.Errorf("direct HTTP load: %w", err)
		}
		defer stopHTTP()
		for i := range o.Sessions {
			c, err := directHTTPClient(ctx, httpURL)
			if err != nil {
				return r, fmt.Errorf("direct HTTP session %d: %w", i, err)
			}
			defer c.Close()
			viaHTTP = append(viaHTTP, c)
		}
	}
	var gw, ds, dh []LoadStats
	for range max(o.Rounds, 1) {
		gw = append(gw, runLoad(ctx, o, viaGateway, "mcp_s0_"+o.Tool))
		ds = append(ds, runLoad(ctx, o, viaStdio, o.Tool))
		if viaHTTP != nil {
			dh = append(dh, runLoad(ctx, o, viaHTTP, o.Tool))
		}
	}
	st := median(gw)
	r.Calls, r.OK, r.Lost, r.Mismatched = st.Calls, st.OK, st.Lost, st.Mismatched
	r.Elapsed, r.Throughput, r.Latency = st.Elapsed, st.Throughput, st.Latency
	for i := range gw {
		r.Rounds = append(r.Rounds, Round{Gateway: gw[i].Throughput, DirectStdio: ds[i].Throughput})
		if dh != nil {
			r.Rounds[i].DirectHTTP = dh[i].Throughput
		}
		r.Lost, r.Mismatched = max(r.Lost, gw[i].Lost), max(r.Mismatched, gw[i].Mismatched)
	}
	r.DirectLoad = median(ds)
	var g, sd, hd []float64
	for _, rd := range r.Rounds {
		g, sd, hd = append(g, rd.Gateway), append(sd, rd.DirectStdio), append(hd, rd.DirectHTTP)
	}
	r.VsStdio = medianRatio(g, sd)
	if dh != nil {
		m := median(dh)
		r.DirectHTTPLoad = &m
		r.VsHTTP = medianRatio(g, hd)
	}
	if err := overhead(ctx, o, url, tok, &r); err != nil {
		return r, err
	}
	return r, nil
}

// Round is one round of the alternating load runs: each setup's calls/s.
type Round struct {
	Gateway     float64 `json:"gateway"`
	DirectStdio float64 `json:"direct_stdio"`
	DirectHTTP  float64 `json:"direct_http,omitempty"`
}

// serveGateway serves gw behind a front door on a free loopback port with a
// fresh token.
func serveGateway(ctx context.Context, h *host.Host, gw *gateway.Gateway) (url string, tok secret.String, stop func(), err error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", nil, err
	}
	tok = secret.String(base64.RawURLEncoding.EncodeToString(raw))
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		return "", "", nil, err
	}
	limits := frontdoor.LimitsFromConfig(h.Config().MCP.Gateway)
	door, err := frontdoor.New(h, frontdoor.Options{Listener: ln, Token: tok, Limits: limits, Collectors: gw.Collectors()})
	if err != nil {
		ln.Close()
		return "", "", nil, err
	}
	door.Mount(gateway.MCPPath, gw.HTTPHandler())
	door.OnShutdown(gw.Shutdown)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { gw.Run(ctx) })
	wg.Go(func() { _ = door.Serve(ctx) })
	return gateway.URL(ln.Addr()), tok, func() { cancel(); wg.Wait() }, nil
}

// gatewayClient opens one initialized session, with a connection of its own.
func gatewayClient(ctx context.Context, url string, tok secret.String) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok.Reveal()}),
		transport.WithHTTPBasicClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}))
	if err != nil {
		return nil, err
	}
	return initializedClient(ctx, tr)
}

// runLoad runs one goroutine per client, each making o.CallsPerSession
// calls of tool one at a time and checking each answer against its request.
func runLoad(ctx context.Context, o GatewayOptions, clients []*client.Client, tool string) LoadStats {
	return measureLoad(len(clients), o.CallsPerSession, func(i int, text string) (string, error) {
		return echoCall(ctx, clients[i], tool, o.EchoArg, text)
	})
}

// measureLoad runs sessions goroutines, each making calls calls of echo
// one at a time; echo(session, text) must answer text. An error counts
// as lost, another answer as mismatched.
func measureLoad(sessions, calls int, echo func(session int, text string) (string, error)) LoadStats {
	var st LoadStats
	var mu sync.Mutex
	var samples []time.Duration
	var wg sync.WaitGroup
	began := time.Now()
	for i := range sessions {
		wg.Go(func() {
			mine := make([]time.Duration, 0, calls)
			ok, lost, wrong := 0, 0, 0
			for j := range calls {
				want := fmt.Sprintf("session %d call %d", i, j)
				t0 := time.Now()
				res, err := echo(i, want)
				mine = append(mine, time.Since(t0))
				switch {
				case err != nil:
					lost++
				case res != want:
					wrong++
				default:
					ok++
				}
			}
			mu.Lock()
			samples = append(samples, mine...)
			st.OK, st.Lost, st.Mismatched = st.OK+ok, st.Lost+lost, st.Mismatched+wrong
			mu.Unlock()
		})
	}
	wg.Wait()
	st.Elapsed = time.Since(began)
	st.Calls = len(samples)
	st.Throughput = float64(st.Calls) / st.Elapsed.Seconds()
	st.Latency = summarize(samples)
	return st
}

// echoCall calls tool with text as its argument arg and returns the text it
// got back.
func echoCall(ctx context.Context, c *client.Client, tool, arg, text string) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = map[string]any{arg: text}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", errors.New("error result")
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text, nil
}

// overhead measures one client calling the server directly and through the
// gateway, alternating in rounds.
func overhead(ctx context.Context, o GatewayOptions, url string, tok secret.String, r *GatewayResult) error {
	direct, err := directClient(ctx, o.Options)
	if err != nil {
		return err
	}
	defer direct.Close()
	gw, err := gatewayClient(ctx, url, tok)
	if err != nil {
		return err
	}
	defer gw.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = o.Tool, map[string]any{o.EchoArg: "x"}
	viaDirect := func() error { return checked(direct.CallTool(ctx, req)) }
	viaGateway := func() error { _, err := echoCall(ctx, gw, "mcp_s0_"+o.Tool, o.EchoArg, "x"); return err }
	samples, err := alternate(o.Calls, viaDirect, viaGateway)
	if err != nil {
		return err
	}
	r.Direct, r.Gateway = summarize(samples[0]), summarize(samples[1])
	r.RatioP50 = float64(r.Gateway.P50) / float64(r.Direct.P50)
	r.RatioP99 = float64(r.Gateway.P99) / float64(r.Direct.P99)
	return nil
}
