package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/manage"
)

// addFlags are the flags of `mcp add`.
type addFlags struct {
	typ        string
	url        string
	env        []string
	envFile    string
	inheritEnv bool
	headers    []string
	deferred   bool
	noDeferred bool
	disabled   bool
	timeout    time.Duration
	force      bool
	oauth      oauthFlags
}

func newMCPAddCommand(g *globals) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add <name> [flags] -- <command> [args...] | add <name> --url URL [flags]",
		Short: "Add (or, with --force, replace) a server in the user config file",
		Long: `add writes one server into tools.mcp.servers of your config file, after checking
it with the same validator plughost runs with. Everything after -- is the server's command
and its arguments, even words that look like flags:

  plughost mcp add files -- npx -y @modelcontextprotocol/server-filesystem /tmp
  plughost mcp add api --type http --url https://example.com/mcp -H 'Authorization: Bearer TOKEN'

A remote server that wants an OAuth login gets --oauth (then: plughost mcp login <name>).
By default plughost registers itself with the authorization server (dynamic client
registration). A client registered there beforehand is given with --oauth-client-id and its
secret, if it has one, with --oauth-client-secret-env VAR or --oauth-client-secret-stdin
(never on the command line); a client ID metadata document you publish is given with
--oauth-client-metadata-url and used where the authorization server supports those:

  plughost mcp add linear --type http --url https://mcp.linear.app/mcp --oauth
  plughost mcp add corp --type http --url https://mcp.corp.example/mcp \
      --oauth-client-id plughost-corp --oauth-client-secret-stdin   # asks for the secret

An existing name is replaced only after you confirm on a terminal, or with --force.
Adding the first server also sets tools.mcp.enabled to true.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("mcp add needs a server name (see --help)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name, command, err := splitAddArgs(cmd, args)
			if err != nil {
				return err
			}
			entry, err := f.entry(cmd, command)
			if err != nil {
				return err
			}
			return g.addServer(name, entry, f.force)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.typ, "type", "t", "", "transport: "+config.KnownTypesText()+" or a third-party type (default: detected from the command or --url)")
	fl.StringVar(&f.url, "url", "", "endpoint of a remote (sse/http) server")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "environment variable KEY=value for a stdio server (repeatable)")
	fl.StringVar(&f.envFile, "env-file", "", "environment file for a stdio server")
	fl.BoolVar(&f.inheritEnv, "inherit-env", false, "pass plughost's whole environment to a stdio server")
	fl.StringArrayVarP(&f.headers, "header", "H", nil, "HTTP header 'Name: value' for a remote server (repeatable)")
	fl.BoolVar(&f.deferred, "deferred", false, `set "deferred": true (tools hidden behind search when discovery is on)`)
	fl.BoolVar(&f.noDeferred, "no-deferred", false, `set "deferred": false (tools always visible)`)
	fl.BoolVar(&f.disabled, "disabled", false, "add the server switched off")
	fl.DurationVar(&f.timeout, "timeout", 0, "timeout of each tool call of this server, e.g. 90s (timeouts.call_seconds)")
	fl.BoolVar(&f.force, "force", false, "replace a server of the same name without asking")
	f.oauth.addOAuthFlags(fl)
	return cmd
}

// splitAddArgs separates the name from the server command: everything after
// "--" (or after the name, without "--") is the command.
func splitAddArgs(cmd *cobra.Command, args []string) (string, []string, error) {
	dash := cmd.ArgsLenAtDash()
	switch {
	case dash == 0:
		return "", nil, usagef(`mcp add: the server name comes before "--": plughost mcp add <name> -- <command> [args...]`)
	case dash > 1:
		return "", nil, usagef("mcp add: expected one name before \"--\", got %d words (%s); put the server's command after \"--\"", dash, strings.Join(args[:dash], " "))
	}
	return args[0], args[1:], nil
}

func (f addFlags) entry(cmd *cobra.Command, command []string) (config.Server, error) {
	e := config.Server{Enabled: !f.disabled, Type: f.typ, URL: secret.URL(f.url), EnvFile: f.envFile, InheritEnv: f.inheritEnv}
	switch {
	case len(command) > 0 && f.url != "":
		return e, usagef("mcp add: give either a command (after --) or --url, not both")
	case len(command) == 0 && f.url == "":
		return e, usagef("mcp add: give the server's command after -- (plughost mcp add <name> -- npx -y some-server) or its --url")
	case len(command) > 0:
		e.Command, e.Args = command[0], command[1:]
	}
	switch {
	case cmd.Flags().Changed("deferred") && cmd.Flags().Changed("no-deferred"):
		return e, usagef("--deferred and --no-deferred contradict each other; give one, or neither to follow tools.mcp.discovery.enabled")
	case cmd.Flags().Changed("deferred"):
		e.DeferredOverride = &f.deferred
	case cmd.Flags().Changed("no-deferred"):
		no := false
		e.DeferredOverride = &no
	}
	if cmd.Flags().Changed("timeout") {
		if f.timeout <= 0 {
			return e, usagef("--timeout must be positive, e.g. --timeout 90s")
		}
		secs := f.timeout.Seconds()
		e.TimeoutOverrides = config.TimeoutOverrides{Call: &secs}
	}
	var err error
	if e.OAuth, err = f.oauth.block(cmd); err != nil {
		return e, err
	}
	if e.Env, err = parsePairs("--env", f.env, "=", "KEY=value"); err != nil {
		return e, err
	}
	if e.Headers, err = parsePairs("--header", f.headers, ":", "'Name: value'"); err != nil {
		return e, err
	}
	return e, nil
}

// parsePairs parses repeated KEY<sep>value flags. Messages name an item by
// its position and key only: its value may be a secret.
func parsePairs(flag string, items []string, sep, form string) (map[string]secret.String, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := make(map[string]secret.String, len(items))
	for i, item := range items {
		k, v, ok := strings.Cut(item, sep)
		k = strings.TrimSpace(k)
		if sep == ":" {
			v = strings.TrimSpace(v)
		}
		switch {
		case !ok:
			return nil, usagef("%s item %d has no %q; write %s %s", flag, i+1, sep, flag, form)
		case k == "":
			return nil, usagef("%s item %d has an empty name; write %s %s", flag, i+1, flag, form)
		}
		if _, dup := out[k]; dup {
			return nil, usagef("%s %s is given twice; give each name once", flag, k)
		}
		out[k] = secret.String(v)
	}
	return out, nil
}

// addServer writes entry as tools.mcp.servers[name]: an existing name is
// replaced with --force, or after the user confirms on a terminal.
func (g *globals) addServer(name string, entry config.Server, force bool) error {
	asked := false
	confirmReplace := func(name, file string) bool {
		if !interactive() {
			return false
		}
		asked = true
		return confirm(g.stderr, fmt.Sprintf("Server %q already exists in %s. Replace it?", name, file), false)
	}
	res, err := g.manager().AddServer(name, entry, manage.AddOptions{Replace: force, Confirm: confirmReplace})
	var exists *manage.ExistsError
	switch {
	case errors.As(err, &exists) && asked:
		return fmt.Errorf("server %q left as it was", name)
	case errors.As(err, &exists):
		return fmt.Errorf("%w; add --force to replace it, or `plughost mcp remove %s` first", err, name)
	case err != nil:
		return err
	}
	printWarnings(g.stderr, res.Warnings)
	g.reportAdd(name, entry, res)
	return nil
}

func (g *globals) reportAdd(name string, e config.Server, res manage.AddResult) {
	verb := "Added"
	if res.Replaced {
		verb = "Replaced"
	}
	what := e.URL.String() // masked: a url may carry credentials
	if e.Command != "" {
		what = strings.Join(append([]string{e.Command}, e.Args...), " ")
	}
	fmt.Fprintf(g.stdout, "%s server %q (%s) in %s\n", verb, name, what, res.File)
	if res.Created {
		fmt.Fprintf(g.stdout, "Created %s (mode 0600).\n", res.File)
	} else {
		fmt.Fprintf(g.stdout, "Previous version kept in %s.\n", res.Backup)
	}
	if res.EnabledMCP {
		fmt.Fprintln(g.stdout, "This is the first server: set tools.mcp.enabled to true so that plughost runs it.")
	}
	if !e.Enabled {
		fmt.Fprintln(g.stdout, "The server is disabled; enable it by adding it again without --disabled.")
	}
	if e.OAuth != nil {
		fmt.Fprintf(g.stdout, "Log in with: plughost mcp login %s\n", shellQuote(name))
	}
	fmt.Fprintf(g.stdout, "Check it with: plughost mcp test %s\n", shellQuote(name))
}

// shellQuote quotes s for a shell command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
