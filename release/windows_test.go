package release

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWindowsArchiveUnderWine makes the windows/amd64 archive of
// .goreleaser.yaml and runs it under wine as a Windows user with a fresh
// profile would: plughost version, serve (the demo) answering an MCP tool
// call through its stdio plugin, tools, mcp add + tools. Then it kills serve
// hard and checks that the plugin, the servers and a server's child that
// never reads stdin died with it: the last needs the Job object (kill on
// close) that holds a server's process tree on Windows.
func TestWindowsArchiveUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP in -short: a release archive links plughost and its plugins")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("SKIP: wine runs windows/amd64 binaries on linux/amd64 (this is %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	wine, env, overlay := winePrefix(t)
	// Built with the overlay wine 8 needs for os.RemoveAll, as the Windows
	// test binaries are, sharing the packages compiled for them.
	goflags := "GOFLAGS=-overlay=" + overlay
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	s := buildArchive(t, root, "windows", "amd64", goflags)
	name := "plughost_" + s.version + "_windows_amd64"
	checkSums(t, s)
	dir := unzip(t, filepath.Join(s.dist, name+".zip"), name)
	checkLayout(t, dir, ".exe")
	ph := filepath.Join(dir, "plughost.exe")

	out := runClean(t, dir, env, wine, ph, "version")
	for _, want := range []string{"plughost " + s.version, "commit:   " + s.commit, "go:       " + runtime.Version() + " windows/amd64"} {
		if !strings.Contains(out, want) {
			t.Errorf("plughost.exe version lacks %q:\n%s", want, out)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	serve, url := startServe(ctx, t, dir, env, wine, ph)
	token := gatewayToken(t, env)
	// The demo server connects a moment after serve says where it serves.
	tools := func() string { return runClean(t, dir, env, wine, ph, "tools") }
	waitTools(t, "plughost.exe tools with the demo config lists mcp_demo_calculate", tools, func(out string) bool {
		return strings.Contains(out, "mcp_demo_calculate")
	})
	if got := callTool(t, url, token, "mcp_demo_calculate", map[string]any{"expression": "6*7"}); got != "42" {
		t.Errorf("mcp_demo_calculate 6*7 through serve = %q, want 42", got)
	}

	// A server given as a Windows path; serve reloads the changed config.
	runClean(t, dir, env, wine, ph, "mcp", "add", "archived", "--", windowsPath(ph), "demo-server")
	waitTools(t, "plughost.exe tools after mcp add lists mcp_archived_echo", tools, func(out string) bool {
		return strings.Contains(out, "mcp_archived_echo")
	})

	// A server that starts a child which never reads stdin, as npx leaves
	// node running: only the Job object ends that child.
	tsDir := t.TempDir()
	ts := filepath.Join(tsDir, "testserver.exe")
	run(t, root, []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", goflags}, "go", "build", "-o", ts, "./internal/testserver")
	runClean(t, dir, env, wine, ph, "mcp", "add", "parent", "--", windowsPath(ts), "-spawn-grandchild")
	waitTools(t, "plughost.exe tools lists mcp_parent_echo, and its server's child started", tools, func(out string) bool {
		return strings.Contains(out, "mcp_parent_echo") && len(processesUnder(t, tsDir)) == 2
	})

	// Killed without a chance to clean up, serve leaves no process behind.
	// The config now holds the added servers alone, in place of the demo;
	// each has a stdio plugin of its own (on Windows plugins relay, and only
	// plugins that pass pipes are shared).
	if running := processesUnder(t, dir); len(running) != 4 {
		t.Fatalf("processes running from the archive: %q; want serve, two stdio plugins and the archived server", running)
	}
	if err := serve.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = serve.Wait()
	var left []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if left = append(processesUnder(t, dir), processesUnder(t, tsDir)...); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("20 s after serve was killed, processes it started still run: %q", left)
	}
}

// winePrefix makes a wine prefix in which Go binaries start (release/wine/
// prefix.sh) and returns wine's loader, the environment to run it with (a
// fresh Windows profile, and a PATH without Go) and the go build -overlay
// that Windows binaries run under it are built with. It skips the test,
// loudly, where wine cannot run them.
func winePrefix(t *testing.T) (wine string, env []string, overlay string) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("sh", "wine/prefix.sh", dir).Output()
	if err != nil {
		t.Fatalf("wine/prefix.sh: %v\n%s", err, errOutput(err))
	}
	printed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			printed[k] = v
		}
	}
	if reason, ok := printed["skip"]; ok {
		t.Skipf("SKIP the Windows archive: %s", reason)
	}
	wine, overlay = printed["wine"], printed["overlay"]
	if wine == "" || overlay == "" {
		t.Fatalf("wine/prefix.sh printed %q; want wine=PATH and overlay=PATH, or skip=REASON", out)
	}
	prefix := filepath.Join(dir, "prefix")
	t.Cleanup(func() {
		kill := exec.Command(filepath.Join(filepath.Dir(wine), "wineserver"), "-k")
		kill.Env = append(os.Environ(), "WINEPREFIX="+prefix)
		_ = kill.Run() // none runs when every process ended
	})
	home := t.TempDir()
	return wine, []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "WINEPREFIX=" + prefix, "WINEDEBUG=-all"}, overlay
}

// errOutput is what a failed command wrote to stderr.
func errOutput(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// unzip extracts a .zip into a temporary dir and returns its top directory.
func unzip(t *testing.T, archive, top string) string {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, top+"/") || strings.Contains(f.Name, "..") {
			t.Fatalf("%s: entry %q is outside its top directory %s", archive, f.Name, top)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, top)
}

// windowsPath is path as a Windows program under wine names it: on the Z:
// drive, which wine maps to /.
func windowsPath(path string) string {
	return `Z:` + strings.ReplaceAll(path, "/", `\`)
}

// gatewayToken reads the token serve made in the fresh Windows profile.
func gatewayToken(t *testing.T, env []string) string {
	t.Helper()
	prefix := ""
	for _, e := range env {
		if p, ok := strings.CutPrefix(e, "WINEPREFIX="); ok {
			prefix = p
		}
	}
	files, _ := filepath.Glob(filepath.Join(prefix, "drive_c", "users", "*", ".plughost", "gateway.token"))
	if len(files) != 1 {
		t.Fatalf("gateway tokens in the Windows profile: %q; want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// callTool opens an MCP session at url and calls one tool, returning its
// first text content.
func callTool(t *testing.T, url, token, tool string, args map[string]any) string {
	t.Helper()
	sid := ""
	post := func(msg map[string]any) []byte {
		b, _ := json.Marshal(msg)
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("%v: %s %v: %s", msg["method"], resp.Status, err, body)
		}
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			sid = s
		}
		// A streamed answer: its data line is the message.
		for _, line := range strings.Split(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				return []byte(d)
			}
		}
		return body
	}
	post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "release-test", "version": "1"}}})
	post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	var reply struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	b := post(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if err := json.Unmarshal(b, &reply); err != nil || reply.Error != nil || reply.Result.IsError || len(reply.Result.Content) == 0 {
		t.Fatalf("tools/call %s: %v: %s", tool, err, b)
	}
	return reply.Result.Content[0].Text
}

// processesUnder lists the command lines of the processes running an
// executable from dir, which wine shows by its Windows path, or by the Unix
// path it was started with.
func processesUnder(t *testing.T, dir string) []string {
	t.Helper()
	win, unix := []byte(windowsPath(dir)+`\`), []byte(dir+"/")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, win) && !bytes.Contains(cmdline, unix) {
			continue
		}
		out = append(out, string(bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
	}
	return out
}
