//go:build unix

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Secrets given to the config commands; no output may ever show them.
const (
	envSecret    = "sk-ENVSECRET-4711"
	headerSecret = "HDRSECRET-0815"
)

// runWith runs plughost like run, with extra environment variables.
func (c *cli) runWith(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, args...)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("plughost %s: timed out\n%s", strings.Join(args, " "), r)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("plughost %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// noSecrets fails the test if r shows a secret.
func noSecrets(t *testing.T, r result, secrets ...string) {
	t.Helper()
	for _, s := range append(secrets, envSecret, headerSecret) {
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
			t.Errorf("output shows the secret %q:\n%s", s, r)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// servers decodes tools.mcp.servers of a config file.
func servers(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	var doc struct {
		Tools struct {
			MCP struct {
				Servers map[string]map[string]any `json:"servers"`
			} `json:"mcp"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(readFile(t, path), &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc.Tools.MCP.Servers
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
	}
}

func TestMCPAdd(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	ts := filepath.Join(bins, "testserver")

	// The first server creates the file, enables MCP and says so; every
	// word after -- is the server's, even -name and --port.
	r := c.run(t, "mcp", "add", "hello", "-e", "API_KEY="+envSecret, "--", ts, "-name", "hello-srv", "--", "--port", "3")
	if r.code != 0 {
		t.Fatalf("mcp add: %s", r)
	}
	wantContains(t, "stdout", r.stdout, "first server", "tools.mcp.enabled", "Created")
	noSecrets(t, r)
	wantMode(t, c.userConfig(), 0o600)
	wantMode(t, filepath.Dir(c.userConfig()), 0o700)
	want := map[string]any{"enabled": true, "command": ts, "args": []any{"-name", "hello-srv", "--", "--port", "3"}, "env": map[string]any{"API_KEY": envSecret}}
	if diff := cmp.Diff(want, servers(t, c.userConfig())["hello"]); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	var doc map[string]map[string]map[string]any
	_ = json.Unmarshal(readFile(t, c.userConfig()), &doc)
	if doc["tools"]["mcp"]["enabled"] != true {
		t.Errorf("tools.mcp.enabled not set:\n%s", readFile(t, c.userConfig()))
	}

	// The server really runs with those arguments (the testserver rejects
	// "--port"? no: it stops parsing at "--"), and reports its name.
	r = c.run(t, "mcp", "test", "hello")
	if r.code != 0 {
		t.Fatalf("mcp test hello: %s", r)
	}
	wantContains(t, "stdout", r.stdout, "hello: reachable over stdio", "hello-srv", "tools:    11", "bytes of tool definitions", "ready in:")
	noSecrets(t, r)

	flagTests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{
			name: "remote with headers, no-deferred, timeout",
			args: []string{"api", "-t", "http", "--url", "https://example.com/mcp", "-H", "Authorization: Bearer " + headerSecret, "-H", "X-Team:blue", "--no-deferred", "--timeout", "1m30s"},
			want: map[string]any{"enabled": true, "deferred": false, "type": "http", "url": "https://example.com/mcp",
				"headers": map[string]any{"Authorization": "Bearer " + headerSecret, "X-Team": "blue"}, "timeouts": map[string]any{"call_seconds": 90.0}},
		},
		{
			name: "sse alias streamable-http, deferred, disabled",
			args: []string{"legacy", "--type", "streamable-http", "--url", "http://127.0.0.1:9/mcp", "--deferred", "--disabled"},
			want: map[string]any{"enabled": false, "deferred": true, "type": "streamable-http", "url": "http://127.0.0.1:9/mcp"},
		},
		{
			name: "url alone: type left to detection",
			args: []string{"auto", "--url", "https://example.com/sse"},
			want: map[string]any{"enabled": true, "url": "https://example.com/sse"},
		},
		{
			name: "stdio env file and inherit env",
			args: []string{"envy", "--env-file", "secrets.env", "--inherit-env", "--type", "stdio", "--", "node", "s.js"},
			want: map[string]any{"enabled": true, "type": "stdio", "command": "node", "args": []any{"s.js"}, "env_file": "secrets.env", "inherit_env": true},
		},
		{
			name: "dotted name, third-party type",
			args: []string{"my.srv-2", "--type", "slack", "--", "npx", "-y", "slack"},
			want: map[string]any{"enabled": true, "type": "slack", "command": "npx", "args": []any{"-y", "slack"}},
		},
	}
	for _, tt := range flagTests {
		r := c.run(t, append([]string{"mcp", "add"}, tt.args...)...)
		if r.code != 0 {
			t.Errorf("%s: %s", tt.name, r)
			continue
		}
		noSecrets(t, r)
		if strings.Contains(r.stdout, "first server") {
			t.Errorf("%s: claims to be the first server:\n%s", tt.name, r)
		}
		if diff := cmp.Diff(tt.want, servers(t, c.userConfig())[tt.args[0]]); diff != "" {
			t.Errorf("%s: entry (-want +got):\n%s", tt.name, diff)
		}
	}
	// The backup is the version before the last write.
	wantMode(t, c.userConfig()+".bak", 0o600)
	if _, ok := servers(t, c.userConfig()+".bak")["my.srv-2"]; ok {
		t.Errorf("the backup already holds the last server")
	}

	t.Run("existing name needs --force", func(t *testing.T) {
		before := readFile(t, c.userConfig())
		r := c.run(t, "mcp", "add", "api", "--url", "https://other.example/mcp")
		if r.code != 1 {
			t.Errorf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, `"api" already exists`, "--force")
		if !bytes.Equal(before, readFile(t, c.userConfig())) {
			t.Errorf("the file changed")
		}
		r = c.run(t, "mcp", "add", "api", "--force", "--url", "https://other.example/mcp")
		if r.code != 0 {
			t.Fatalf("--force: %s", r)
		}
		wantContains(t, "stdout", r.stdout, `Replaced server "api"`)
		got := servers(t, c.userConfig())["api"]
		if diff := cmp.Diff(map[string]any{"enabled": true, "url": "https://other.example/mcp"}, got); diff != "" {
			t.Errorf("replaced entry (-want +got):\n%s", diff)
		}
	})

	t.Run("command not on PATH is a warning", func(t *testing.T) {
		r := c.run(t, "mcp", "add", "ghost", "--", "no-such-command-xyz", "a")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "warning:", "tools.mcp.servers.ghost.command", `"no-such-command-xyz" is not found on PATH`)
	})

	t.Run("third-party type without its plugin is a warning", func(t *testing.T) {
		r := c.run(t, "mcp", "add", "chat", "--type", "chatwire", "--", "node", "chat.js")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "warning:", `server "chat" will not start`, `"mcp-transport-chatwire" not found`)
		r = c.run(t, "mcp", "add", "local", "--type", "stdio", "--", "node", "x.js")
		if strings.Contains(r.stderr, "transport plugin") {
			t.Errorf("a built-in type gets the plugin warning:\n%s", r)
		}
	})
}

// Every kind of bad input gets a clear message and leaves the file as it was.
func TestMCPAddInvalid(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"alpha": testserver()}}))
	before := readFile(t, c.userConfig())
	tests := []struct {
		name string
		args []string
		code int
		msg  []string
	}{
		{"env on a remote server", []string{"r", "--url", "https://e.example/mcp", "-e", "K=" + envSecret}, 1,
			[]string{"nothing was written", `tools.mcp.servers.r.env: "env" applies only to stdio servers`}},
		{"header on a stdio server", []string{"s", "-H", "A: " + headerSecret, "--", "node"}, 1,
			[]string{`tools.mcp.servers.s.headers: "headers" applies only to sse/http servers`}},
		{"url without scheme", []string{"u", "--url", "example.com/mcp"}, 1,
			[]string{"tools.mcp.servers.u.url: must start with http:// or https://"}},
		{"env on a url server, with type", []string{"h", "--type", "http", "--url", "https://e.example", "-e", "A=1"}, 1,
			[]string{`"env" applies only to stdio servers`}},
		{"deferred both ways", []string{"d", "--deferred", "--no-deferred", "--", "node"}, 2,
			[]string{"--deferred and --no-deferred contradict"}},
		{"neither command nor url", []string{"n"}, 2, []string{"give the server's command after --"}},
		{"command and url", []string{"b", "--url", "https://e.example", "--", "node"}, 2, []string{"either a command (after --) or --url"}},
		{"no name", []string{}, 2, []string{"needs a server name"}},
		{"name missing before --", []string{"--", "node"}, 2, []string{`the server name comes before "--"`}},
		{"two words before --", []string{"a", "b", "--", "node"}, 2, []string{`expected one name before "--"`}},
		{"env item without =, value not shown", []string{"e", "-e", envSecret, "--", "node"}, 2, []string{`--env item 1 has no "="`}},
		{"header without colon", []string{"e", "--url", "https://e.example", "-H", headerSecret}, 2, []string{`--header item 1 has no ":"`}},
		{"negative timeout", []string{"t", "--timeout", "-5s", "--", "node"}, 2, []string{"--timeout must be positive"}},
		{"control character in name", []string{"bad\x01name", "--", "node"}, 1, []string{`tools.mcp.servers["bad\x01name"]: the server name "bad\x01name" contains "\x01"`}},
		{"a name with a path", []string{"../../x", "--", "node"}, 1,
			[]string{`tools.mcp.servers["../../x"]: the server name "../../x" starts with "."; rename the server (e.g. "x"): use only letters, digits`}},
		{"a name the dashboard's help refuses", []string{"my server!", "--", "node"}, 1,
			[]string{`tools.mcp.servers["my server!"]: the server name "my server!" contains " "; rename the server (e.g. "my-server")`}},
		{"a name of 10,000 characters", []string{strings.Repeat("n", 10000), "--", "node"}, 1, []string{"is 10000 characters long; rename the server"}},
		{"a masked env value", []string{"k", "-e", "K=****", "--", "node"}, 1,
			[]string{`tools.mcp.servers.k.env.K: is "****", the mask plughost shows in place of a secret, not a value; type the real value`}},
		{"unknown flag", []string{"x", "--bogus", "--", "node"}, 2, []string{"unknown flag: --bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.run(t, append([]string{"mcp", "add"}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("want exit %d, got %s", tt.code, r)
			}
			wantContains(t, "stderr", r.stderr, tt.msg...)
			noSecrets(t, r)
			if !bytes.Equal(before, readFile(t, c.userConfig())) {
				t.Errorf("the config file changed:\n%s", readFile(t, c.userConfig()))
			}
		})
	}

	t.Run("config file that is not JSON", func(t *testing.T) {
		broken := []byte("{\"tools\": {\"mcp\": {\"enabled\": true,,}}}\n")
		if err := os.WriteFile(c.userConfig(), broken, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"add", "x", "--", "node"}, {"remove", "alpha"}} {
			r := c.run(t, append([]string{"mcp"}, args...)...)
			if r.code != 1 {
				t.Errorf("mcp %s: want exit 1, got %s", args[0], r)
			}
			wantContains(t, "stderr", r.stderr, "line 1, column", "plughost mcp edit")
			if !bytes.Equal(broken, readFile(t, c.userConfig())) {
				t.Errorf("mcp %s changed a broken file", args[0])
			}
		}
	})
}

// handWritten is a user file with keys plughost does not know, numbers in
// forms a decode/encode round trip would change, odd spacing and a dotted
// server name.
const handWritten = `{
   "agent" : {"model": "x", "budget": 1e3, "price": 10.50, "id": 123456789012345678901234567890},
   "tools": {
      "other_tool": {"keep": true},
      "mcp": {
         "enabled": true,
         "servers": {
            "my.dotted": {"enabled": false, "command": "node",   "args": ["a"]},
            "slack": {"enabled": false, "type": "slack", "command": "npx", "team": {"size": 1E+2, "ratio": 0.10}}
         },
         "x-comment": "kept"
      }
   }
}
`

func TestMCPWritesKeepTheRest(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	if err := os.MkdirAll(filepath.Dir(c.userConfig()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.userConfig(), []byte(handWritten), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.run(t, "mcp", "add", "new.one", "--", "node", "x.js")
	if r.code != 0 {
		t.Fatalf("mcp add: %s", r)
	}
	// agent, other_tool and x-comment are unknown to the validator (a third-
	// party transport's keys are not): they were there before, so they are
	// warnings, not a refusal, and they stay.
	wantContains(t, "stderr", r.stderr, `already in the file, not changed by this command: agent: unknown key "agent"`, "tools.mcp.x-comment")
	if strings.Contains(r.stderr, "team") {
		t.Errorf("a third-party transport's key is reported:\n%s", r)
	}
	got := string(readFile(t, c.userConfig()))
	wantIn := `            "slack": {"enabled": false, "type": "slack", "command": "npx", "team": {"size": 1E+2, "ratio": 0.10}},
            "new.one": {
               "enabled": true,
               "command": "node",
               "args": [
                  "x.js"
               ]
            }
         },`
	wantContains(t, "config file", got, wantIn, `"budget": 1e3, "price": 10.50, "id": 123456789012345678901234567890`, `"other_tool": {"keep": true}`)
	wantMode(t, c.userConfig(), 0o600)
	if b := readFile(t, c.userConfig()+".bak"); string(b) != handWritten {
		t.Errorf("backup differs from the original:\n%s", b)
	}

	r = c.run(t, "mcp", "remove", "new.one")
	if r.code != 0 {
		t.Fatalf("mcp remove: %s", r)
	}
	if diff := cmp.Diff(handWritten, string(readFile(t, c.userConfig()))); diff != "" {
		t.Errorf("add then remove did not restore the file byte for byte (-want +got):\n%s", diff)
	}

	r = c.run(t, "mcp", "remove", "nope")
	if r.code != 1 {
		t.Errorf("remove unknown: want exit 1, got %s", r)
	}
	wantContains(t, "stderr", r.stderr, `no server named "nope"`, "configured: my.dotted, slack")
	if diff := cmp.Diff(handWritten, string(readFile(t, c.userConfig()))); diff != "" {
		t.Errorf("a failed remove changed the file:\n%s", diff)
	}
	r = c.run(t, "mcp", "remove", "my.dotted")
	if r.code != 0 || servers(t, c.userConfig())["my.dotted"] != nil {
		t.Errorf("remove my.dotted: %s", r)
	}
	wantContains(t, "config file", string(readFile(t, c.userConfig())), `"x-comment": "kept"`, `"price": 10.50`)
}

// Parallel plughost processes that add different servers to the same file
// all succeed, and every server is in the file at the end: an add overtaken
// by another is made again on the new file.
func TestMCPConcurrentAdds(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
	const n = 6
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = c.run(t, "mcp", "add", fmt.Sprintf("s%d", i), "--", "node", "x.js") })
	}
	wg.Wait()
	got := servers(t, c.userConfig())
	for i, r := range results {
		if name := fmt.Sprintf("s%d", i); r.code != 0 || got[name] == nil {
			t.Errorf("%s: in the file %v: %s", name, got[name] != nil, r)
		}
	}
}

// Writers through a running serve's API and through the CLI, none sending
// a version, add different servers to one file at once: every write
// succeeds and every server is in the file at the end.
func TestConcurrentWritersAPIAndCLI(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	api := strings.TrimSuffix(g.url, "/mcp") + "/api/servers"
	const writers, apiEach, cliEach = 3, 6, 3
	var wg sync.WaitGroup
	failures := make(chan string, writers*(apiEach+cliEach))
	for w := range writers {
		wg.Go(func() {
			for i := range apiEach {
				name := fmt.Sprintf("api%d-%d", w, i)
				body := fmt.Sprintf(`{"name": %q, "server": {"enabled": false, "command": "node", "args": ["x.js"]}}`, name)
				req, _ := http.NewRequest("POST", api, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+g.token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failures <- fmt.Sprintf("POST %s: %v", name, err)
					continue
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failures <- fmt.Sprintf("POST %s: %d %s", name, resp.StatusCode, answer)
				}
			}
		})
		wg.Go(func() {
			for i := range cliEach {
				name := fmt.Sprintf("cli%d-%d", w, i)
				if r := c.run(t, "--config", g.config, "mcp", "add", name, "--disabled", "--", "node", "x.js"); r.code != 0 {
					failures <- fmt.Sprintf("mcp add %s: %s", name, r)
				}
			}
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	got := servers(t, g.config)
	for w := range writers {
		for i := range apiEach {
			if got[fmt.Sprintf("api%d-%d", w, i)] == nil {
				t.Errorf("api%d-%d is not in the file", w, i)
			}
		}
		for i := range cliEach {
			if got[fmt.Sprintf("cli%d-%d", w, i)] == nil {
				t.Errorf("cli%d-%d is not in the file", w, i)
			}
		}
	}
}

// editorScript writes an executable shell script to be used as $EDITOR.
func editorScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nset -e\n"+body), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMCPEdit(t *testing.T) {
	ts := filepath.Join(bins, "testserver")
	valid := fmt.Sprintf(`{"tools": {"mcp": {"enabled": true, "servers": {"edited": {"enabled": true, "command": %q, "env": {"T": %q}}}}}}`+"\n", ts, envSecret)
	draftOf := func(c *cli) string { return filepath.Join(c.home, ".plughost", "config.draft.json") }

	t.Run("missing file opens a skeleton, valid text is saved", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		src := filepath.Join(t.TempDir(), "valid.json")
		os.WriteFile(src, []byte(valid), 0o600)
		ed := editorScript(t, `[ "$1" = --wait ] && shift
grep -q '"servers": {}' "$2" || exit 7
cp "$1" "$2"
`)
		// EDITOR with arguments, as "code --wait" would be.
		r := c.runWith(t, []string{"EDITOR=" + ed + " --wait " + src}, "mcp", "edit")
		if r.code != 0 {
			t.Fatalf("mcp edit: %s", r)
		}
		wantContains(t, "stdout", r.stdout, "Saved "+c.userConfig())
		noSecrets(t, r)
		if string(readFile(t, c.userConfig())) != valid {
			t.Errorf("saved text differs:\n%s", readFile(t, c.userConfig()))
		}
		wantMode(t, c.userConfig(), 0o600)
		if _, err := os.Stat(draftOf(c)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("draft left behind: %v", err)
		}
		r = c.run(t, "mcp", "list", "--no-probe")
		wantContains(t, "mcp list", r.stdout, "edited", "not probed")
	})

	t.Run("invalid text is kept, then fixed", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"alpha": testserver()}}))
		before := readFile(t, c.userConfig())
		broken := editorScript(t, `printf '{"tools": {"mcp": {"enabled": true, "servers": {"b": {"enabled": true, "comand": "x", "env": {"S": "`+envSecret+`"}}}}}}\n' > "$1"`)
		r := c.runWith(t, []string{"VISUAL=" + broken, "EDITOR=false"}, "mcp", "edit")
		if r.code != 1 {
			t.Fatalf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "nothing was written", "tools.mcp.servers.b.comand", `did you mean "command"`, "config.draft.json")
		noSecrets(t, r)
		if !bytes.Equal(before, readFile(t, c.userConfig())) {
			t.Errorf("an invalid edit changed the config file")
		}
		if !strings.Contains(string(readFile(t, draftOf(c))), `"comand"`) {
			t.Errorf("the user's text was not kept in the draft")
		}
		wantMode(t, draftOf(c), 0o600)

		// The next edit resumes the draft (the editor checks it sees it).
		fix := editorScript(t, `grep -q '"comand"' "$1" || exit 9
sed -i 's/"comand": "x"/"command": "`+strings.ReplaceAll(ts, "/", `\/`)+`"/' "$1"
`)
		r = c.runWith(t, []string{"EDITOR=" + fix}, "mcp", "edit")
		if r.code != 0 {
			t.Fatalf("fixing edit: %s", r)
		}
		wantContains(t, "stderr", r.stderr, "Resuming your unsaved edit")
		if got := servers(t, c.userConfig())["b"]["command"]; got != ts {
			t.Errorf("fixed entry not saved: %v", got)
		}
		if !bytes.Equal(before, readFile(t, c.userConfig()+".bak")) {
			t.Errorf("backup is not the version before the edit")
		}
	})

	t.Run("values out of range, masked or unknown are refused with their paths", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
		before := readFile(t, c.userConfig())
		bad := editorScript(t, `printf '{"tools": {"mcp": {"enabled": true, "max_message_mb": -1, "max_inline_text_charz": 1, "discovery": {"enabled": false, "ttl": -1}, `+
			`"servers": {"my server!": {"enabled": true, "command": "node", "env": {"K": "****"}}}}}}\n' > "$1"`)
		r := c.runWith(t, []string{"EDITOR=" + bad}, "mcp", "edit")
		if r.code != 1 {
			t.Fatalf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "nothing was written",
			"tools.mcp.max_message_mb: must be between 1 and 1024 (MiB), got -1",
			`tools.mcp.max_inline_text_charz: unknown key "max_inline_text_charz" (did you mean "max_inline_text_chars"?)`,
			"tools.mcp.discovery.ttl: must be at least 1, got -1",
			`tools.mcp.servers["my server!"]: the server name "my server!" contains " "; rename the server (e.g. "my-server")`,
			`tools.mcp.servers["my server!"].env.K: is "****", the mask plughost shows in place of a secret`)
		if !bytes.Equal(before, readFile(t, c.userConfig())) {
			t.Errorf("an invalid edit changed the config file")
		}
	})

	t.Run("invalid JSON in the current file can be edited", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		os.MkdirAll(filepath.Dir(c.userConfig()), 0o700)
		os.WriteFile(c.userConfig(), []byte(`{"tools": {`), 0o600)
		src := filepath.Join(t.TempDir(), "valid.json")
		os.WriteFile(src, []byte(valid), 0o600)
		ed := editorScript(t, `grep -q '{"tools": {' "$1" || exit 8
cp `+src+` "$1"
`)
		r := c.runWith(t, []string{"EDITOR=" + ed}, "mcp", "edit")
		if r.code != 0 {
			t.Fatalf("mcp edit: %s", r)
		}
		if string(readFile(t, c.userConfig())) != valid {
			t.Errorf("not saved")
		}
	})

	t.Run("a change made meanwhile is not overwritten", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
		theirs := `{"tools": {"mcp": {"enabled": false}}}`
		// While "the user" edits, another program rewrites the config.
		ed := editorScript(t, fmt.Sprintf(`printf '%%s' '%s' > %q
printf '%%s' '%s' > "$1"
`, theirs, c.userConfig(), strings.TrimSpace(valid)))
		r := c.runWith(t, []string{"EDITOR=" + ed}, "mcp", "edit")
		if r.code != 1 {
			t.Fatalf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, "changed by someone else", "config.draft.json")
		if got := string(readFile(t, c.userConfig())); got != theirs {
			t.Errorf("the other change was overwritten: %s", got)
		}
		if !strings.Contains(string(readFile(t, draftOf(c))), `"edited"`) {
			t.Errorf("the user's text was lost")
		}
	})

	t.Run("no change", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
		r := c.runWith(t, []string{"EDITOR=true"}, "mcp", "edit")
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		wantContains(t, "stdout", r.stdout, "No changes")
		if _, err := os.Stat(c.userConfig() + ".bak"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a backup was made without a change")
		}
	})

	t.Run("failing editor keeps the draft", func(t *testing.T) {
		c := newCLI(t)
		t.Parallel()
		r := c.runWith(t, []string{"EDITOR=false"}, "mcp", "edit")
		if r.code != 1 {
			t.Fatalf("want exit 1, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, `editor "false" failed`, "config.draft.json")
	})
}

func TestMCPListAndTest(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	no, yes := false, true
	pinned := testserver()
	pinned["deferred"] = no
	optin := testserver()
	optin["deferred"] = yes
	off := testserver()
	off["enabled"] = false
	off["env"] = map[string]any{"K": envSecret}
	c.writeUserConfig(t, mcpConfig(map[string]any{
		"enabled":   true,
		"discovery": map[string]any{"enabled": true},
		"servers":   map[string]any{"global": testserver(), "pinned": pinned, "optin": optin, "off": off},
	}))

	r := c.run(t, "mcp", "list", "--timeout", "30s")
	if r.code != 0 {
		t.Fatalf("mcp list: %s", r)
	}
	rows := listRows(t, r.stdout)
	want := map[string]string{"global": "connected, 11 tools", "pinned": "connected, 11 tools", "optin": "connected, 11 tools", "off": "disabled"}
	if diff := cmp.Diff(want, summaries(rows)); diff != "" {
		t.Errorf("mcp list (-want +got):\n%s\n%s", diff, r)
	}
	for name, cols := range map[string]string{
		"global": "stdio (auto)  yes      yes (global)", "pinned": "stdio (auto)  yes      no (opt-out)",
		"optin": "stdio (auto)  yes      yes (opt-in)", "off": "stdio (auto)  no       yes (global)",
	} {
		if !strings.Contains(r.stdout, name) || !strings.Contains(lineOf(r.stdout, name), cols) {
			t.Errorf("row %s lacks %q:\n%s", name, cols, r.stdout)
		}
	}

	r = c.run(t, "mcp", "list", "--json", "--no-probe")
	var got []struct {
		Name           string `json:"name"`
		State          string `json:"state"`
		Enabled        bool   `json:"enabled"`
		Deferred       bool   `json:"deferred"`
		DeferredReason string `json:"deferred_reason"`
		Detected       bool   `json:"detected"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	type row struct {
		State, Reason     string
		Enabled, Deferred bool
	}
	gotRows := map[string]row{}
	for _, g := range got {
		gotRows[g.Name] = row{g.State, g.DeferredReason, g.Enabled, g.Deferred}
	}
	wantRows := map[string]row{
		"global": {"not probed", "global", true, true}, "pinned": {"not probed", "opt-out", true, false},
		"optin": {"not probed", "opt-in", true, true}, "off": {"disabled", "global", false, true},
	}
	if diff := cmp.Diff(wantRows, gotRows); diff != "" {
		t.Errorf("mcp list --json --no-probe (-want +got):\n%s", diff)
	}

	r = c.run(t, "--set", "tools.mcp.discovery.enabled=false", "mcp", "list", "--no-probe")
	wantContains(t, "mcp list with discovery off", r.stdout, "no (discovery off)")

	// mcp test works on a disabled server and leaves the config alone.
	before := readFile(t, c.userConfig())
	r = c.run(t, "mcp", "test", "off")
	if r.code != 0 {
		t.Fatalf("mcp test off: %s", r)
	}
	wantContains(t, "stdout", r.stdout, "disabled in the config; tested anyway", "reachable over stdio", "tools:    11")
	noSecrets(t, r)
	if !bytes.Equal(before, readFile(t, c.userConfig())) {
		t.Errorf("mcp test changed the config")
	}
	r = c.run(t, "mcp", "test", "off", "--json")
	var rep struct {
		OK              bool `json:"ok"`
		DefinitionBytes int  `json:"definition_bytes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || !rep.OK || rep.DefinitionBytes < 500 {
		t.Errorf("mcp test --json: ok=%v bytes=%d err=%v\n%s", rep.OK, rep.DefinitionBytes, err, r)
	}

	r = c.run(t, "mcp", "show", "off")
	if r.code != 0 {
		t.Fatalf("mcp show off: %s", r)
	}
	wantContains(t, "mcp show", r.stdout, "Type:", "(detected)", "Deferred:", "yes (global)", "Env:", "K=****")
	noSecrets(t, r)

	// No command shows the secret, in any output form.
	for _, args := range [][]string{
		{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "list", "--no-probe"}, {"mcp", "show", "off", "--json"},
		{"--set", "tools.mcp.servers.off.enabled=true", "mcp", "export", "--format", "claude"},
		{"--set", "tools.mcp.servers.off.enabled=true", "mcp", "export", "--format", "vscode"},
		{"--log-level", "trace", "mcp", "test", "off"}, {"mcp", "remove", "nosuch"},
	} {
		noSecrets(t, c.run(t, args...))
	}
}

// lineOf returns the first line of s that starts with prefix.
func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix+" ") {
			return l
		}
	}
	return ""
}

func TestMCPImportExport(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	ts := filepath.Join(bins, "testserver")
	claude := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	writeConfig(t, claude, map[string]any{"mcpServers": map[string]any{
		"local":  map[string]any{"command": ts, "args": []string{"-name", "imported"}, "env": map[string]any{"TOKEN": envSecret}, "autoApprove": []string{}},
		"remote": map[string]any{"type": "http", "url": "https://example.com/mcp", "headers": map[string]any{"Authorization": "Bearer " + headerSecret}},
	}})

	r := c.run(t, "mcp", "import", claude)
	if r.code != 0 {
		t.Fatalf("mcp import: %s", r)
	}
	wantContains(t, "stdout", r.stdout, "Imported 2 server(s)", "claude format", "first servers")
	wantContains(t, "stderr", r.stderr, `"autoApprove" has no plughost equivalent`)
	noSecrets(t, r)
	r = c.run(t, "mcp", "test", "local")
	wantContains(t, "mcp test local", r.stdout, "reachable", "imported")

	before := readFile(t, c.userConfig())
	r = c.run(t, "mcp", "import", claude)
	if r.code != 1 {
		t.Errorf("re-import: want exit 1, got %s", r)
	}
	wantContains(t, "stderr", r.stderr, "nothing was imported", `"local"`, `"remote"`, "--force")
	if !bytes.Equal(before, readFile(t, c.userConfig())) {
		t.Errorf("a refused import changed the file")
	}
	if r := c.run(t, "mcp", "import", "--force", claude); r.code != 0 {
		t.Errorf("import --force: %s", r)
	}

	for _, format := range []string{"claude", "cursor", "vscode"} {
		t.Run(format, func(t *testing.T) {
			r := c.run(t, "mcp", "export", "--format", format)
			if r.code != 0 {
				t.Fatalf("export: %s", r)
			}
			noSecrets(t, r)
			wantContains(t, "stderr", r.stderr, "--show-secrets")
			r = c.run(t, "mcp", "export", "--format", format, "--show-secrets")
			if r.code != 0 {
				t.Fatalf("export --show-secrets: %s", r)
			}
			exported := filepath.Join(t.TempDir(), format+".json")
			os.WriteFile(exported, []byte(r.stdout), 0o600)

			other := newCLI(t)
			r = other.run(t, "mcp", "import", "--from", format, exported)
			if r.code != 0 {
				t.Fatalf("import of the export: %s", r)
			}
			want := servers(t, c.userConfig())
			if format == "vscode" { // VS Code names every type
				want["local"]["type"] = "stdio"
			}
			if diff := cmp.Diff(want, servers(t, other.userConfig())); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}

	r = c.run(t, "mcp", "export", "--format", "zed")
	if r.code != 2 {
		t.Errorf("unknown format: want exit 2, got %s", r)
	}
	r = c.run(t, "mcp", "import", "--from", "vscode", claude)
	if r.code != 1 {
		t.Errorf("wrong --from: want exit 1, got %s", r)
	}
	wantContains(t, "stderr", r.stderr, `"servers" or "mcp.servers"`)
}

// A config written before the name rule, with a server whose name breaks
// it, keeps working: that server is listed as invalid with the rule (it
// does not start, and it does not vanish), the others run, and it can be
// removed by its name.
func TestInvalidServerNameStaysListed(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"my server!": testserver(), "ok": testserver()}}))
	r := c.run(t, "mcp", "list", "--json", "--timeout", "30s")
	var rows []struct {
		Name, State, Description string
		LastError                string `json:"last_error"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != 2 {
		t.Fatalf("mcp list --json: %s", r)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Name] = row.State + ": " + row.Description + " " + row.LastError
	}
	if !strings.HasPrefix(got["ok"], "connected") {
		t.Errorf("ok: %s", got["ok"])
	}
	wantContains(t, "the bad name's row", got["my server!"], "invalid",
		`tools.mcp.servers["my server!"]: the server name "my server!" contains " "; rename the server (e.g. "my-server")`)
	if r := c.run(t, "mcp", "remove", "my server!"); r.code != 0 || servers(t, c.userConfig())["my server!"] != nil {
		t.Errorf("mcp remove of the bad name: %s", r)
	}
}
