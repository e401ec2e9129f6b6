package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/lib/secret"
)

// RelayResult compares calls whose server talks back to the client during
// the call, made directly and through the gateway.
type RelayResult struct {
	// ProgressSteps is how many progress notifications each progress call
	// relays.
	ProgressSteps int `json:"progress_steps"`
	// Progress is a call that sends ProgressSteps notifications/progress
	// to the call's token: timed until the result and every notification
	// arrived.
	Progress Comparison `json:"progress"`
	// Sampling is a call during which the server asks the client for a
	// sampling (sampling/createMessage) and waits for the answer.
	Sampling Comparison `json:"sampling"`
	// Plain is a call with nothing relayed (echo), for reference.
	Plain Comparison `json:"plain"`
}

// Comparison is one call's latency directly and through the gateway.
type Comparison struct {
	Direct  Latency `json:"direct"`
	Gateway Latency `json:"gateway"`
	// RatioP50 and RatioP99 are Gateway / Direct; OverheadP50 is
	// Gateway.P50 - Direct.P50.
	RatioP50    float64       `json:"ratio_p50"`
	RatioP99    float64       `json:"ratio_p99"`
	OverheadP50 time.Duration `json:"overhead_p50_ns"`
}

func compare(direct, gw []time.Duration) Comparison {
	c := Comparison{Direct: summarize(direct), Gateway: summarize(gw)}
	c.RatioP50 = float64(c.Gateway.P50) / float64(c.Direct.P50)
	c.RatioP99 = float64(c.Gateway.P99) / float64(c.Direct.P99)
	c.OverheadP50 = c.Gateway.P50 - c.Direct.P50
	return c
}

// RelayOverhead measures, o.Calls times each and alternating in rounds, a
// progress call (steps notifications), a sampling call and a plain call,
// made by an mcp-go client straight to the server over stdio and by an
// mcp-go streamable-HTTP client through the gateway (HTTP → gateway → host
// → plugin → the same server). The server (o.Command, o.Args) must offer
// the tools progress {steps}, sample {prompt} and echo {text}, as
// internal/testserver -faithful does.
func RelayOverhead(ctx context.Context, o Options, steps int) (RelayResult, error) {
	r := RelayResult{ProgressSteps: steps}
	h, err := startHost(ctx, o, 1, false)
	if err != nil {
		return r, err
	}
	defer h.Close()
	url, tok, stop, err := serveGateway(ctx, h, gateway.New(h, gateway.Options{Version: "bench"}))
	if err != nil {
		return r, err
	}
	defer stop()
	direct, err := newRelayClient(ctx, transport.NewStdio(o.Command, o.Environ, o.Args...))
	if err != nil {
		return r, err
	}
	defer direct.Close()
	gw, err := gatewayRelayClient(ctx, url, tok)
	if err != nil {
		return r, err
	}
	defer gw.Close()
	for _, m := range []struct {
		out  *Comparison
		call func(c *relayClient, prefix string) error
	}{
		{&r.Progress, func(c *relayClient, p string) error { return c.progress(ctx, p+"progress", steps) }},
		{&r.Sampling, func(c *relayClient, p string) error { return c.sample(ctx, p+"sample") }},
		{&r.Plain, func(c *relayClient, p string) error { return c.echo(ctx, p+"echo") }},
	} {
		samples, err := alternate(o.Calls, func() error { return m.call(direct, "") }, func() error { return m.call(gw, "mcp_s0_") })
		if err != nil {
			return r, err
		}
		*m.out = compare(samples[0], samples[1])
	}
	return r, nil
}

// relayClient is an mcp-go client that answers sampling and counts
// progress notifications.
type relayClient struct {
	*client.Client
	mu       sync.Mutex
	received map[string]int // progress notifications received, by token
	arrived  chan struct{}
	seq      int
}

func (c *relayClient) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("ok")}, Model: "bench"}, nil
}

func newRelayClient(ctx context.Context, tr transport.Interface) (*relayClient, error) {
	c := &relayClient{received: map[string]int{}, arrived: make(chan struct{}, 1)}
	c.Client = client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125), client.WithSamplingHandler(c))
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		tok := fmt.Sprint(n.Params.AdditionalFields["progressToken"])
		c.mu.Lock()
		c.received[tok]++
		c.mu.Unlock()
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	})
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "plughost-bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// gatewayRelayClient is a client of the gateway that keeps the session's
// GET stream open, as most clients do: a notification the server writes
// after its answer (mcp-go's stdio server writes notifications from a
// goroutine of their own) arrives there — after the answer, which is why
// progress waits for the notifications with a bound. mcp-go opens the
// stream in the background after initialize; what comes for the session
// before it is open, the gateway holds for it.
func gatewayRelayClient(ctx context.Context, url string, tok secret.String) (*relayClient, error) {
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok.Reveal()}),
		//lint:ignore SA1019 plughost speaks protocol 2025-11-25 (docs/architecture.md), where the GET stream carries a session's notifications
		transport.WithContinuousListening(),
		transport.WithHTTPBasicClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}))
	if err != nil {
		return nil, err
	}
	return newRelayClient(ctx, tr)
}

// progress calls tool with steps and a fresh token and returns once the
// result and every notification are in.
func (c *relayClient) progress(ctx context.Context, tool string, steps int) error {
	c.mu.Lock()
	c.seq++
	tok := fmt.Sprintf("p%d", c.seq)
	c.mu.Unlock()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, map[string]any{"steps": steps}
	req.Params.Meta = &mcp.Meta{ProgressToken: tok}
	if _, err := c.CallTool(ctx, req); err != nil {
		return err
	}
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		n := c.received[tok]
		c.mu.Unlock()
		if n >= steps {
			c.mu.Lock()
			delete(c.received, tok)
			c.mu.Unlock()
			return nil
		}
		select {
		case <-c.arrived:
		case <-deadline:
			return fmt.Errorf("%s: %d of %d progress notifications arrived", tool, n, steps)
		}
	}
}

func (c *relayClient) sample(ctx context.Context, tool string) error {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, map[string]any{"prompt": "x"}
	res, err := c.CallTool(ctx, req)
	if err == nil && res.IsError {
		err = errors.New(tool + ": the sampling failed")
	}
	return err
}

func (c *relayClient) echo(ctx context.Context, tool string) error {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, map[string]any{"text": "x"}
	_, err := c.CallTool(ctx, req)
	return err
}
