package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/secret"
)

// MCPPath is where the streamable-HTTP MCP endpoint is served.
const MCPPath = "/mcp"

// sessionIdleTTL ends HTTP sessions no request touched for that long, so
// clients that vanish without DELETE do not keep sessions forever.
const sessionIdleTTL = 30 * time.Minute

// HTTPOptions say how ServeHTTP serves.
type HTTPOptions struct {
	// Listener accepts the connections (see Listen).
	Listener net.Listener
	// Token is required as "Authorization: Bearer <token>" on /mcp, /readyz
	// and /metrics; empty means no auth, which only a loopback listener
	// accepts.
	Token secret.String
	// TokenHint tells a client without the right token where it is kept
	// (e.g. the token file's path).
	TokenHint string
}

// Listen opens the gateway's TCP listener on addr. Without auth it refuses
// any address that is not loopback.
func Listen(addr string, auth bool) (net.Listener, error) {
	if err := config.CheckListen(addr, auth); err != nil {
		return nil, fmt.Errorf("gateway listen address %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gateway: listen on %s: %w (choose another with --listen or tools.mcp.gateway.listen)", addr, err)
	}
	return ln, nil
}

// Handler returns the gateway's HTTP routes: MCP at /mcp, /healthz (always
// open), /readyz and /metrics. With a token, every route but /healthz
// requires it.
func (g *Gateway) Handler(tok secret.String, hint string) http.Handler {
	streamable := server.NewStreamableHTTPServer(g.mcp,
		server.WithEndpointPath(MCPPath),
		server.WithSessionIdleTTL(sessionIdleTTL),
	)
	guard := func(h http.Handler) http.Handler {
		if tok == "" {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !refuseQueryToken(w, r) {
					h.ServeHTTP(w, r)
				}
			})
		}
		return requireToken(tok, hint, h)
	}
	g.mu.Lock()
	mounts := maps.Clone(g.mounts)
	g.mu.Unlock()
	mux := http.NewServeMux()
	for pattern, h := range mounts {
		mux.Handle(pattern, guard(h))
	}
	mux.Handle(MCPPath, guard(streamable))
	mux.Handle("GET /readyz", guard(http.HandlerFunc(g.readyz)))
	mux.Handle("GET /metrics", guard(g.metrics.handler()))
	mux.HandleFunc("GET /healthz", healthz)
	return mux
}

// Mount serves h at pattern (an http.ServeMux pattern, e.g. "/api/")
// beside the MCP endpoint, behind the same token. Call it before ServeHTTP
// or Handler.
func (g *Gateway) Mount(pattern string, h http.Handler) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mounts == nil {
		g.mounts = map[string]http.Handler{}
	}
	g.mounts[pattern] = h
}

// ServeHTTP serves the gateway on o.Listener until ctx ends, then closes
// every session and connection.
func (g *Gateway) ServeHTTP(ctx context.Context, o HTTPOptions) error {
	if o.Token == "" && !isLoopbackAddr(o.Listener.Addr()) {
		o.Listener.Close()
		return fmt.Errorf("gateway: refusing to serve on %s without a token: it is not a loopback address; turn tools.mcp.gateway.auth on", o.Listener.Addr())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go g.watch(ctx)
	srv := &http.Server{
		Handler:           g.Handler(o.Token, o.TokenHint),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(o.Listener) }()
	select {
	case err := <-done:
		return fmt.Errorf("gateway: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close() // open event streams do not end by themselves
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("gateway: serve: %w", err)
	}
	return nil
}

func isLoopbackAddr(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && config.IsLoopback(host)
}
