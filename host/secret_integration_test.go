//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// Canary secrets, configured in every place a secret can be; none may ever
// appear in what the host reports or logs.
var canaries = []string{
	"canary-env-5b1f", "canary-file-77c2", "canary-hdr-9d04", "canary-pw-3e8a", "canary-query-c61d",
}

// canaryServers configures the canaries: a server that echoes its
// environment (env and env_file) to stderr and stays up, one that echoes it
// and exits at once (so its stderr tail becomes its last error), and a
// remote server with credentials in its URL and a header, which cannot be
// reached (so the URL appears in its error).
func canaryServers(t *testing.T) map[string]any {
	t.Helper()
	envFile := filepath.Join(t.TempDir(), "canary.env")
	if err := os.WriteFile(envFile, []byte("CANARY_FILE_SECRET="+canaries[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	echo := func(args ...string) map[string]any {
		s := server(append([]string{"-echo-env"}, args...)...)
		s["env"] = map[string]any{"CANARY_TOKEN": canaries[0]}
		s["env_file"] = envFile
		return s
	}
	return map[string]any{
		"echo":  echo(),
		"crash": echo("-fail-start"),
		"remote": map[string]any{
			"enabled": true, "type": "http",
			"url":     "http://bob:" + canaries[3] + "@127.0.0.1:1/mcp?api_key=" + canaries[4] + "&page=2",
			"headers": map[string]any{"X-Api-Key": canaries[2]},
		},
	}
}

// noCanary fails the test if text shows a canary.
func noCanary(t *testing.T, what, text string) {
	t.Helper()
	for _, c := range canaries {
		if strings.Contains(text, c) {
			t.Errorf("%s shows the secret %q:\n%s", what, c, text)
		}
	}
}

// What the host reports about servers that echo or quote their secrets
// (statuses, stderr tails, call errors, connectivity checks, logs) has every
// configured secret masked.
func TestSecretsMaskedEverywhere(t *testing.T) {
	integration(t)
	logs := &logBuffer{}
	h := startHostOpts(t, host.Options{Logger: logs.logger()}, canaryServers(t))
	waitFor(t, h, "crash and remote to fail", func() bool {
		return state(h, "crash").LastError != "" && state(h, "remote").LastError != ""
	})
	if st := state(h, "echo"); st.State != supervisor.StateConnected {
		t.Fatalf("echo: %+v", st)
	}

	diag, _ := h.Diagnostics(context.Background(), "echo")
	if !strings.Contains(diag.Stderr, "CANARY_TOKEN=****") || !strings.Contains(diag.Stderr, "CANARY_FILE_SECRET=****") {
		t.Errorf("echo's stderr tail should show its variables masked:\n%s", diag.Stderr)
	}
	noCanary(t, "echo's stderr tail", diag.Stderr)
	for _, st := range h.Statuses() {
		b, _ := json.Marshal(st)
		noCanary(t, "status of "+st.Name, string(b))
	}
	if crash := state(h, "crash").LastError; !strings.Contains(crash, "CANARY_TOKEN=****") {
		t.Errorf("crash's last error should quote its stderr, masked: %s", crash)
	}

	// A crash during a call: the error quotes the server's stderr.
	_, err := h.NewSession().Call(context.Background(), "mcp_echo_crash", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "CANARY_TOKEN=****") {
		t.Errorf("the crash error should quote the stderr tail, masked: %v", err)
	}
	if err != nil {
		noCanary(t, "call error", err.Error())
	}

	for _, name := range []string{"echo", "crash", "remote"} {
		rep, err := h.Test(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep)
		noCanary(t, "mcp test report of "+name, string(b))
	}
	logs.wait(t, map[string]any{"server": "crash"})
	noCanary(t, "host log", logs.String())
}
