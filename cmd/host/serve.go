package main

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

func newServeCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the host: start every enabled server and keep it up",
		Long: `serve starts every enabled MCP server (each behind its own transport plugin
process), restarts servers that crash, and logs every state change until it receives
SIGINT or SIGTERM; then it stops every plugin and server and exits.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			h, err := g.newHost()
			if err != nil {
				return err
			}
			h.Start(ctx)
			fmt.Fprintf(g.stderr, "plughost: serving %d configured server(s); stop with Ctrl-C. "+
				"In another terminal try: plughost mcp list, plughost tools, plughost call <tool> '{...}'\n", len(h.ServerNames()))
			watchStates(ctx, h, g)
			fmt.Fprintln(g.stderr, "plughost: shutting down")
			return h.Close()
		},
	}
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
