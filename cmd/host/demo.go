package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/internal/demoserver"
)

func newDemoServerCommand(g *globals) *cobra.Command {
	var listen string
	var extraTools int
	cmd := &cobra.Command{
		Use:   "demo-server",
		Short: "Run the built-in demo MCP server (stdio, or streamable HTTP with --listen)",
		Long: `demo-server speaks MCP with a few useful tools (echo, calculate, current_time,
text_stats, generate_text, sleep, hash). By default it serves stdin/stdout, which is how
the built-in demo config runs it. With --listen it serves streamable HTTP instead and
prints "listening <url>" (try it as a remote server: "type": "http", "url": <url>).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return demoserver.ServeStdio(cmd.Context(), os.Stdin, os.Stdout, version, demoserver.WithExtraTools(extraTools))
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usagef("--listen %s: %v", listen, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return demoserver.ServeHTTP(ctx, ln, version, func(url string) {
				fmt.Fprintf(g.stdout, "listening %s\n", url)
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	cmd.Flags().IntVar(&extraTools, "tools", 0, "also offer this many no-op tools extra_0 … (for scale benchmarks)")
	_ = cmd.Flags().MarkHidden("tools")
	return cmd
}
