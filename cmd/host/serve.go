package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/dashboard"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
	"github.com/plughost/plughost/manage"
	"github.com/plughost/plughost/oauth"
)

func newServeCommand(g *globals) *cobra.Command {
	var listen string
	var noWatch bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the host and serve its tools as one MCP server over streamable HTTP",
		Long: `serve starts every enabled MCP server (each behind its own transport plugin
process), restarts servers that crash, and serves all their tools as one MCP server
(streamable HTTP at /mcp, default http://127.0.0.1:8765/mcp) with discovery applied per
client session. It also serves /healthz, /readyz (which servers are up), /metrics
(Prometheus), the JSON API at /api/ and the web dashboard at / (open it logged in with
"plughost dashboard"). Clients authenticate with "Authorization: Bearer
<token>"; the token is generated on first run into tools.mcp.gateway.token_file (0600).
stdout gets a ready client config: with the token when stdout is a terminal, else (a
service manager's log) with the token file's path in its place.

The config file is watched: a change is validated and applied without a restart (only the
servers whose settings changed restart). A config with a global problem (or a file over
16 MiB) is refused whole and the previous one keeps running; a running server whose entry
became invalid keeps running its previous settings, while a new server with an invalid entry
is not started — the reason is in the log, plughost mcp list|show, the API and the
dashboard. SIGHUP reloads too. Changes of tools.mcp.gateway take effect at the next start.
State changes are logged on stderr (summarised when many servers change at once) until
SIGINT or SIGTERM. Then, for tools.mcp.gateway.drain_seconds (default 0), every request is
still served while /readyz answers 503 ("draining"), so a load balancer stops sending
requests before the listener closes; then the listener closes, calls in flight finish (up to
tools.mcp.gateway.shutdown_seconds) and every plugin and server is stopped. A second SIGINT
or SIGTERM stops at once: no more drain, calls in flight are cut.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			hup := make(chan os.Signal, 1) // before anything is announced: a SIGHUP must not kill serve
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			tuneGC()
			go releaseWhenIdle(ctx)
			m := g.manager()
			l, err := g.loadConfig()
			if err != nil {
				return err
			}
			h, err := g.hostFor(l)
			if err != nil {
				return err
			}
			configured := h.Config().MCP.Gateway
			gc := configured
			if cmd.Flags().Changed("listen") {
				gc.Listen = listen
			}
			tok, err := g.gatewayToken(gc)
			if err != nil {
				return err
			}
			ln, err := frontdoor.Listen(gc.Listen, gc.Auth)
			if err != nil {
				return err
			}
			gw := gateway.New(h, gateway.Options{Logger: h.Logger().Named("gateway"), Version: version,
				MaxMessageBytes: gc.MaxRequestBytes(), ShutdownTimeout: gc.ShutdownTimeout()})
			door, err := frontdoor.New(h, frontdoor.Options{Listener: ln, Token: tok, AllowedOrigins: gc.AllowedOrigins,
				Limits: frontdoor.LimitsFromConfig(gc), Logger: h.Logger().Named("http"), Collectors: gw.Collectors()})
			if err != nil {
				ln.Close()
				return err
			}
			door.MountClients(gateway.MCPPath, gw.HTTPHandlerFor)
			door.MountClients(gateway.ServerPattern, gw.ServerHTTPHandlerFor)
			if gc.Debug {
				door.MountProfiles()
			}
			stopEvents := make(chan struct{})
			inbox := oauth.NewInbox(strings.TrimSuffix(gateway.URL(ln.Addr()), gateway.MCPPath) + api.OAuthCallbackPath)
			door.MountPublic("GET "+api.OAuthCallbackPath, inbox)
			exe, _ := os.Executable()
			url := gateway.URL(ln.Addr())
			snippet := gateway.Snippet{URL: url, Token: tok, TokenFile: gc.TokenFile, Exe: exe, ConfigFile: g.namedConfigFile(m)}
			door.Mount("/api/", api.New(api.Options{Host: h, Manager: m, Version: version, Logger: h.Logger().Named("api"),
				Stop: stopEvents, OAuthInbox: inbox, Connect: &snippet}))
			dashboard.New(dashboard.Options{Token: tok, Logger: h.Logger().Named("dashboard")}).MountOn(door)
			door.OnShutdown(gw.Shutdown)
			door.OnShutdown(func() { close(stopEvents) })
			printed := snippet
			printed.ShowToken = isTerminal(g.stdout)
			fmt.Fprint(g.stdout, gateway.ClientSnippet(printed))
			h.Start(ctx)
			fmt.Fprintf(g.stderr, "plughost: serving %d configured server(s) at %s; stop with Ctrl-C\n", len(h.ServerNames()), url)
			fmt.Fprintf(g.stderr, "plughost: dashboard at %s/ (open it logged in with `plughost dashboard`)\n", strings.TrimSuffix(url, gateway.MCPPath))
			if unpublish := g.publish(m, url, gc); unpublish != nil {
				defer unpublish()
			}
			// The background work outlives the signal: a draining replica
			// still serves every request (forwarded responses, events).
			runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
			var background sync.WaitGroup
			background.Go(func() { gw.Run(runCtx) })
			background.Go(func() { watchStates(runCtx, h, g) })
			background.Go(func() { checkStore(runCtx, h) })
			background.Go(func() { g.reloads(runCtx, m, h, configured, hup, !noWatch) })
			served := make(chan error, 1)
			go func() { served <- door.Serve(ctx) }()
			select {
			case err = <-served: // failed on its own
			case <-ctx.Done():
				err = stopServing(g, door, gc.Drain(), served)
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
	cmd.Flags().BoolVar(&noWatch, "no-watch", false, "do not watch the config file (SIGHUP still reloads)")
	return cmd
}

// stopServing waits for the door (whose context ended) to stop serving,
// saying what it does; a second SIGINT or SIGTERM meanwhile stops it now:
// no more drain, no wait for the calls in flight.
func stopServing(g *globals, door *frontdoor.Door, drain time.Duration, served <-chan error) error {
	again := make(chan os.Signal, 1)
	signal.Notify(again, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(again)
	if drain > 0 {
		fmt.Fprintf(g.stderr, "plughost: draining for %s (tools.mcp.gateway.drain_seconds): /readyz answers 503 "+
			"while requests are still served; Ctrl-C or SIGTERM again stops now\n", drain)
	}
	fmt.Fprintln(g.stderr, "plughost: shutting down: finishing the calls in flight")
	select {
	case err := <-served:
		return err
	case <-again:
		fmt.Fprintln(g.stderr, "plughost: stopping now")
		door.StopNow()
		return <-served
	}
}

// checkStore checks the session store once at start, so a Redis that
// refuses writes or evicts sessions is in the log before anyone asks
// /readyz (the store itself logs the eviction warning).
func checkStore(ctx context.Context, h *host.Host) {
	if r := h.CheckStore(ctx); r != nil && !r.Up {
		h.Logger().Warn("the session store does not take writes; /readyz says not ready until it does", "error", r.Error)
	}
}

// gatewayToken loads the bearer token (creating it on first use), or
// returns "" when auth is off.
func (g *globals) gatewayToken(gc config.Gateway) (secret.String, error) {
	if !gc.Auth {
		return "", nil
	}
	tok, created, err := frontdoor.LoadOrCreateToken(gc.TokenFile)
	if err != nil {
		return "", err
	}
	if created {
		fmt.Fprintf(g.stderr, "plughost: created a new gateway token in %s\n", gc.TokenFile)
	}
	return tok, nil
}

// namedConfigFile is the config file when the user named it (--config or
// $PLUGHOST_CONFIG), which a client starting `plughost stdio` must be
// told; "" for the default file, which it finds by itself.
func (g *globals) namedConfigFile(m *manage.Manager) string {
	if g.configPath == "" && os.Getenv(config.EnvConfigFile) == "" {
		return ""
	}
	return m.UserFile()
}

// publish writes the runtime file through which commands of the same
// config reach this serve (url is the MCP endpoint's); it returns how to remove it (nil if it could not
// be written, which only costs those commands the live view).
func (g *globals) publish(m *manage.Manager, url string, gc config.Gateway) func() {
	home, _ := os.UserHomeDir()
	if home == "" || m.UserFile() == "" {
		return nil
	}
	rt := api.Runtime{PID: os.Getpid(), URL: strings.TrimSuffix(url, gateway.MCPPath), ConfigFile: m.UserFile(), Version: version}
	if gc.Auth {
		rt.TokenFile = gc.TokenFile
	}
	remove, err := api.Publish(home, rt)
	if err != nil {
		fmt.Fprintf(g.stderr, "plughost: warning: %v; `plughost mcp list` and friends will start their own servers\n", err)
		return nil
	}
	return remove
}

// reloads applies the config file again whenever it changes (if watch) and
// on SIGHUP, until ctx ends. The gateway section (listener, auth) cannot
// change under a running listener: a change of it is logged.
func (g *globals) reloads(ctx context.Context, m *manage.Manager, h *host.Host, serving config.Gateway, hup <-chan os.Signal, watch bool) {
	changed := make(chan struct{}, 1)
	if watch {
		w, err := m.WatchFile(0)
		if err != nil {
			fmt.Fprintf(g.stderr, "plughost: warning: %v; reload with SIGHUP instead\n", err)
		} else {
			var watching sync.WaitGroup
			defer watching.Wait()
			watching.Go(func() {
				w.Run(ctx, func() {
					select {
					case changed <- struct{}{}:
					default:
					}
				})
			})
		}
	}
	for {
		var why string
		select {
		case <-ctx.Done():
			return
		case <-hup:
			why = "SIGHUP"
		case <-changed:
			why = "config file changed"
		}
		g.reload(m, h, serving, why)
	}
}

// reload applies the config once and reports the outcome on stderr.
func (g *globals) reload(m *manage.Manager, h *host.Host, serving config.Gateway, why string) {
	stamp := time.Now().Format("15:04:05")
	res, err := m.Reload(h)
	var invalid *host.InvalidConfigError
	switch {
	case errors.As(err, &invalid):
		fmt.Fprintf(g.stderr, "%s  config not applied (%s); still running the previous one:\n%s\n", stamp, why, indent(invalid.Error(), "  "))
		return
	case err != nil:
		fmt.Fprintf(g.stderr, "%s  config not applied (%s): %v\n", stamp, why, err)
		return
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(g.stderr, "plughost: warning:", w)
	}
	fmt.Fprintf(g.stderr, "%s  config applied (%s): %s\n", stamp, why, res.ApplyResult)
	for i, name := range res.KeptPrevious {
		if i == keptListed {
			fmt.Fprintf(g.stderr, "  … and %d more servers kept on their previous settings (plughost mcp list shows why)\n", len(res.KeptPrevious)-i)
			break
		}
		st, _ := h.Status(name)
		fmt.Fprintf(g.stderr, "  %s: %s\n", name, termsafe.Text(strings.ReplaceAll(st.ConfigError, "\n", "; ")))
	}
	if now := h.Config().MCP.Gateway; !reflect.DeepEqual(now, serving) {
		fmt.Fprintf(g.stderr, "%s  tools.mcp.gateway changed; it takes effect when serve restarts\n", stamp)
	}
}

// keptListed is how many servers kept on their previous settings a reload
// line lists with their problems.
const keptListed = 10

// watchStates prints the servers' state changes (host.StateLog: one line
// each, a summary when many change at once) until ctx ends, at most one
// round per stateLogGap: each round reads every server's status. A line
// quotes servers (their last errors), so it is made safe to print.
func watchStates(ctx context.Context, h *host.Host, g *globals) {
	var log host.StateLog
	for {
		changed := h.Changed()
		stamp := time.Now().Format("15:04:05")
		for _, line := range log.Lines(h.Statuses()) {
			fmt.Fprintf(g.stderr, "%s  %s\n", stamp, termsafe.Text(line))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
		select {
		case <-time.After(stateLogGap):
		case <-ctx.Done():
			return
		}
	}
}

// stateLogGap paces watchStates: changes within it are printed together.
const stateLogGap = 200 * time.Millisecond
