package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/dashboard"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/manage"
	"github.com/plughost/plughost/host/oauth"
	"github.com/plughost/plughost/host/secret"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/host/termsafe"
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
servers whose settings changed restart; an invalid config is refused and the previous one
keeps running, with the reason in the log). SIGHUP reloads too. Changes of
tools.mcp.gateway take effect at the next start. State changes are logged on stderr until
SIGINT or SIGTERM; then calls in flight finish (up to tools.mcp.gateway.shutdown_seconds)
and every plugin and server is stopped.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			hup := make(chan os.Signal, 1) // before anything is announced: a SIGHUP must not kill serve
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			tuneGC()
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
			door.Mount(gateway.MCPPath, gw.HTTPHandler())
			door.Mount(gateway.ServerPattern, gw.ServerHTTPHandler())
			if gc.Debug {
				door.Mount("GET /debug/pprof/", http.HandlerFunc(pprof.Index))
			}
			stopEvents := make(chan struct{})
			inbox := oauth.NewInbox(strings.TrimSuffix(gateway.URL(ln.Addr()), gateway.MCPPath) + api.OAuthCallbackPath)
			door.MountPublic("GET "+api.OAuthCallbackPath, inbox)
			door.Mount("/api/", api.New(api.Options{Host: h, Manager: m, Version: version, Logger: h.Logger().Named("api"),
				Stop: stopEvents, OAuthInbox: inbox}))
			dashboard.New(dashboard.Options{Token: tok, Logger: h.Logger().Named("dashboard")}).MountOn(door)
			door.OnShutdown(gw.Shutdown)
			door.OnShutdown(func() { close(stopEvents) })
			exe, _ := os.Executable()
			url := gateway.URL(ln.Addr())
			fmt.Fprint(g.stdout, gateway.ClientSnippet(gateway.Snippet{URL: url, Token: tok, ShowToken: isTerminal(g.stdout),
				TokenFile: gc.TokenFile, Exe: exe, ConfigFile: g.namedConfigFile(m)}))
			h.Start(ctx)
			fmt.Fprintf(g.stderr, "plughost: serving %d configured server(s) at %s; stop with Ctrl-C\n", len(h.ServerNames()), url)
			fmt.Fprintf(g.stderr, "plughost: dashboard at %s/ (open it logged in with `plughost dashboard`)\n", strings.TrimSuffix(url, gateway.MCPPath))
			if unpublish := g.publish(m, url, gc); unpublish != nil {
				defer unpublish()
			}
			runCtx, stopRun := context.WithCancel(ctx)
			var background sync.WaitGroup
			background.Go(func() { gw.Run(runCtx) })
			background.Go(func() { watchStates(runCtx, h, g) })
			background.Go(func() { g.reloads(runCtx, m, h, configured, hup, !noWatch) })
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
	cmd.Flags().BoolVar(&noWatch, "no-watch", false, "do not watch the config file (SIGHUP still reloads)")
	return cmd
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
	if now := h.Config().MCP.Gateway; !reflect.DeepEqual(now, serving) {
		fmt.Fprintf(g.stderr, "%s  tools.mcp.gateway changed; it takes effect when serve restarts\n", stamp)
	}
}

// watchStates prints one line per server state change until ctx ends; the
// state quotes the server (its last error), so it is made safe to print.
func watchStates(ctx context.Context, h *host.Host, g *globals) {
	last := map[string]supervisor.State{}
	for {
		changed := h.Changed()
		for _, st := range h.Statuses() {
			if last[st.Name] == st.State {
				continue
			}
			last[st.Name] = st.State
			fmt.Fprintf(g.stderr, "%s  %-20s %s\n", time.Now().Format("15:04:05"), st.Name, termsafe.Text(host.DescribeState(st)))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
