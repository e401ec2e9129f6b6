//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testoauth"
)

// browserEnv makes this test binary play the browser $BROWSER names: it
// opens the URL it is given and follows the redirects (see init).
const browserEnv = "PLUGHOST_TEST_PLAY_BROWSER"

func init() {
	if os.Getenv(browserEnv) != "1" || len(os.Args) < 2 {
		return
	}
	status, err := testoauth.Browser(os.Args[len(os.Args)-1])
	if err != nil || status != 200 {
		fmt.Fprintln(os.Stderr, "test browser:", status, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func oauthConfig(s *testoauth.Server) map[string]any {
	return mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
		"remote": map[string]any{"enabled": true, "type": "http", "url": s.MCP, "oauth": map[string]any{}},
		"plain":  map[string]any{"enabled": false, "type": "http", "url": s.MCP},
	}})
}

func TestMCPLoginLogout(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}})
	c.writeUserConfig(t, oauthConfig(s))
	secrets := []string{"at-1", "rt-1", "at-2"}

	r := c.run(t, "mcp", "list", "--timeout", "20s")
	if r.code != 0 || !strings.Contains(lineOf(r.stdout, "remote"), "needs login (not logged in): run `plughost mcp login remote`") {
		t.Fatalf("list before login:\n%s", r)
	}

	r = c.loginNoBrowser(t)
	if r.code != 0 || !strings.Contains(r.stdout, "Logged in to remote: logged in (expires in 59m, scopes read).") {
		t.Fatalf("login --no-browser:\n%s", r)
	}
	noSecrets(t, r, secrets...)
	tokenFile := filepath.Join(c.home, ".plughost", "oauth", "remote.json")
	wantMode(t, tokenFile, 0o600)

	r = c.run(t, "mcp", "list", "--timeout", "20s")
	if line := lineOf(r.stdout, "remote"); r.code != 0 || !strings.Contains(line, "connected, 2 tools") ||
		!strings.Contains(line, "logged in (expires in 59m, scopes read)") {
		t.Errorf("list after login:\n%s", r)
	}
	noSecrets(t, r, secrets...)
	r = c.run(t, "mcp", "show", "remote")
	if r.code != 0 || !strings.Contains(r.stdout, "Login:") || !strings.Contains(r.stdout, "logged in (expires in 59m, scopes read)") {
		t.Errorf("show after login:\n%s", r)
	}
	r = c.run(t, "call", "mcp_remote_whoami", "{}")
	if r.code != 0 || !strings.Contains(r.stdout, "hello") {
		t.Errorf("call after login:\n%s", r)
	}
	noSecrets(t, r, secrets...)

	r = c.run(t, "mcp", "logout", "remote")
	if r.code != 0 || r.stdout != "Logged out of remote: its tokens are deleted.\n" {
		t.Errorf("logout:\n%s", r)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file still there after logout: %v", err)
	}
	r = c.run(t, "mcp", "logout", "remote")
	if r.code != 0 || r.stdout != "remote was not logged in; nothing to forget.\n" {
		t.Errorf("second logout:\n%s", r)
	}
}

// loginNoBrowser runs `mcp login remote --no-browser`, reads the printed
// URL, and pastes the address the authorization server redirects to.
func (c *cli) loginNoBrowser(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "mcp", "login", "remote", "--no-browser")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	sc := bufio.NewScanner(outPipe)
	for sc.Scan() {
		line := sc.Text()
		stdout.WriteString(line + "\n")
		if u := strings.TrimSpace(line); strings.HasPrefix(u, "http") {
			loc, err := testoauth.RedirectOf(u)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, loc+"\n")
		}
	}
	err = cmd.Wait()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(interface{ ExitCode() int }); ok {
		r.code = ee.ExitCode()
	}
	return r
}

func TestMCPLoginBrowser(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{})
	c.writeUserConfig(t, oauthConfig(s))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := c.runWith(t, []string{"BROWSER=" + self, browserEnv + "=1"}, "mcp", "login", "remote")
	if r.code != 0 || !strings.Contains(r.stdout, "open this URL in a browser:\n\n  "+s.Issuer()+"/authorize?") ||
		!strings.Contains(r.stdout, "Logged in to remote: logged in (expires in 59m).") {
		t.Fatalf("login with $BROWSER:\n%s", r)
	}
	noSecrets(t, r, "at-1", "rt-1")
}

func TestMCPLoginErrors(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{MetadataBody: "<html>sign in</html>"})
	c.writeUserConfig(t, oauthConfig(s))
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "login", "plain"}, 1, `server "plain" has no "oauth" in its config; add "oauth": {} to tools.mcp.servers.plain to log in with OAuth`},
		{[]string{"mcp", "login", "nope"}, 1, `no server named "nope" in the config`},
		{[]string{"mcp", "login", "remote", "--no-browser"}, 1, `server "remote": log in: read the authorization server metadata (` + s.AS +
			`/.well-known/oauth-authorization-server): the response is not a JSON document (text/html`},
		{[]string{"mcp", "login"}, 2, "plughost mcp login takes 1 argument(s), got 0"},
	}
	for _, tc := range cases {
		r := c.run(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("plughost %s: want exit %d and %q\n%s", strings.Join(tc.args, " "), tc.code, tc.want, r)
		}
	}
}
