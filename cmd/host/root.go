package main

import (
	"io"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
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
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.configPath, "config", "", "config file (default $PLUGHOST_CONFIG, else ~/.plughost/config.json)")
	pf.StringArrayVar(&g.sets, "set", nil, "override a config value, e.g. --set tools.mcp.discovery.ttl=3 (repeatable)")
	pf.StringVar(&g.logLevel, "log-level", "warn", "log level on stderr: trace, debug, info, warn, error, off")
	root.AddCommand(
		newServeCommand(g),
		newMCPCommand(g),
		newToolsCommand(g),
		newCallCommand(g),
		newDemoServerCommand(g),
		newBenchCommand(g),
	)
	return root
}

func (g *globals) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:   "plughost",
		Level:  hclog.LevelFromString(g.logLevel),
		Output: g.stderr,
	})
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
