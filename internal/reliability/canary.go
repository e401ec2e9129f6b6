//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// secretCanary configures every kind of secret — an env value, an env_file
// value, a header, URL userinfo, a URL query parameter, and the env of a
// server whose crash quotes its stderr (which echoes its environment) —
// a server printing one on its stdout, and one quoting one in its JSON-RPC
// errors and log messages, with unique canary values, runs the gateway's
// doors (gatewayDoorCanary), the CLI (list, show, test, export), the
// API, /readyz, /metrics and the gateway log over them, and then scans
// everything the whole suite printed and wrote for the canaries. Only the
// files that configure them (config.json, the env file) may hold them.
func (s *suite) secretCanary() error {
	url, stopRemote, err := s.startRemote()
	if err != nil {
		return err
	}
	defer stopRemote()
	canary := map[string]string{}
	for _, kind := range []string{"env", "envfile", "header", "userinfo", "query", "crashenv", "junk", "leak"} {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		canary[kind] = "CANARY" + kind + hex.EncodeToString(b)
	}
	dir := filepath.Join(s.work, "secret-canary")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	envFile := filepath.Join(dir, "server.env")
	if err := os.WriteFile(envFile, []byte("FILE_SECRET="+canary["envfile"]+"\n"), 0o600); err != nil {
		return err
	}
	envsrv := s.stdio("-echo-env")
	envsrv["env"] = map[string]any{"API_TOKEN": canary["env"]}
	envsrv["env_file"] = envFile
	crashing := s.stdio("-echo-env", "-fail-start")
	crashing["env"] = map[string]any{"DB_PASSWORD": canary["crashenv"]}
	junk := s.stdio("-junk-tool")
	junk["env"] = map[string]any{"JUNK_SECRET": canary["junk"]}
	leak := s.stdio("-leak-env", "LEAK_SECRET")
	leak["env"] = map[string]any{"LEAK_SECRET": canary["leak"]}
	u := strings.Replace(url, "http://", "http://user:"+canary["userinfo"]+"@", 1) + "?api_key=" + canary["query"]
	servers := map[string]any{
		"envsrv":   envsrv,
		"crashing": crashing,
		"junk":     junk,
		"leak":     leak,
		"remote":   map[string]any{"enabled": true, "type": "http", "url": u, "headers": map[string]any{"X-Api-Key": canary["header"]}},
	}
	sv, err := s.startServe("secret-canary", serveOptions{servers: servers})
	if err != nil {
		return err
	}
	if _, err := sv.waitServers(60*time.Second, "servers up, the crashing one failed", func(v map[string]serverListing) bool {
		return v["envsrv"].State == "connected" && v["remote"].State == "connected" && v["junk"].State == "connected" &&
			v["leak"].State == "connected" && v["crashing"].LastError != ""
	}); err != nil {
		return err
	}
	// The CLI, against the same config.
	c := sv.newClient()
	if err := c.initialize(context.Background()); err != nil {
		return err
	}
	// A server that prints the secret on its stdout mid-session: the line is
	// skipped (and logged at debug by the stdio plugin) and must not leak.
	o := c.call(context.Background(), "mcp_junk_junk", map[string]any{"text": "debug: JUNK_SECRET is " + canary["junk"]})
	_ = os.WriteFile(filepath.Join(dir, "call-junk.txt"), []byte(o.text+o.failure()), 0o600)
	o = c.call(context.Background(), "mcp_crashing_noop", map[string]any{})
	_ = os.WriteFile(filepath.Join(dir, "call-crashing.txt"), []byte(o.text+o.failure()), 0o600)
	c.close(context.Background())
	// A server whose JSON-RPC errors and log messages quote the secret, on
	// every door of the gateway.
	if err := s.gatewayDoorCanary(sv, dir); err != nil {
		return err
	}
	cli := [][]string{{"mcp", "list"}, {"mcp", "export", "--format", "claude"}, {"mcp", "export", "--format", "cursor"}, {"mcp", "export", "--format", "vscode"}}
	for _, n := range []string{"envsrv", "crashing", "remote", "junk"} {
		cli = append(cli, []string{"mcp", "show", n}, []string{"mcp", "test", n})
	}
	for i, args := range cli {
		if err := s.runCLI(sv, fmt.Sprintf("cli-%02d-%s", i, strings.Join(args, "-")), args...); err != nil {
			return err
		}
	}
	// The API and the other endpoints.
	paths := []string{"/api/servers", "/api/status", "/api/tools", "/readyz", "/metrics"}
	for _, n := range []string{"envsrv", "crashing", "remote", "junk"} {
		paths = append(paths, "/api/servers/"+n)
	}
	for i, p := range paths {
		body, _, err := sv.get(context.Background(), p, true)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, fmt.Sprintf("http-%02d%s.txt", i, strings.ReplaceAll(p, "/", "_")))
		if err := os.WriteFile(out, body, 0o600); err != nil {
			return err
		}
	}
	sv.stop() // the log is complete

	hits, scanned, err := s.scan(canary, map[string]bool{envFile: true})
	if err != nil {
		return err
	}
	s.check("secret-canary", "canary values in everything written", "0 hits (only the config and env files hold them)",
		fmt.Sprintf("%d files scanned (CLI output, API and endpoint bodies, serve logs and stdout of every case, artifacts); %d hits%s",
			scanned, len(hits), ifNotEmpty(": ", strings.Join(hits, "; "))), len(hits) == 0 && scanned > 0)
	return nil
}

// runCLI runs plughost with args against serve's config and HOME and keeps
// its stdout and stderr under name.
func (s *suite) runCLI(sv *serve, name string, args ...string) error {
	_, err := s.cliOutput(sv, filepath.Join(s.work, "secret-canary", name+".out"), args...)
	return err
}

// cliOutput runs plughost with args against serve's config and HOME, keeps
// its stdout and stderr in the file path and returns them.
func (s *suite) cliOutput(sv *serve, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "plughost"), append([]string{"--config", sv.cfg}, args...)...)
	cmd.Env = s.environ(sv.dir)
	cmd.Dir = sv.dir
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	_ = cmd.Run() // a failing check (mcp test crashing) exits non-zero: its output is what counts
	b, err := os.ReadFile(path)
	return string(b), err
}

// scan reads every file under the work dir, and the suite's own report so
// far, for the canary values; config.json files and the allowed files may
// hold them, binaries are skipped.
func (s *suite) scan(canary map[string]string, allowed map[string]bool) (hits []string, scanned int, err error) {
	err = filepath.WalkDir(s.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || allowed[path] || filepath.Base(path) == "config.json" || path == s.testserver {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		scanned++
		for kind, v := range canary {
			if strings.Contains(string(b), v) {
				rel, _ := filepath.Rel(s.work, path)
				hits = append(hits, fmt.Sprintf("%s canary in %s", kind, rel))
			}
		}
		return nil
	})
	var report strings.Builder
	for _, r := range s.Results() {
		report.WriteString(r.observed + "\n")
	}
	scanned++
	for kind, v := range canary {
		if strings.Contains(report.String(), v) {
			hits = append(hits, kind+" canary in the suite's report")
		}
	}
	sort.Strings(hits)
	return hits, scanned, err
}
