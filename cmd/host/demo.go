package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host/demoserver"
)

func newDemoServerCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "demo-server",
		Short: "Run the built-in demo MCP server on stdin/stdout",
		Long: `demo-server speaks MCP over stdio with a few useful tools (echo, calculate,
current_time, text_stats, generate_text, sleep, hash). The built-in demo config runs it.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return demoserver.ServeStdio(cmd.Context(), os.Stdin, os.Stdout, version)
		},
	}
}
