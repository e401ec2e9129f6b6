package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/internal/demoserver"
)

// loadConfig loads the layered config. With no user config anywhere (no
// --config, no $PLUGHOST_CONFIG, no ~/.plughost/config.json) it uses the
// built-in demo config and says so on stderr.
func (g *globals) loadConfig() (*config.Loaded, error) {
	environ := os.Environ()
	home, _ := os.UserHomeDir()
	opts := config.LoadOptions{UserFile: g.configPath, Environ: environ, Sets: g.sets, Home: home}
	l, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	if l.UserFileExists || g.configPath != "" || os.Getenv("PLUGHOST_CONFIG") != "" {
		return l, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the plughost executable for the demo config: %w", err)
	}
	fmt.Fprintf(g.stderr, "plughost: no config at %s; using the built-in demo config (see `plughost mcp add` or --config)\n", l.UserFile)
	opts.UserData = demoserver.Config(exe)
	return config.Load(opts)
}

// newHost loads the config and builds (but does not start) the host.
func (g *globals) newHost() (*host.Host, error) {
	l, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	return host.NewFromLoaded(l, host.Options{
		ConfigDir: filepath.Dir(l.UserFile),
		Environ:   os.Environ(),
		Logger:    g.logger(),
		Version:   version,
	})
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
