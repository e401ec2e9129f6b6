package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/manage"
	"github.com/plughost/plughost/redisstore"
)

// manager locates the configuration the way every command does: --config,
// $PLUGHOST_CONFIG or ~/.plughost/config.json, with --set on top and the
// built-in demo config (this binary's demo-server) when there is none.
func (g *globals) manager() *manage.Manager {
	home, _ := os.UserHomeDir()
	var demo []string
	if exe, err := os.Executable(); err == nil {
		demo = []string{exe, "demo-server"}
	}
	return manage.New(manage.Options{UserFile: g.configPath, Environ: os.Environ(), Home: home, Sets: g.sets, DemoCommand: demo})
}

// loadConfig loads the layered config, saying on stderr when the built-in
// demo config is used and printing the config's warnings.
func (g *globals) loadConfig() (*manage.Loaded, error) {
	l, err := g.manager().Load()
	if err != nil {
		return nil, err
	}
	if l.Demo {
		fmt.Fprintf(g.stderr, "plughost: no config at %s; using the built-in demo config (see `plughost mcp add` or --config)\n", l.UserFile)
	}
	for _, w := range l.Warnings {
		fmt.Fprintln(g.stderr, "plughost: warning:", w)
	}
	return l, nil
}

// newHost loads the config and builds (but does not start) the host.
func (g *globals) newHost() (*host.Host, error) {
	l, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	return g.hostFor(l)
}

// hostFor builds (but does not start) the host of a loaded config, with
// the session store the config names.
func (g *globals) hostFor(l *manage.Loaded) (*host.Host, error) {
	store, err := sessionStore(l.Config, g.logger())
	if err != nil {
		return nil, err
	}
	opts := host.Options{
		ConfigDir: filepath.Dir(l.UserFile),
		Environ:   os.Environ(),
		Logger:    g.logger(),
		Version:   version,
		// The binary is a process of its own: hand a large result's memory
		// back at once rather than at the next collection.
		ReturnMemoryAfterLargeResults: true,
	}
	if store != nil { // a nil *Store is not a nil SessionStore
		opts.SessionStore = store
	}
	h, err := host.NewFromLoaded(l.Loaded, opts)
	if err != nil && store != nil {
		store.Close()
	}
	return h, err
}

// sessionStore opens the session store tools.mcp.gateway.store names: nil
// for the in-memory default (the host makes it), Redis otherwise. Opening
// Redis does not connect (commands that never touch a session never do).
func sessionStore(cfg *config.Config, logger hclog.Logger) (*redisstore.Store, error) {
	g := cfg.MCP.Gateway
	if g.Store.Kind() != config.StoreRedis {
		return nil, nil
	}
	redisstore.RouteClientLogs(logger.Named("redis"))
	return redisstore.Open(redisstore.FromConfig(g, logger.Named("sessions")))
}

// startHost builds and starts the host and waits (up to wait) until every
// server is connected or has failed once.
func (g *globals) startHost(ctx context.Context, wait time.Duration) (*host.Host, error) {
	h, err := g.newHost()
	if err != nil {
		return nil, err
	}
	h.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_ = h.WaitSettled(wctx) // servers still connecting are shown as such
	return h, nil
}

// defaultWait is how long one-shot commands wait for servers to connect.
const defaultWait = 45 * time.Second

// addWaitFlag adds --wait, the connect wait of commands that start a host.
func addWaitFlag(cmd *cobra.Command, wait *time.Duration) {
	cmd.Flags().DurationVar(wait, "wait", defaultWait, "how long to wait for servers to connect")
}
