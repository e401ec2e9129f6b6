package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/gateway"
)

func newStdioCommand(g *globals) *cobra.Command {
	var logFile string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "stdio",
		Short: "Serve the tools as one MCP server on stdin/stdout (for clients that start plughost)",
		Long: `stdio starts every enabled MCP server and serves all their tools as one MCP server
on stdin/stdout (one session, discovery applied), for clients that launch their servers
themselves (Claude Desktop: {"command": "plughost", "args": ["stdio"]}). stdout carries
only MCP messages; logs go to stderr, or to --log-file. It waits up to --wait for the
servers to connect before answering, so the first tools/list is complete; servers that
connect later are announced with notifications/tools/list_changed, and a request naming a
server still starting waits for it (at most its timeouts.start_seconds + initialize_seconds).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
				if err != nil {
					return fmt.Errorf("--log-file: %w", err)
				}
				defer f.Close()
				g.stderr = f
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			h, err := g.newHost()
			if err != nil {
				return err
			}
			h.Start(ctx)
			wctx, cancel := context.WithTimeout(ctx, wait)
			_ = h.WaitSettled(wctx) // late servers are announced with list_changed
			cancel()
			gc := h.Config().MCP.Gateway
			gw := gateway.New(h, gateway.Options{Logger: h.Logger().Named("gateway"), Version: version,
				MaxMessageBytes: gc.MaxRequestBytes(), ShutdownTimeout: gc.ShutdownTimeout()})
			err = gw.ServeStdio(ctx, cmd.InOrStdin(), g.stdout)
			if cerr := h.Close(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&logFile, "log-file", "", "write logs to this file (mode 0600, appended) instead of stderr")
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Second, "how long to wait for servers to connect before serving")
	return cmd
}
