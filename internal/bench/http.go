package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host"
)

// HTTPResult compares per-call latency through the http plugin with a direct
// mcp-go streamable-HTTP client to the same server, at one added latency.
type HTTPResult struct {
	// OneWayDelay is the latency added to each direction by the proxy that
	// stands for the network (0: plain loopback).
	OneWayDelay time.Duration `json:"one_way_delay_ns"`
	Direct      Latency       `json:"direct"`
	Host        Latency       `json:"host"`
	RatioP50    float64       `json:"ratio_p50"`
	RatioP99    float64       `json:"ratio_p99"`
}

// HTTPCallLatency starts o.HTTPServer (a command that serves streamable HTTP
// and prints "listening <url>"), then for each delay in delays puts a proxy
// adding that one-way latency in front of it and calls o.Tool o.Calls times
// directly and through plughost's http plugin, alternating in rounds.
func HTTPCallLatency(ctx context.Context, o Options, delays []time.Duration) ([]HTTPResult, error) {
	url, stop, err := startHTTPServer(ctx, o.HTTPServer)
	if err != nil {
		return nil, err
	}
	defer stop()
	var out []HTTPResult
	for _, d := range delays {
		r, err := httpLatencyAt(ctx, o, url, d)
		if err != nil {
			return nil, fmt.Errorf("with %s one-way delay: %w", d, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func httpLatencyAt(ctx context.Context, o Options, url string, delay time.Duration) (HTTPResult, error) {
	px, err := newDelayProxy(url, delay)
	if err != nil {
		return HTTPResult{}, err
	}
	defer px.Close()
	direct, err := directHTTPClient(ctx, px.url)
	if err != nil {
		return HTTPResult{}, err
	}
	defer direct.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = o.Tool, o.ToolArgs
	viaDirect := func() error { return checked(direct.CallTool(ctx, req)) }

	h, err := startRemoteHost(ctx, o, px.url)
	if err != nil {
		return HTTPResult{}, err
	}
	defer h.Close()
	sess := h.NewSession()
	args, _ := json.Marshal(o.ToolArgs)
	viaHost := func() error { return checkedHost(sess.Call(ctx, "mcp_remote_"+o.Tool, args)) }

	calls := o.Calls
	if delay > 0 {
		calls = max(calls/4, 100) // each call costs at least 2 delays
	}
	samples, err := alternate(calls, viaDirect, viaHost)
	if err != nil {
		return HTTPResult{}, err
	}
	r := HTTPResult{OneWayDelay: delay, Direct: summarize(samples[0]), Host: summarize(samples[1])}
	r.RatioP50 = float64(r.Host.P50) / float64(r.Direct.P50)
	r.RatioP99 = float64(r.Host.P99) / float64(r.Direct.P99)
	return r, nil
}

// startHTTPServer runs argv and waits for its "listening <url>" line.
func startHTTPServer(ctx context.Context, argv []string) (string, func(), error) {
	if len(argv) == 0 {
		return "", nil, fmt.Errorf("no HTTP server command")
	}
	url, _, stop, err := startListening(ctx, argv, nil) // nil: this process's environment
	return url, stop, err
}

// directHTTPClient opens an initialized streamable-HTTP session to url with
// a connection pool of its own, like a gateway client's (see gatewayClient).
func directHTTPClient(ctx context.Context, url string) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPBasicClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}))
	if err != nil {
		return nil, err
	}
	return initializedClient(ctx, tr)
}

func startRemoteHost(ctx context.Context, o Options, url string) (*host.Host, error) {
	return launchHost(ctx, o, map[string]any{"remote": map[string]any{"enabled": true, "type": "http", "url": url}}, false)
}
