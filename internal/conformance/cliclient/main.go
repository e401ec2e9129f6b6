// Command cliclient is plughost's adapter for the auth client scenarios of
// the official MCP conformance suite through the plughost command alone:
//
//	conformance client --command "<dir>/cliclient" --suite auth
//
// where <dir> holds plughost and plugins/mcp-transport-http beside it. It
// plays a user at a terminal, in a home directory of its own, who sets the
// scenario's server up and uses it:
//
//	plughost mcp add scenario --type http --url <server-url> \
//	    --oauth-client-metadata-url https://conformance-test.local/client-metadata.json \
//	    [--oauth-client-id ID --oauth-client-secret-env VAR]   (a pre-registered client)
//	plughost mcp login scenario
//	plughost tools --json
//	plughost call <tool> '<sample arguments>'                   (on a terminal)
//
// Its $BROWSER is this command (cliclient --browse URL), which approves at
// once. Each call runs on a pseudo-terminal (util-linux script), and the
// user answers yes when call offers to log in again (a step-up). The suite
// passes a pre-registered client's id and secret as JSON in
// MCP_CONFORMANCE_CONTEXT; the secret reaches plughost through an
// environment variable, never the command line.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/plughost/plughost/internal/conformance/play"
)

// serverName is the scenario server's name in the config.
const serverName = "scenario"

// clientMetadataURL is the client ID metadata document URL the suite's
// basic-cimd scenario expects (it need not resolve).
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// secretVar carries a pre-registered client's secret to `mcp add`.
const secretVar = "CONFORMANCE_CLIENT_SECRET"

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--browse" {
		if err := play.Browse(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "cliclient:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cliclient <server-url> | cliclient --browse <url>")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "cliclient:", err)
		os.Exit(1)
	}
}

// user is the person at the terminal: where plughost is, and the
// environment of every command (HOME of its own, $BROWSER).
type user struct {
	plughost string
	env      []string
}

func run(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Second)
	defer cancel()
	u, cleanup, err := newUser()
	if err != nil {
		return err
	}
	defer cleanup()
	add := []string{"mcp", "add", serverName, "--type", "http", "--url", url, "--oauth-client-metadata-url", clientMetadataURL}
	if id, secret, err := preRegistered(); err != nil {
		return err
	} else if id != "" {
		add = append(add, "--oauth-client-id", id)
		if secret != "" {
			add = append(add, "--oauth-client-secret-env", secretVar)
			u.env = append(u.env, secretVar+"="+secret)
		}
	}
	for _, args := range [][]string{add, {"mcp", "login", serverName}} {
		if err := u.run(ctx, args...); err != nil {
			return err
		}
	}
	tools, err := u.tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if err := u.callOnTerminal(ctx, t.Name, play.SampleArguments(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}

// newUser makes a home directory for the run and finds plughost beside
// this executable.
func newUser() (*user, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	home, err := os.MkdirTemp("", "plughost-conformance-cli-")
	if err != nil {
		return nil, nil, err
	}
	u := &user{plughost: filepath.Join(filepath.Dir(exe), "plughost"),
		env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "BROWSER=" + exe + " --browse %s"}}
	return u, func() { os.RemoveAll(home) }, nil
}

// preRegistered returns the pre-registered client the suite passes, if any.
func preRegistered() (id, secret string, err error) {
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		return "", "", nil
	}
	var sc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return "", "", fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	return sc.ClientID, sc.ClientSecret, nil
}

// run runs one plughost command, its output on ours.
func (u *user) run(ctx context.Context, args ...string) error {
	fmt.Printf("$ plughost %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, u.plughost, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = u.env, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("plughost %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// tool is what `plughost tools --json` says of a tool.
type tool struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// tools lists the scenario server's tools.
func (u *user) tools(ctx context.Context) ([]tool, error) {
	fmt.Println("$ plughost tools --json")
	cmd := exec.CommandContext(ctx, u.plughost, "tools", "--json")
	cmd.Env, cmd.Stderr = u.env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("plughost tools --json: %w", err)
	}
	var all, mine []tool
	if err := json.Unmarshal(out, &all); err != nil {
		return nil, fmt.Errorf("plughost tools --json: %w", err)
	}
	for _, t := range all {
		if t.Server == serverName {
			mine = append(mine, t)
		}
	}
	fmt.Printf("%d tools of %s\n", len(mine), serverName)
	return mine, nil
}

// callOnTerminal runs `plughost call` on a pseudo-terminal, answering yes
// should it offer to log in again. A failed call is reported, not fatal:
// the scenario's checks judge it.
func (u *user) callOnTerminal(ctx context.Context, name string, args json.RawMessage) error {
	script, err := exec.LookPath("script")
	if err != nil {
		return fmt.Errorf("script(1) (util-linux) gives plughost call a terminal: %w", err)
	}
	line := shellQuote(u.plughost) + " call " + shellQuote(name) + " " + shellQuote(string(args))
	fmt.Printf("$ plughost call %s %s   (on a terminal)\n", name, args)
	cmd := exec.CommandContext(ctx, script, "-qec", line, "/dev/null")
	cmd.Env, cmd.Stdout, cmd.Stderr = u.env, os.Stdout, os.Stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// The pipe stays open until plughost exits, so the terminal never
	// reports end of input before the answer is read.
	_, _ = io.WriteString(stdin, "y\n")
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		fmt.Printf("call %s: exit %d\n", name, ee.ExitCode())
	case err != nil:
		return fmt.Errorf("plughost call %s: %w", name, err)
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
