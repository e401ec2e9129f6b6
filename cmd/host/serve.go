package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/secret"
	"github.com/plughost/plughost/host/supervisor"
)

func newServeCommand(g *globals) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the host and serve its tools as one MCP server over streamable HTTP",
		Long: `serve starts every enabled MCP server (each behind its own transport plugin
process), restarts servers that crash, and serves all their tools as one MCP server
(streamable HTTP at /mcp, default http://127.0.0.1:8765/mcp) with discovery applied per
client session. It also serves /healthz, /readyz (which servers are up) and /metrics
(Prometheus). Clients authenticate with "Authorization: Bearer <token>"; the token is
generated on first run into tools.mcp.gateway.token_file (0600) and printed on stdout
with a ready client config. State changes are logged on stderr until SIGINT or SIGTERM;
then calls in flight finish (up to tools.mcp.gateway.shutdown_seconds) and every plugin
and server is stopped.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			tuneGC()
			h, err := g.newHost()
			if err != nil {
				return err
			}
			gc := h.Config().MCP.Gateway
			if cmd.Flags().Changed("listen") {
				gc.Listen = listen
			}
			var tok secret.String
			if gc.Auth {
				var created bool
				if tok, created, err = frontdoor.LoadOrCreateToken(gc.TokenFile); err != nil {
					return err
				}
				if created {
					fmt.Fprintf(g.stderr, "plughost: created a new gateway token in %s\n", gc.TokenFile)
				}
			}
			ln, err := frontdoor.Listen(gc.Listen, gc.Auth)
			if err != nil {
				return err
			}
			gw := gateway.New(h, gateway.Options{Logger: h.Logger().Named("gateway"), Version: version,
				MaxMessageBytes: gc.MaxRequestBytes(), ShutdownTimeout: gc.ShutdownTimeout()})
			door, err := frontdoor.New(h, frontdoor.Options{Listener: ln, Token: tok, TokenHint: gc.TokenFile,
				Limits: frontdoor.LimitsFromConfig(gc), Logger: h.Logger().Named("http"), Collectors: gw.Collectors()})
			if err != nil {
				ln.Close()
				return err
			}
			door.Mount(gateway.MCPPath, gw.HTTPHandler())
			door.Mount(gateway.ServerPattern, gw.ServerHTTPHandler())
			door.OnShutdown(gw.Shutdown)
			exe, _ := os.Executable()
			fmt.Fprint(g.stdout, gateway.ClientSnippet(gateway.URL(ln.Addr()), tok, exe))
			h.Start(ctx)
			fmt.Fprintf(g.stderr, "plughost: serving %d configured server(s) at %s; stop with Ctrl-C\n", len(h.ServerNames()), gateway.URL(ln.Addr()))
			runCtx, stopRun := context.WithCancel(ctx)
			var background sync.WaitGroup
			background.Go(func() { gw.Run(runCtx) })
			background.Go(func() { watchStates(runCtx, h, g) })
			served := make(chan error, 1)
			go func() { served <- door.Serve(ctx) }()
			select {
			case err = <-served: // failed on its own
			case <-ctx.Done():
				fmt.Fprintln(g.stderr, "plughost: shutting down: finishing the calls in flight")
				err = <-served
			}
			stopRun()
			background.Wait()
			if cerr := h.Close(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "listen address host:port (default tools.mcp.gateway.listen, 127.0.0.1:8765; port 0 picks a free one)")
	return cmd
}

// watchStates prints one line per server state change until ctx ends.
func watchStates(ctx context.Context, h *host.Host, g *globals) {
	last := map[string]supervisor.State{}
	for {
		changed := h.Changed()
		for _, st := range h.Statuses() {
			if last[st.Name] == st.State {
				continue
			}
			last[st.Name] = st.State
			fmt.Fprintf(g.stderr, "%s  %-20s %s\n", time.Now().Format("15:04:05"), st.Name, describeState(st))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
