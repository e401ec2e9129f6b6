package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/dashboard"
)

func newDashboardCommand(g *globals) *cobra.Command {
	var noOpen bool
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Open the web dashboard of the running plughost serve, logged in",
		Long: `dashboard finds the "plughost serve" running this config, asks it for a one-time login
code (valid for two minutes, usable once) and opens the dashboard with it in your browser
($BROWSER, else xdg-open when a display is available); the URL is always printed. The code
never sits on a command line (ps shows those to every user): the browser is sent to a
one-shot redirect on 127.0.0.1, which only this user's processes can follow, and dashboard
waits (up to two minutes) until it did. The page trades the code for the gateway token,
keeps the token in that browser tab only and removes the code from the address bar: the
token itself never appears in a URL or in history.

Start the server first with "plughost serve"; without one, dashboard exits with status 1.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, _ := os.UserHomeDir()
			m := g.manager()
			rt, ok := api.Find(home, m.UserFile())
			if !ok {
				return fmt.Errorf("no plughost serve is running for %s: start it with `plughost serve` (in another terminal), then run `plughost dashboard` again", m.UserFile())
			}
			c, _, err := api.Dial(cmd.Context(), rt)
			if err != nil {
				return fmt.Errorf("plughost serve (pid %d) does not answer: %w", rt.PID, err)
			}
			var issued struct {
				Code string `json:"code"`
			}
			if err := c.Post(cmd.Context(), dashboard.LoginCodesPath, struct{}{}, &issued); err != nil {
				var ae *api.Error
				if errors.As(err, &ae) && ae.Status == 404 {
					return fmt.Errorf("the running serve (pid %d, %s) has no dashboard; restart it with this plughost version", rt.PID, rt.URL)
				}
				return fmt.Errorf("get a login code: %w", err)
			}
			url := dashboard.LoginURL(c.URL(), issued.Code)
			fmt.Fprintf(g.stdout, "Dashboard: %s\n(the link logs in once, within %s)\n", url, dashboard.CodeTTL)
			if noOpen {
				return nil
			}
			if !browserAvailable() {
				fmt.Fprintln(g.stderr, "plughost: no browser found ($BROWSER unset, no display); open the link above yourself")
				return nil
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), dashboard.CodeTTL)
			defer cancel()
			switch err := openSecretly(ctx, url, openBrowser, ownConn); {
			case errors.Is(err, context.DeadlineExceeded):
				fmt.Fprintln(g.stderr, "plughost: the browser did not come for the login; open the link above yourself")
			case err != nil:
				fmt.Fprintf(g.stderr, "plughost: could not open a browser (%v); open the link above yourself\n", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "print the login link without opening a browser")
	return cmd
}

// browserAvailable reports whether openBrowser has a way to show a page:
// $BROWSER, macOS's open, or xdg-open with a graphical display.
func browserAvailable() bool {
	if os.Getenv("BROWSER") != "" || runtime.GOOS == "darwin" {
		return true
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false
	}
	_, err := exec.LookPath("xdg-open")
	return err == nil
}
