//go:build unix

package main_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testwait"
)

// Canary secrets configured in every place a secret can be.
var cliCanaries = []string{
	"cnry-env-41d7", "cnry-file-8e02", "cnry-hdr-c3a9", "cnry-pw-57f1", "cnry-query-0b6e",
}

// canaryConfig configures the canaries: a server that echoes its
// environment (env and env_file) to stderr and stays up, one that echoes it
// and exits at its first request (its stderr tail becomes its error), and a
// remote server with credentials in its URL and a header that cannot be
// reached (its URL appears in its error).
func canaryConfig(t *testing.T, dir string) map[string]any {
	t.Helper()
	envFile := filepath.Join(dir, "canary.env")
	if err := os.WriteFile(envFile, []byte("CANARY_FILE_SECRET="+cliCanaries[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	echo := func(args ...string) map[string]any {
		s := testserver(append([]string{"-echo-env"}, args...)...)
		s["env"] = map[string]any{"CANARY_TOKEN": cliCanaries[0]}
		s["env_file"] = envFile
		return s
	}
	return mcpConfig(map[string]any{
		"enabled": true,
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
		"servers": map[string]any{
			"echo":   echo(),
			"crash":  echo("-fail-start"),
			"remote": map[string]any{"enabled": true, "type": "http", "url": canaryURL(), "headers": map[string]any{"X-Api-Key": cliCanaries[2]}},
		},
	})
}

func canaryURL() string {
	return "http://bob:" + cliCanaries[3] + "@127.0.0.1:1/mcp?api_key=" + cliCanaries[4] + "&page=2"
}

// noCanary fails the test if text shows one of the canaries.
func noCanary(t *testing.T, what, text string) {
	t.Helper()
	for _, c := range cliCanaries {
		if strings.Contains(text, c) {
			t.Errorf("%s shows the secret %q:\n%s", what, c, text)
		}
	}
}

// No CLI command, in any output form, shows a configured secret, even when
// servers echo their environment to stderr and URLs carry credentials.
func TestSecretsNeverShown(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, canaryConfig(t, c.home))

	r := c.run(t, "--log-level", "trace", "mcp", "show", "echo", "--wait", "30s")
	wantContains(t, "mcp show echo", r.stdout, "CANARY_TOKEN=****", "CANARY_FILE_SECRET=****")
	noCanary(t, "mcp show echo", r.String())
	r = c.run(t, "mcp", "show", "remote")
	wantContains(t, "mcp show remote", r.stdout, "http://bob:****@127.0.0.1:1/mcp?api_key=****&page=2", "X-Api-Key=****")
	noCanary(t, "mcp show remote", r.String())
	// crash restarts in a loop: a listing taken while it is connecting
	// again has no error to quote yet, so look a few times.
	quoted := func() bool {
		r = c.run(t, "mcp", "list", "--timeout", "30s")
		noCanary(t, "mcp list", r.String())
		return strings.Contains(listRows(t, r.stdout)["crash"], "CANARY_TOKEN=****")
	}
	if !testwait.Until(30*time.Second, quoted) {
		t.Errorf("mcp list should quote crash's stderr, masked:\n%s", r)
	}

	for _, args := range [][]string{
		{"mcp", "list", "--json"}, {"mcp", "list", "--no-probe", "--json"},
		{"mcp", "show", "crash"}, {"mcp", "show", "echo", "--json"}, {"mcp", "show", "crash", "--json"}, {"mcp", "show", "remote", "--json"},
		{"--log-level", "trace", "mcp", "test", "echo"}, {"mcp", "test", "crash"}, {"mcp", "test", "remote", "--json"},
		{"mcp", "export", "--format", "claude"}, {"mcp", "export", "--format", "cursor"}, {"mcp", "export", "--format", "vscode"},
		{"tools", "--json"},
	} {
		r := c.run(t, args...)
		noCanary(t, "plughost "+strings.Join(args, " "), r.String())
	}

	r = c.run(t, "mcp", "add", "api", "--type", "http", "--url", canaryURL(), "-H", "X-Api-Key: "+cliCanaries[2])
	if r.code != 0 {
		t.Fatalf("mcp add: %s", r)
	}
	wantContains(t, "mcp add's confirmation", r.stdout, "http://bob:****@127.0.0.1:1/mcp?api_key=****&page=2")
	noCanary(t, "mcp add", r.String())
}

// Neither the serve log nor /readyz shows a configured secret.
func TestServeHidesSecrets(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	dir := t.TempDir()
	g := startServe(t, c, canaryConfig(t, dir), "--log-level", "debug")
	var body string
	failed := func() bool { // crash and remote have failed
		body = readyz(t, g)
		return strings.Count(body, `"last_error"`) >= 2
	}
	if !testwait.Until(30*time.Second, failed) {
		t.Fatalf("crash and remote did not fail; /readyz: %s", body)
	}
	wantContains(t, "/readyz", body, "CANARY_TOKEN=****")
	noCanary(t, "/readyz", body)
	noCanary(t, "the serve log", g.stderr.String())
}

// readyz returns the body of the gateway's /readyz.
func readyz(t *testing.T, g servedGateway) string {
	t.Helper()
	req, _ := http.NewRequest("GET", strings.TrimSuffix(g.url, "/mcp")+"/readyz", nil)
	req.Header.Set("Authorization", "Bearer "+g.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}
