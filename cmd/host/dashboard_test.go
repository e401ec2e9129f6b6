package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// Without --no-open, the link goes to $BROWSER.
func TestDashboardOpensBrowser(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	gw := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := c.runWith(t, []string{"BROWSER=" + script}, "--config", gw.config, "dashboard")
	if r.code != 0 {
		t.Fatalf("dashboard:\n%s", r)
	}
	link := regexp.MustCompile(`http://\S+/#code=[0-9a-f]{32}`).FindString(r.stdout)
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(opened); len(got) > 0 {
			break
		}
	}
	if link == "" || string(got) != link {
		t.Errorf("$BROWSER got %q, want the printed link %q\n%s", got, link, r)
	}
}
