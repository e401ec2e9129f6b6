//go:build unix

package main_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testoauth"
)

// OAuth set up and used from the command line alone: `mcp add` with the
// oauth flags, `mcp login`, and `call` — the path a user (and the
// conformance suite's CLI run) takes.

// preSecret is a pre-registered client's secret: it must reach the config
// file and the token endpoint, and no output.
const preSecret = "pre-s3cret-4711"

// browserRun is the environment in which this test binary plays the
// browser that $BROWSER opens (see login_test.go).
func browserRun(t *testing.T) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"BROWSER=" + self, browserEnv + "=1"}
}

// oauthBlock is servers.<name>.oauth of the user config file.
func oauthBlock(t *testing.T, c *cli, name string) map[string]any {
	t.Helper()
	o, _ := servers(t, c.userConfig())[name]["oauth"].(map[string]any)
	if o == nil {
		t.Fatalf("servers.%s has no oauth block:\n%s", name, readFile(t, c.userConfig()))
	}
	return o
}

// A client registered with the authorization server beforehand: the id
// from a flag, the secret from an environment variable or stdin (never
// from the command line), written to the file, masked everywhere, and used
// at the token endpoint instead of a registration.
func TestMCPAddOAuthPreRegisteredClient(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{NoRegistration: true, Clients: map[string]string{"pre-1": preSecret},
		AuthMethods: []string{"client_secret_basic"}})

	r := c.runWith(t, []string{"PRE_SECRET=" + preSecret}, "mcp", "add", "remote", "--type", "http", "--url", s.MCP,
		"--oauth-client-id", "pre-1", "--oauth-client-secret-env", "PRE_SECRET")
	if r.code != 0 {
		t.Fatalf("mcp add with a pre-registered client:\n%s", r)
	}
	noSecrets(t, r, preSecret)
	if o := oauthBlock(t, c, "remote"); o["client_id"] != "pre-1" || o["client_secret"] != preSecret || len(o) != 2 {
		t.Errorf("oauth block %v; want the client id and its secret", o)
	}
	wantMode(t, c.userConfig(), 0o600)

	for _, args := range [][]string{{"mcp", "show", "remote"}, {"mcp", "show", "remote", "--json"}} {
		r := c.run(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "pre-1") {
			t.Errorf("plughost %s: want the client id shown:\n%s", strings.Join(args, " "), r)
		}
		noSecrets(t, r, preSecret)
	}

	r = c.runWith(t, browserRun(t), "mcp", "login", "remote")
	if r.code != 0 || !strings.Contains(r.stdout, "Logged in to remote") {
		t.Fatalf("login with the pre-registered client:\n%s", r)
	}
	noSecrets(t, r, preSecret, "at-1", "rt-1")
	if slices.Contains(s.Requests(), "POST /register") {
		t.Errorf("plughost registered a client though one is configured: %v", s.Requests())
	}
	_, auth := s.TokenRequests()
	if want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pre-1:"+preSecret)); len(auth) != 1 || auth[0] != want {
		t.Errorf("token request Authorization %q, want client_secret_basic of pre-1", auth)
	}
	r = c.run(t, "call", "mcp_remote_whoami")
	if r.code != 0 || !strings.Contains(r.stdout, "hello") {
		t.Errorf("call after login:\n%s", r)
	}

	// The secret read from stdin: a pipe here; on a terminal it is asked
	// for without echo.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "mcp", "add", "piped", "--url", s.MCP, "--type", "http",
		"--oauth-client-id", "pre-2", "--oauth-client-secret-stdin")
	cmd.Stdin = strings.NewReader(preSecret + "\n")
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), preSecret) {
		t.Fatalf("mcp add --oauth-client-secret-stdin: %v\n%s", err, out)
	}
	if o := oauthBlock(t, c, "piped"); o["client_id"] != "pre-2" || o["client_secret"] != preSecret {
		t.Errorf("oauth block from stdin %v", o)
	}

	cases := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"secret on the command line", nil, []string{"--url", s.MCP, "--oauth-client-id", "x", "--oauth-client-secret", preSecret}, 2,
			"--oauth-client-secret would put the secret on the command line"},
		{"unset variable", nil, []string{"--url", s.MCP, "--oauth-client-id", "x", "--oauth-client-secret-env", "NO_SUCH_VAR"}, 2,
			"--oauth-client-secret-env: the environment variable NO_SUCH_VAR is not set"},
		{"both sources", []string{"V=" + preSecret}, []string{"--url", s.MCP, "--oauth-client-id", "x", "--oauth-client-secret-env", "V", "--oauth-client-secret-stdin"}, 2,
			"give the client secret one way"},
		{"secret without id", []string{"V=" + preSecret}, []string{"--url", s.MCP, "--oauth-client-secret-env", "V"}, 1,
			`oauth.client_secret: is set without "client_id"`},
		{"stdio server", nil, []string{"--oauth-client-id", "x", "--", "node", "server.js"}, 1, "oauth"},
		{"bad port", nil, []string{"--url", s.MCP, "--oauth-callback-port", "70000"}, 1, "oauth.callback_port: must be between 1 and 65535"},
	}
	for _, tc := range cases {
		r := c.runWith(t, tc.env, append([]string{"mcp", "add", "bad"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: want exit %d and %q\n%s", tc.name, tc.code, tc.want, r)
		}
		noSecrets(t, r, preSecret)
	}
	if _, ok := servers(t, c.userConfig())["bad"]; ok {
		t.Errorf("a refused mcp add wrote the server")
	}
}

// A client ID metadata document: with --oauth-client-metadata-url, an
// authorization server that supports them gets the URL as the client id
// and no registration. Without one, plughost registers a client and says
// how it could have used a document.
func TestMCPAddOAuthClientMetadataDocument(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{ClientIDMetadataDocuments: true, ScopesSupported: []string{"read"}})
	const doc = "https://tools.example.com/plughost-client.json"

	r := c.run(t, "mcp", "add", "cimd", "--type", "http", "--url", s.MCP, "--oauth-client-metadata-url", doc,
		"--oauth-scope", "read")
	if r.code != 0 {
		t.Fatalf("mcp add --oauth-client-metadata-url:\n%s", r)
	}
	if o := oauthBlock(t, c, "cimd"); o["client_metadata_url"] != doc || !slices.Equal(o["scopes"].([]any), []any{"read"}) {
		t.Errorf("oauth block %v", o)
	}
	r = c.runWith(t, browserRun(t), "mcp", "login", "cimd")
	if r.code != 0 {
		t.Fatalf("login with a client ID metadata document:\n%s", r)
	}
	if a := s.Authorizations(); len(a) != 1 || a[0].Get("client_id") != doc {
		t.Errorf("authorization requests %v; want client_id %s", a, doc)
	}
	if slices.Contains(s.Requests(), "POST /register") {
		t.Errorf("plughost registered a client though it has a metadata document: %v", s.Requests())
	}

	r = c.run(t, "mcp", "add", "dcr", "--type", "http", "--url", s.MCP, "--oauth")
	if r.code != 0 {
		t.Fatalf("mcp add --oauth:\n%s", r)
	}
	if o := oauthBlock(t, c, "dcr"); len(o) != 0 {
		t.Errorf("--oauth wrote %v, want {}", o)
	}
	r = c.runWith(t, browserRun(t), "mcp", "login", "dcr")
	if r.code != 0 || !slices.Contains(s.Requests(), "POST /register") {
		t.Fatalf("login without a metadata document: want a registration\n%s\n%v", r, s.Requests())
	}
	wantContains(t, "login without a metadata document", r.stderr,
		"supports client ID metadata documents", "registered a client instead", "--oauth-client-metadata-url")

	r = c.run(t, "mcp", "add", "bad", "--url", s.MCP, "--oauth-client-metadata-url", "http://example.com/c.json")
	if r.code != 1 || !strings.Contains(r.stderr, "oauth.client_metadata_url: must be an https URL") {
		t.Errorf("plain http metadata URL:\n%s", r)
	}
}

// A call the server refuses for want of scope (403 insufficient_scope):
// without a terminal, `call` fails naming the command and the scope; on a
// terminal it offers to log in again with the wider scope, and calls again.
func TestCallStepUpLogsInAgain(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}})
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
		"remote": map[string]any{"enabled": true, "type": "http", "url": s.MCP, "oauth": map[string]any{}}}}))
	if r := c.runWith(t, browserRun(t), "mcp", "login", "remote"); r.code != 0 {
		t.Fatalf("login:\n%s", r)
	}

	r := c.run(t, "call", "mcp_remote_write")
	if r.code != 1 {
		t.Fatalf("call without the scope: want exit 1\n%s", r)
	}
	wantContains(t, "call without the scope", r.stderr, `server "remote" needs login`, "more scope", "run `plughost mcp login remote`",
		"(it will ask for scope read write)")
	if strings.Contains(r.stderr, "JSON-RPC") {
		t.Errorf("the needs-login error carries transport details:\n%s", r)
	}

	out, code := c.runTTY(t, browserRun(t), "n\n", "call", "mcp_remote_write")
	if code != 1 || !strings.Contains(out, "Log in to remote again with scope read write?") || !strings.Contains(out, "plughost mcp login remote") {
		t.Errorf("declined login: exit %d\n%s", code, out)
	}
	if n := len(s.Authorizations()); n != 1 {
		t.Errorf("%d authorization requests after a declined login, want 1", n)
	}

	out, code = c.runTTY(t, browserRun(t), "y\n", "call", "mcp_remote_write")
	if code != 0 || !strings.Contains(out, "written") || !strings.Contains(out, "Logged in to remote") {
		t.Fatalf("accepted login: exit %d\n%s", code, out)
	}
	a := s.Authorizations()
	if len(a) != 2 || a[1].Get("scope") != "read write" {
		t.Errorf("step-up authorization requests %v; want a second one for scope \"read write\"", a)
	}
	if r := c.run(t, "call", "mcp_remote_write"); r.code != 0 || !strings.Contains(r.stdout, "written") {
		t.Errorf("call after the step-up login:\n%s", r)
	}
	for _, secret := range []string{"at-1", "rt-1", "at-2", "rt-2"} {
		if strings.Contains(out, secret) {
			t.Errorf("terminal shows token %q:\n%s", secret, out)
		}
	}
}

// Under serve, a step-up marks the server's login "needs login" with the
// scopes while it stays connected for what the token allows; `call`
// through the serve says so, and a login on the terminal reaches the serve.
func TestServeStepUp(t *testing.T) {
	c := newCLI(t)
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}})
	cfg := mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
		"remote": map[string]any{"enabled": true, "type": "http", "url": s.MCP, "oauth": map[string]any{}}}})
	c.writeUserConfig(t, cfg)
	if r := c.runWith(t, browserRun(t), "mcp", "login", "remote"); r.code != 0 {
		t.Fatalf("login:\n%s", r)
	}
	g := startServe(t, c, cfg)

	r := c.run(t, "--config", g.config, "call", "mcp_remote_write")
	if r.code != 1 || !strings.Contains(r.stderr, "live state from plughost serve") {
		t.Fatalf("call through serve without the scope:\n%s", r)
	}
	wantContains(t, "call through serve", r.stderr, `server "remote" needs login`, "run `plughost mcp login remote`", "scope read write")

	r = c.run(t, "--config", g.config, "mcp", "list", "--json")
	var rows []struct {
		State, Description string
		Auth               struct {
			NeedsLogin bool     `json:"needs_login"`
			WantScopes []string `json:"want_scopes"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("mcp list --json: %v\n%s", err, r)
	}
	if row := rows[0]; row.State != "connected" || !row.Auth.NeedsLogin || !slices.Equal(row.Auth.WantScopes, []string{"read", "write"}) ||
		!strings.Contains(row.Description, "needs login: the server asks for more scope: read write (scopes read write)") {
		t.Errorf("serve's row after the step-up: %+v", row)
	}
	if r := c.run(t, "--config", g.config, "call", "mcp_remote_whoami"); r.code != 0 || !strings.Contains(r.stdout, "hello") {
		t.Errorf("the token still works for what it allows:\n%s", r)
	}

	out, code := c.runTTY(t, browserRun(t), "y\n", "--config", g.config, "call", "mcp_remote_write")
	if code != 0 || !strings.Contains(out, "written") {
		t.Fatalf("step-up login from the terminal, call through serve: exit %d\n%s", code, out)
	}
	if a := s.Authorizations(); a[len(a)-1].Get("scope") != "read write" {
		t.Errorf("step-up asked for %q", a[len(a)-1].Get("scope"))
	}
}
