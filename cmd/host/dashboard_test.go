//go:build unix

package main_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `plughost dashboard` without a serve of the config says how to start one
// and exits 1.
func TestDashboardWithoutServe(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{}}))
	r := c.run(t, "--config", path, "dashboard", "--no-open")
	if r.code != 1 || !strings.Contains(r.stderr, "no plughost serve is running for "+path+": start it with `plughost serve`") {
		t.Fatalf("dashboard without serve:\n%s", r)
	}
}

// `plughost dashboard` prints a one-time login link of the running serve;
// the page trades its code for the token once, and only from its own origin.
func TestDashboardLogin(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	gw := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	base := strings.TrimSuffix(gw.url, "/mcp")
	wantContains(t, "serve's stderr", gw.stderr.String(), "plughost: dashboard at "+base+"/ (open it logged in with `plughost dashboard`)")
	if strings.Contains(gw.stderr.String(), gw.token) {
		t.Errorf("serve's log shows the token")
	}

	r := c.run(t, "--config", gw.config, "dashboard", "--no-open")
	link := regexp.MustCompile(`^Dashboard: (` + regexp.QuoteMeta(base) + `/#code=([0-9a-f]{32}))\n`).FindStringSubmatch(r.stdout)
	if r.code != 0 || link == nil {
		t.Fatalf("dashboard --no-open:\n%s", r)
	}
	if strings.Contains(r.stdout+r.stderr, gw.token) {
		t.Errorf("dashboard printed the token:\n%s", r)
	}
	exchange := func(origin string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/dashboard/session", strings.NewReader(`{"code":"`+link[2]+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := exchange("http://evil.example"); st != http.StatusForbidden {
		t.Errorf("exchange from another origin: %d %s, want 403", st, body)
	}
	st, body := exchange(base)
	var got struct{ Token string }
	if st != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got.Token != gw.token {
		t.Fatalf("exchange: %d %s, want 200 with serve's token", st, body)
	}
	if st, body := exchange(base); st != http.StatusUnauthorized {
		t.Errorf("second exchange of the code: %d %s, want 401", st, body)
	}
}

// Without --no-open, $BROWSER opens the dashboard logged in, but the login
// code never sits on a command line (ps shows every user the browser's):
// the browser gets a loopback address that redirects it to the link.
func TestDashboardOpensBrowser(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	gw := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	dir := t.TempDir()
	argv := filepath.Join(dir, "argv")
	if err := syscall.Mkfifo(argv, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$0 $*\" > "+argv+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "--config", gw.config, "dashboard")
	cmd.Env = append(cmd.Env, "BROWSER="+script)
	stdout := &notifyBuffer{changed: make(chan struct{}, 1)}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	args := make(chan string, 1)
	go func() { b, _ := os.ReadFile(argv); args <- strings.TrimSpace(string(b)) }() // returns once the browser wrote
	var got string
	select {
	case got = <-args:
	case <-ctx.Done():
		t.Fatalf("the browser was not started:\n%s%s", stdout, &stderr)
	}
	stdout.waitFor(t, 10*time.Second, "the link", func(s string) bool { return strings.Contains(s, "#code=") })
	m := regexp.MustCompile(`Dashboard: (http://\S+/#code=([0-9a-f]{32}))`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no login link:\n%s", stdout)
	}
	link, code := m[1], m[2]
	launcher := regexp.MustCompile(`^\S+ (http://127\.0\.0\.1:\d+/)$`).FindStringSubmatch(got)
	if strings.Contains(got, code) || launcher == nil {
		t.Fatalf("the browser's command line is %q: want a loopback address without the code %s", got, code)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(launcher[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != link {
		t.Errorf("the browser's visit: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), link)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("dashboard: %v\n%s%s", err, stdout, &stderr)
	}
}
