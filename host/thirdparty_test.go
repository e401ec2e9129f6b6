//go:build unix

package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testwait"
)

// These tests run examples/logging-transport, built by testbin as
// mcp-transport-logging: a transport the host knows nothing about at compile
// time, found in the plugin dir by its type.

// loggingServer is a test server entry served by the logging transport.
func loggingServer() map[string]any {
	s := server()
	s["type"] = "logging"
	return s
}

func TestLoggingTransportThirdParty(t *testing.T) {
	integration(t)
	logs := &logBuffer{}
	bad := loggingServer()
	bad["log_level"] = "debug" // the plugin, not the host, decides its keys
	h := startHostOpts(t, host.Options{Logger: logs.logger()},
		map[string]any{"logged": loggingServer(), "plain": server(), "badkey": bad})

	st := state(h, "logged")
	if st.State != supervisor.StateConnected || st.Transport != "logging" || st.Tools == 0 {
		t.Fatalf("logged: %+v; want connected over the logging transport with tools", st)
	}
	if st.Path != "relay" {
		t.Errorf("logged: message path %q; the logging transport must see messages, so it must not offer direct pipes", st.Path)
	}
	s := h.NewSession()
	const marker = "body-that-must-not-be-logged-7f3a"
	if got := text(t, call(t, s, "mcp_logged_echo", map[string]any{"text": marker})); got != marker {
		t.Errorf("echo through the logging transport: %q", got)
	}
	logs.wait(t, map[string]any{"@message": "logging transport started", "version": "dev"})
	logs.wait(t, map[string]any{"direction": "host->server", "kind": "request", "method": "tools/call"})
	logs.wait(t, map[string]any{"direction": "server->host", "kind": "response", "server": "logged"})
	if strings.Contains(logs.String(), marker) {
		t.Errorf("a message body reached the log:\n%s", logs.String())
	}

	pid, _ := pidOf(t, s, "logged")
	if d, _ := h.Diagnostics(context.Background(), "logged"); d.PID != pid {
		t.Errorf("diagnostics pid %d, server pid %d; the wrapper must pass on the stdio diagnostics", d.PID, pid)
	}
	waitFor(t, h, "badkey to fail", func() bool { return state(h, "badkey").LastError != "" })
	if st := state(h, "badkey"); st.State == supervisor.StateConnected || !strings.Contains(st.LastError, "log_level") {
		t.Errorf("badkey: %+v; want a failure naming the key the plugin rejected", st)
	}
	if st := state(h, "plain"); st.State != supervisor.StateConnected || st.Transport != "stdio" {
		t.Errorf("plain: %+v; want connected over stdio", st)
	}
}

func TestPinThirdPartyPlugin(t *testing.T) {
	integration(t)
	plugin := filepath.Join(bins.PluginDir(), "mcp-transport-logging")
	pin := func(sum string) func(map[string]any) {
		return func(mcpCfg map[string]any) {
			mcpCfg["plugins"] = map[string]any{"sha256": map[string]any{"logging": sum}}
		}
	}
	t.Run("correct", func(t *testing.T) {
		h := startHost(t, map[string]any{"pinned": loggingServer()}, pin(sha256File(t, plugin)))
		if st := state(h, "pinned"); st.State != supervisor.StateConnected {
			t.Fatalf("pinned: %+v; want connected with the right pin", st)
		}
		if got := text(t, call(t, h.NewSession(), "mcp_pinned_echo", map[string]any{"text": "ok"})); got != "ok" {
			t.Errorf("echo: %q", got)
		}
	})
	t.Run("wrong", func(t *testing.T) {
		// A well-formed digest, of another file.
		wrong := sha256File(t, filepath.Join(bins.PluginDir(), "mcp-transport-stdio"))
		h := startHost(t, map[string]any{"pinned": loggingServer(), "other": server()}, pin(wrong))
		waitFor(t, h, "pinned to fail", func() bool { return state(h, "pinned").LastError != "" })
		st := state(h, "pinned")
		if st.State == supervisor.StateConnected || st.PluginPID != 0 {
			t.Fatalf("pinned: %+v; a plugin with the wrong checksum must not run", st)
		}
		for _, part := range []string{plugin, "sha256 pin", "tools.mcp.plugins.sha256.logging", wrong} {
			if !strings.Contains(st.LastError, part) {
				t.Errorf("pinned error %q lacks %q", st.LastError, part)
			}
		}
		if got := text(t, call(t, h.NewSession(), "mcp_other_echo", map[string]any{"text": "ok"})); got != "ok" {
			t.Errorf("other echo: %q; a bad pin must not affect other servers", got)
		}
	})
}

// TestSwapTransportBinary replaces the plugin executable under a running
// host: the server uses the new one from its next start, without a host
// restart.
func TestSwapTransportBinary(t *testing.T) {
	integration(t)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "mcp-transport-logging")
	install(t, filepath.Join(bins.PluginDir(), "mcp-transport-stdio"), plugin)
	logs := &logBuffer{}
	h := startHostInDir(t, dir, logs.logger(), map[string]any{"swapped": loggingServer()})
	before := state(h, "swapped")
	// The stdio plugin serves any type it is named for, and offers direct pipes.
	if before.State != supervisor.StateConnected || before.Path != "direct-pipes" {
		t.Fatalf("swapped before the swap: %+v; want connected over direct pipes", before)
	}
	s := h.NewSession()
	call(t, s, "mcp_swapped_echo", map[string]any{"text": "before"})
	if logs.has(map[string]any{"method": "tools/call"}) {
		t.Fatalf("messages logged before the logging plugin was installed:\n%s", logs.String())
	}

	install(t, filepath.Join(bins.PluginDir(), "mcp-transport-logging"), plugin)
	killServer(t, s, "swapped")
	waitFor(t, h, "swapped to restart", func() bool {
		st := state(h, "swapped")
		return st.State == supervisor.StateConnected && st.Restarts >= 1
	})
	after := state(h, "swapped")
	if after.Path != "relay" || after.PluginPID == before.PluginPID {
		t.Errorf("swapped after the swap: %+v; want the new plugin (relay, new plugin pid; before %d)", after, before.PluginPID)
	}
	if got := text(t, call(t, s, "mcp_swapped_echo", map[string]any{"text": "after"})); got != "after" {
		t.Errorf("echo after the swap: %q", got)
	}
	logs.wait(t, map[string]any{"@message": "logging transport started"})
	logs.wait(t, map[string]any{"direction": "host->server", "method": "tools/call"})
}

// TestPinCheckedOnEveryStart swaps a pinned plugin: the restart must refuse
// the new executable instead of running it.
func TestPinCheckedOnEveryStart(t *testing.T) {
	integration(t)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "mcp-transport-logging")
	install(t, filepath.Join(bins.PluginDir(), "mcp-transport-logging"), plugin)
	h := startHostInDir(t, dir, nil, map[string]any{"pinned": loggingServer()}, func(mcpCfg map[string]any) {
		mcpCfg["plugins"] = map[string]any{"sha256": map[string]any{"logging": sha256File(t, plugin)}}
	})
	if st := state(h, "pinned"); st.State != supervisor.StateConnected {
		t.Fatalf("pinned: %+v; want connected with the right pin", st)
	}
	install(t, filepath.Join(bins.PluginDir(), "mcp-transport-stdio"), plugin)
	killServer(t, h.NewSession(), "pinned")
	waitFor(t, h, "the restart to refuse the swapped plugin", func() bool {
		return strings.Contains(state(h, "pinned").LastError, "sha256 pin")
	})
	if st := state(h, "pinned"); st.State == supervisor.StateConnected || !strings.Contains(st.LastError, plugin) {
		t.Errorf("pinned: %+v; want not connected, with an error naming %s", st, plugin)
	}
}

// startHostInDir is startHostOpts with plugins looked up in dir only, and
// logs going to logger (nil discards them).
func startHostInDir(t *testing.T, dir string, logger hclog.Logger, servers map[string]any, mutate ...func(map[string]any)) *host.Host {
	t.Helper()
	mcpCfg := map[string]any{
		"enabled": true,
		"servers": servers,
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
	}
	for _, f := range mutate {
		f(mcpCfg)
	}
	raw, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": mcpCfg}})
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := t.TempDir()
	l, err := config.Load(config.LoadOptions{
		UserFile: filepath.Join(cfgDir, "config.json"), UserData: raw, AllowMissing: true,
		SystemDir: filepath.Join(cfgDir, "none"), Home: cfgDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{
		ConfigDir: cfgDir, Environ: testEnviron(), PluginDirs: []string{dir}, Logger: logger, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatalf("servers did not settle: %v (%+v)", err, h.Statuses())
	}
	return h
}

// install puts a copy of src at dst the way a package manager should: write a
// temp file beside it, then rename over dst. Writing into a running
// executable fails (ETXTBSY); a rename leaves the running one untouched.
func install(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".install-*")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		t.Fatal(err)
	}
}

// killServer SIGKILLs a test server, so its supervisor restarts it.
func killServer(t *testing.T, s *host.Session, name string) {
	t.Helper()
	pid, _ := pidOf(t, s, name)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// logBuffer collects a host's hclog JSON output. It is safe for concurrent
// use: plugins' log lines arrive from go-plugin's stderr readers.
type logBuffer struct{ syncbuf.Buffer }

// logger returns an Info-level JSON host logger writing to l.
func (l *logBuffer) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "host", JSONFormat: true, Output: l, Level: hclog.Info})
}

// has reports whether a log line holds every field of want.
func (l *logBuffer) has(want map[string]any) bool {
	for _, line := range strings.Split(l.String(), "\n") {
		var got map[string]any
		if json.Unmarshal([]byte(line), &got) != nil {
			continue
		}
		match := true
		for k, v := range want {
			match = match && got[k] == v
		}
		if match {
			return true
		}
	}
	return false
}

// wait waits up to 10 s for a line holding every field of want.
func (l *logBuffer) wait(t *testing.T, want map[string]any) {
	t.Helper()
	if !testwait.Until(10*time.Second, func() bool { return l.has(want) }) {
		t.Fatalf("no host log line with %v; the log:\n%s", want, l.String())
	}
}
