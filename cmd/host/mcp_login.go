package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/oauth/tokens"
)

// defaultLoginTimeout bounds a login from the command line.
const defaultLoginTimeout = 5 * time.Minute

func newMCPLoginCommand(g *globals) *cobra.Command {
	var noBrowser bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login <name>",
		Short: "Log in to an OAuth server in the browser; plughost keeps the tokens",
		Long: `login runs the OAuth authorization-code flow for a server with "oauth" in its config: it
finds the server's authorization server, registers plughost as a client if no client_id is
configured, opens the authorization page in your browser ($BROWSER, else xdg-open) and always
prints its URL, and receives the answer on http://127.0.0.1:<callback_port>/callback. The
tokens are stored for plughost only (~/.plughost/oauth, mode 0600), refreshed before they
expire, and never shown. A running "plughost serve" picks the login up by itself.

After a server asked for more scope (a step-up: "needs login: the server asks for more
scope"), the login asks for the scopes granted before plus the ones the server named.

With --no-browser (a machine without one), open the printed URL anywhere; after you approve,
the browser is sent to a 127.0.0.1 address that may not load there: paste that whole address
here.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := g.newHost()
			if err != nil {
				return err
			}
			defer h.Close()
			ui := loginUI{out: g.stdout, timeout: timeout}
			if noBrowser {
				ui.paste = cmd.InOrStdin()
			}
			return g.login(cmd.Context(), h, args[0], ui)
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "do not open a browser: print the URL and read the redirected address from stdin")
	cmd.Flags().DurationVar(&timeout, "timeout", defaultLoginTimeout, "how long to wait for the login")
	return cmd
}

// loginUI is how a login from the command line talks to the user.
type loginUI struct {
	out     io.Writer     // where the URL and the outcome are printed
	paste   io.Reader     // non-nil: no browser; the redirected address is pasted here
	timeout time.Duration // bounds the whole login
}

// login logs in to the server name in h: it prints the authorization URL,
// opens the browser (or reads the pasted address), and prints the outcome
// and what the user should know about it (notes on stderr).
func (g *globals) login(ctx context.Context, h *host.Host, name string, ui loginUI) error {
	ctx, cancel := context.WithTimeout(ctx, ui.timeout)
	defer cancel()
	opts := tokens.LoginOptions{
		Prompt: func(u string) error {
			fmt.Fprintf(ui.out, "To log in to %s, open this URL in a browser:\n\n  %s\n\n", name, u)
			if ui.paste != nil {
				fmt.Fprint(ui.out, "After you approve, paste the address the browser was sent to (http://127.0.0.1:…): ")
				return nil
			}
			if err := openBrowser(u); err != nil {
				fmt.Fprintf(g.stderr, "plughost: could not open a browser (%v); open the URL above yourself\n", err)
			}
			fmt.Fprintln(ui.out, "Waiting for the browser…")
			return nil
		},
		Note: func(n string) { fmt.Fprintf(g.stderr, "plughost: note: %s\n", n) },
	}
	if ui.paste != nil {
		opts.Paste = func(context.Context) (string, error) { return readLine(ui.paste) }
	}
	st, err := h.Login(ctx, name, opts)
	if errors.Is(err, context.DeadlineExceeded) || (err != nil && ctx.Err() != nil) {
		return fmt.Errorf("server %q: no login within %s (--timeout): %w", name, ui.timeout, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(ui.out, "\nLogged in to %s: %s.\n", name, host.LoginText(&st, time.Now()))
	return nil
}

// readLine reads one line (the pasted address).
func readLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return line, nil
}

func newMCPLogoutCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "logout <name>",
		Short: "Forget a server's OAuth tokens (and the client plughost registered)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := g.newHost()
			if err != nil {
				return err
			}
			defer h.Close()
			had, err := h.Logout(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if had {
				fmt.Fprintf(g.stdout, "Logged out of %s: its tokens are deleted.\n", args[0])
			} else {
				fmt.Fprintf(g.stdout, "%s was not logged in; nothing to forget.\n", args[0])
			}
			return nil
		},
	}
}
