package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/lib/termsafe"
	"github.com/plughost/plughost/manage"
)

func newMCPClientCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Manage the gateway's named clients (tools.mcp.gateway.clients)",
		Long: `client manages named clients of plughost serve. Each client has its own bearer token,
which opens /mcp and /servers/<name>/mcp of its servers only (never /api or the dashboard),
and sees only the servers and tools its entry allows. The config file keeps only the sha256
of a token: add and rotate print the token once. A running serve applies every change at
its next reload (it watches the file), without a restart.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("mcp client needs a subcommand: add, list, remove or rotate (see plughost mcp client --help)")
		},
	}
	cmd.AddCommand(newClientAddCommand(g), newClientListCommand(g), newClientRemoveCommand(g), newClientRotateCommand(g))
	return cmd
}

func newClientAddCommand(g *globals) *cobra.Command {
	var in manage.ClientInput
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add NAME --servers a,b [--include-tools GLOB,...] [--exclude-tools GLOB,...]",
		Short: "Add a client with a new token, limited to some servers and tools",
		Long: `add writes a new client to your config file and prints its token once (plughost keeps
only its sha256). --servers names the servers the client may use. --include-tools and
--exclude-tools are globs (* ? [a-z]) on the final tool names, e.g. "mcp_github_*": with
--include-tools the client sees only matching tools; --exclude-tools hides matching ones.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(in.Servers) == 0 {
				return usagef("--servers is required: name the servers client %q may use, e.g. --servers github,fs (see plughost mcp list)", args[0])
			}
			res, err := g.manager().AddClient(args[0], in, manage.WriteOptions{})
			var unknown *manage.UnknownServersError
			if errors.As(err, &unknown) {
				return fmt.Errorf("--servers: %w", err)
			}
			if err != nil {
				return err
			}
			return g.printClientToken(res, asJSON, "Added")
		},
	}
	cmd.Flags().StringSliceVar(&in.Servers, "servers", nil, "servers the client may use (comma-separated)")
	cmd.Flags().StringSliceVar(&in.IncludeTools, "include-tools", nil, "show the client only tools matching these globs (comma-separated)")
	cmd.Flags().StringSliceVar(&in.ExcludeTools, "exclude-tools", nil, "hide tools matching these globs from the client (comma-separated)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"name": ..., "token": ...}`)
	return cmd
}

func newClientRotateCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rotate NAME",
		Short: "Give a client a new token (the old one stops working)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := g.manager().RotateClient(args[0], manage.WriteOptions{})
			if err != nil {
				return err
			}
			return g.printClientToken(res, asJSON, "Rotated the token of")
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"name": ..., "token": ...}`)
	return cmd
}

// printClientToken prints a new token: the one time it is ever shown.
func (g *globals) printClientToken(res manage.ClientResult, asJSON bool, did string) error {
	printWarnings(g.stderr, res.Warnings)
	if asJSON {
		return writeJSON(g.stdout, struct {
			Name  string `json:"name"`
			Token string `json:"token"`
		}{res.Name, res.Token.Reveal()})
	}
	fmt.Fprintf(g.stdout, "%s client %q in %s.\n", did, termsafe.Text(res.Name), res.File)
	fmt.Fprintf(g.stdout, "Token (shown only now; plughost keeps only its sha256):\n%s\n", res.Token.Reveal())
	fmt.Fprintln(g.stdout, `The client sends it as "Authorization: Bearer <token>" to /mcp or /servers/<name>/mcp.`)
	return nil
}

func newClientListCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the clients and what they may use (never their tokens)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := g.manager().Clients()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, list)
			}
			printClients(g.stdout, list)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printClients(w io.Writer, list []manage.ClientListing) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No clients configured (tools.mcp.gateway.clients is empty). Add one with: plughost mcp client add NAME --servers a,b")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVERS\tINCLUDE TOOLS\tEXCLUDE TOOLS")
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termsafe.Text(c.Name), termsafe.Text(strings.Join(c.Servers, ",")),
			termsafe.Text(orDash(strings.Join(c.IncludeTools, ","))), termsafe.Text(orDash(strings.Join(c.ExcludeTools, ","))))
	}
	tw.Flush()
}

func newClientRemoveCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a client: its token and sessions stop working",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := g.manager().RemoveClient(args[0], manage.WriteOptions{})
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "Removed client %q from %s (previous version kept in %s).\n", termsafe.Text(args[0]), res.File, res.Backup)
			return nil
		},
	}
}
