package main

import (
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/plughost/plughost/lib/termsafe"
)

// globals are the flags every command shares.
type globals struct {
	configPath string
	sets       []string
	logLevel   string
	stdout     io.Writer
	stderr     io.Writer
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "plughost",
		Short: "Connect AI agents to MCP servers",
		Long: `plughost runs MCP (Model Context Protocol) servers, each behind its own transport
plugin process, and exposes their tools to agents as mcp_<server>_<tool>.

Configuration is read from --config, $PLUGHOST_CONFIG or ~/.plughost/config.json; with
none of them, the built-in demo config is used.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		// Without Args and RunE, cobra reports an unknown command as a plain
		// error (exit 1), not a usage error.
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		// hclog would silently log at info for a level it does not know.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if g.logLevel == "" {
				// A long-running server reports what happens; a one-shot
				// command's output is its answer, and status shows failures.
				g.logLevel = "error"
				if cmd.Name() == "serve" || cmd.Name() == "stdio" {
					g.logLevel = "info"
				}
			}
			if hclog.LevelFromString(g.logLevel) == hclog.NoLevel {
				return usagef("--log-level %q: want trace, debug, info, warn, error or off", g.logLevel)
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.configPath, "config", "", "config file (default $PLUGHOST_CONFIG, else ~/.plughost/config.json)")
	pf.StringArrayVar(&g.sets, "set", nil, "override a config value, e.g. --set tools.mcp.discovery.ttl=3 (repeatable)")
	pf.StringVar(&g.logLevel, "log-level", "", "log level on stderr: trace, debug, info, warn, error, off (default info for serve and stdio, error otherwise)")
	root.AddCommand(
		newServeCommand(g),
		newDashboardCommand(g),
		newStdioCommand(g),
		newMCPCommand(g),
		newToolsCommand(g),
		newCallCommand(g),
		newDemoServerCommand(g),
		newBenchCommand(g),
		newSearchCommand(g),
		newChatCommand(g),
		newVersionCommand(g),
		newManCommand(g),
	)
	return root
}

// logger is the program's log on stderr. hclog escapes the values of a
// line but not its message, which may quote a plugin, so every line goes
// through termsafe too.
func (g *globals) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:   "plughost",
		Level:  hclog.LevelFromString(g.logLevel),
		Output: termsafe.Writer(g.stderr),
	})
}

// unknownCommand rejects `plughost <word>` for a word that is no command.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return usagef("unknown command %q for %q (did you mean %s?)", args[0], cmd.CommandPath(), strings.Join(s, ", "))
	}
	return usagef("unknown command %q for %q (see --help)", args[0], cmd.CommandPath())
}

// exactArgs is cobra.ExactArgs with a usage error (exit code 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d (see --help)", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs with a usage error (exit code 2).
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("%s takes %d to %d arguments, got %d (see --help)", cmd.CommandPath(), lo, hi, len(args))
		}
		return nil
	}
}
