//go:build unix

package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// apiSecret is an env value in the user config that no output may show.
const apiSecret = "sk-live-SECRET123"

// slackToken is the env value of the spec's slack example, also a secret.
const slackToken = "YOUR_SLACK_BOT_TOKEN"

// threeServers is a user config with a working server holding a secret, the
// spec's slack example (a transport type nobody provides) and a disabled one.
func threeServers() map[string]any {
	alpha := testserver("-name", "alpha")
	alpha["env"] = map[string]any{"API_TOKEN": apiSecret}
	off := testserver()
	off["enabled"] = false
	slack := map[string]any{
		"enabled": true, "type": "slack", "command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-slack"},
		"env": map[string]any{"SLACK_BOT_TOKEN": slackToken, "SLACK_TEAM_ID": "YOUR_SLACK_TEAM_ID"},
	}
	return mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"alpha": alpha, "slack": slack, "off": off}})
}

// listEntry is the part of `mcp list --json` the tests check.
type listEntry struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Transport string `json:"transport"`
	LastError string `json:"last_error"`
}

func listJSON(t *testing.T, r result) map[string]listEntry {
	t.Helper()
	var list []listEntry
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("mcp list --json: %v\n%s", err, r)
	}
	out := map[string]listEntry{}
	for _, e := range list {
		out[e.Name] = e
	}
	return out
}

func states(m map[string]listEntry) map[string]string {
	out := map[string]string{}
	for name, e := range m {
		out[name] = e.State
	}
	return out
}

// showTools parses the Tools section of `mcp show` into tool name → its
// parameter lines without description, e.g. "text (string, required)".
func showTools(t *testing.T, stdout string) map[string][]string {
	t.Helper()
	_, section, ok := strings.Cut(stdout, "\nTools (")
	if !ok {
		t.Fatalf("mcp show: no Tools section:\n%s", stdout)
	}
	tools := map[string][]string{}
	cur := ""
	for _, l := range strings.Split(section, "\n")[1:] {
		switch {
		case strings.HasPrefix(l, "  mcp_"):
			cur = strings.Fields(l)[0]
			tools[cur] = nil
		case strings.HasPrefix(l, "      - ") && cur != "":
			p := strings.TrimPrefix(l, "      - ")
			if i := strings.IndexByte(p, ')'); i >= 0 {
				p = p[:i+1]
			}
			tools[cur] = append(tools[cur], p)
		}
	}
	return tools
}

func TestUserConfig(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, threeServers())

	t.Run("mcp list", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "list")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		if strings.Contains(r.stderr, demoNotice) {
			t.Errorf("the demo config is used although a user config exists:\n%s", r)
		}
		rows := listRows(t, r.stdout)
		want := map[string]string{"alpha": "connected, 11 tools", "slack": "invalid config", "off": "disabled"}
		if diff := cmp.Diff(want, summaries(rows)); diff != "" {
			t.Errorf("mcp list (-want +got):\n%s\n%s", diff, r)
		}
		wantContains(t, "slack's status", rows["slack"], "tools.mcp.servers.slack.type", `"slack"`, "mcp-transport-slack")
	})

	t.Run("mcp list --json", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "list", "--json")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		got := listJSON(t, r)
		want := map[string]string{"alpha": "connected", "slack": "invalid", "off": "disabled"}
		if diff := cmp.Diff(want, states(got)); diff != "" {
			t.Errorf("states (-want +got):\n%s\n%s", diff, r)
		}
		wantContains(t, "slack's last_error", got["slack"].LastError, "tools.mcp.servers.slack.type", "mcp-transport-slack")
	})

	t.Run("mcp show", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "show", "alpha")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stdout", r.stdout, "Status:", "connected, 11 tools", "API_TOKEN=")
		tools := showTools(t, r.stdout)
		if len(tools) != testserverTools {
			t.Errorf("want %d tools, got %d: %v", testserverTools, len(tools), tools)
		}
		got := map[string][]string{}
		for _, name := range []string{"mcp_alpha_echo", "mcp_alpha_sleep", "mcp_alpha_big", "mcp_alpha_noop"} {
			got[name] = tools[name]
		}
		want := map[string][]string{
			"mcp_alpha_echo":  {"text (string, required)"},
			"mcp_alpha_sleep": {"seconds (number, required)"},
			"mcp_alpha_big":   {"chars (integer, required)", "notify (boolean, optional)"},
			"mcp_alpha_noop":  nil,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tool parameters (-want +got):\n%s\n%s", diff, r)
		}
	})

	t.Run("mcp test alpha", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "test", "alpha")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stdout", r.stdout, "alpha: reachable over stdio")
		if !regexp.MustCompile(`(?m)^\s+tools:\s+11$`).MatchString(r.stdout) {
			t.Errorf("want the tool count 11:\n%s", r)
		}
	})

	t.Run("mcp test unknown server", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "test", "nosuch")
		if r.code != 1 {
			t.Errorf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, `"nosuch"`, "alpha", "off", "slack")
	})

	t.Run("mcp test slack", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "test", "slack")
		if r.code != 1 {
			t.Errorf("want exit 1, got %s", r)
		}
		wantContains(t, "stdout", r.stdout, "slack: NOT reachable", "mcp-transport-slack")
	})

	t.Run("secrets are masked", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			args       []string
			code       int
			showsNames bool // the env keys are printed
		}{
			{args: []string{"mcp", "list"}},
			{args: []string{"mcp", "list", "--json"}},
			{args: []string{"mcp", "show", "alpha"}, showsNames: true},
			{args: []string{"mcp", "show", "alpha", "--json"}, showsNames: true},
			{args: []string{"mcp", "show", "slack"}},
			{args: []string{"mcp", "show", "slack", "--json"}},
			{args: []string{"mcp", "test", "alpha"}},
			{args: []string{"mcp", "test", "alpha", "--json"}},
			{args: []string{"mcp", "test", "slack"}, code: 1},
			{args: []string{"tools", "--json"}},
			{args: []string{"--log-level", "trace", "mcp", "show", "alpha"}, showsNames: true},
			{args: []string{"--log-level", "trace", "call", "mcp_alpha_echo", `{"text":"x"}`}},
		}
		for _, tt := range tests {
			t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
				t.Parallel()
				r := c.run(t, tt.args...)
				if r.code != tt.code {
					t.Errorf("want exit %d, got %s", tt.code, r)
				}
				for _, s := range []string{"SECRET123", slackToken} {
					if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
						t.Errorf("output shows the secret %q:\n%s", s, r)
					}
				}
				if tt.showsNames {
					wantContains(t, "stdout", r.stdout, "API_TOKEN")
				}
			})
		}
	})
}

// --config names the user file; its problems are reported per server with
// the JSON path, and config-wide problems fail every command.
func TestConfigFlag(t *testing.T) {
	c := newCLI(t)
	t.Parallel()

	t.Run("unknown key", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "typo.json")
		writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
			"alpha": testserver(),
			"beta":  map[string]any{"enabled": true, "comand": filepath.Join(bins, "testserver")},
		}}))
		r := c.run(t, "--config", path, "mcp", "list")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		if strings.Contains(r.stderr, demoNotice) {
			t.Errorf("the demo config is used although --config is given:\n%s", r)
		}
		rows := listRows(t, r.stdout)
		want := map[string]string{"alpha": "connected, 11 tools", "beta": "invalid config"}
		if diff := cmp.Diff(want, summaries(rows)); diff != "" {
			t.Errorf("mcp list (-want +got):\n%s\n%s", diff, r)
		}
		wantContains(t, "beta's status", rows["beta"], "tools.mcp.servers.beta.comand", `did you mean "command"`)

		r = c.run(t, "--config", path, "mcp", "list", "--json")
		wantContains(t, "beta's last_error", listJSON(t, r)["beta"].LastError, "tools.mcp.servers.beta.comand", `did you mean "command"`)
	})

	t.Run("discovery without a search tool", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "nosearch.json")
		writeConfig(t, path, mcpConfig(map[string]any{
			"enabled":   true,
			"discovery": map[string]any{"enabled": true, "use_bm25": false, "use_regex": false},
			"servers":   map[string]any{"alpha": testserver()},
		}))
		commands := [][]string{
			{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "show", "alpha"}, {"mcp", "test", "alpha"},
			{"tools"}, {"tools", "--json"}, {"call", "mcp_alpha_echo", `{"text":"x"}`}, {"serve"},
		}
		for _, args := range commands {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				r := c.run(t, append([]string{"--config", path}, args...)...)
				if r.code != 1 {
					t.Errorf("want exit 1, got %s", r)
				}
				wantContains(t, "stderr", r.stderr, "tools.mcp.discovery.use_bm25", "tools.mcp.discovery.use_regex")
			})
		}
	})
}

// --set changes the config for one run and never writes the file.
func TestSetOverridesForOneRun(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	path := c.writeUserConfig(t, threeServers())
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	r := c.run(t, "--set", "tools.mcp.servers.alpha.enabled=false", "mcp", "list")
	if r.code != 0 {
		t.Fatalf("want exit 0, got %s", r)
	}
	if got := summary(listRows(t, r.stdout)["alpha"]); got != "disabled" {
		t.Errorf("with --set alpha is %q, want disabled\n%s", got, r)
	}

	r = c.run(t, "--set", "tools.mcp.servers.alpha.enabled=false", "tools")
	if r.code != 0 || strings.Contains(r.stdout, "mcp_alpha_") {
		t.Errorf("with --set alpha's tools are listed:\n%s", r)
	}

	r = c.run(t, "--set", "tools.mcp.discovery.enabled=true", "--set", "tools.mcp.discovery.use_bm25=false", "tools")
	if r.code != 1 {
		t.Errorf("--set that makes the config invalid: want exit 1, got %s", r)
	}

	r = c.run(t, "mcp", "list")
	if got := summary(listRows(t, r.stdout)["alpha"]); got != "connected, 11 tools" {
		t.Errorf("without --set alpha is %q, want connected\n%s", got, r)
	}

	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("config file changed (-before +after):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config file mode %v, want 0600", fi.Mode().Perm())
	}
}

// Issue 11's small config items: a non-boolean "enabled" is an invalid
// config naming the field (not a silent "disabled"); a config file that
// others may read and that holds secrets gets a warning with the fix.
func TestConfigFileWarnings(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	yes := testserver()
	yes["enabled"] = "yes"
	withEnv := testserver()
	withEnv["env"] = map[string]string{"TOKEN": envSecret}
	path := c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"y": yes, "e": withEnv}}))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.run(t, "mcp", "list", "--no-probe")
	rows := listRows(t, r.stdout)
	if !strings.HasPrefix(rows["y"], "invalid config: tools.mcp.servers.y.enabled: expected a boolean") {
		t.Errorf(`"enabled": "yes" is listed as %q`, rows["y"])
	}
	wantContains(t, "stderr", r.stderr, "warning: config file "+path, "chmod 600 "+path)
	noSecrets(t, r)
}
