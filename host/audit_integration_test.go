//go:build unix

package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/audit"
)

// The audit log's name for the administrator's sessions is one no
// configured client may take, so a record's client is never ambiguous.
func TestAuditAdminNameIsReserved(t *testing.T) {
	if config.ReservedClientName != audit.AdminClient {
		t.Errorf("config reserves client name %q, the audit log writes %q for the administrator", config.ReservedClientName, audit.AdminClient)
	}
	if config.CheckClientName(audit.AdminClient) == "" {
		t.Errorf("a client may be named %q, the audit log's name for the administrator", audit.AdminClient)
	}
}

// auditSecret is configured in the server's env: masked wherever it shows.
const auditSecret = "canary-audit-4f2a"

// argSecret is passed in arguments only: never written at all.
const argSecret = "canary-arg-81d3"

// auditLines returns every line of every file in dir, parsed; a line that
// does not parse fails the test.
func auditLines(t *testing.T, dir string) ([]audit.Record, string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var recs []audit.Record
	var all strings.Builder
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(raw)
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			var r audit.Record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: line %q: %v", n, sc.Text(), err)
			}
			recs = append(recs, r)
		}
	}
	return recs, all.String()
}

// Every call through a session — tools/call (a server's tool, a search
// tool, an unknown name), resources/read, prompts/get — and every server
// request passed to its client (sampling, elicitation, roots) is exactly
// one line, naming the session's client; secrets configured are masked,
// and arguments never written. The server is isolated per session: only a
// session's own connection asks its client for roots (a shared one gets
// the configured roots from plughost, which is not a request to a client).
func TestAuditOneLinePerCall(t *testing.T) {
	integration(t)
	dir := filepath.Join(t.TempDir(), "audit")
	srv := server("-faithful", "-name", "f")
	srv["env"] = map[string]any{"API_TOKEN": auditSecret}
	srv["isolation"] = "session"
	_, digest := host.NewClientToken()
	h := startHost(t, map[string]any{"f": srv}, func(m map[string]any) {
		m["audit"] = map[string]any{"enabled": true, "dir": dir, "max_file_mb": 1, "max_files": 2}
		m["gateway"] = map[string]any{"clients": map[string]any{"alice": map[string]any{"token_sha256": digest, "servers": []string{"f"}}}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := h.CreateSession(ctx, host.SessionRecord{ClientName: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	answer := func(res string) host.RequestHandler {
		return func(context.Context, host.ServerRequest) (json.RawMessage, error) { return json.RawMessage(res), nil }
	}
	s.SetHandlers(host.ClientHandlers{
		Sampling:    answer(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`),
		Elicitation: answer(`{"action":"decline"}`),
		Roots:       answer(`{"roots":[]}`),
	})
	for _, c := range []struct{ tool, args string }{
		{"mcp_f_echo", `{"text":"` + argSecret + `"}`},
		{"mcp_f_sample", `{"prompt":"` + argSecret + `"}`},
		{"mcp_f_elicit", `{"message":"name?"}`},
		{"mcp_f_roots", `{}`},
	} {
		if _, err := s.Call(ctx, c.tool, json.RawMessage(c.args)); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
	}
	if _, err := s.Call(ctx, "mcp_f_nope", nil); err == nil {
		t.Fatal("an unknown tool was called")
	}
	for _, r := range []struct{ method, params string }{
		{"resources/read", `{"uri":"test://static"}`},
		{"resources/read", `{"uri":"test://` + auditSecret + `"}`},
		{"prompts/get", `{"name":"mcp_f_greet","arguments":{"who":"` + argSecret + `"}}`},
	} {
		_, _ = s.Request(ctx, r.method, json.RawMessage(r.params), host.CallOptions{})
	}
	act := h.Activity(audit.Filter{})
	h.Close() // writes out what is queued

	recs, file := auditLines(t, dir)
	for _, secret := range []string{auditSecret, argSecret} {
		if strings.Contains(file, secret) {
			t.Errorf("the audit file shows %q:\n%s", secret, file)
		}
	}
	type line struct{ Client, Server, Method, Name string }
	var got []line
	for _, r := range recs {
		if r.Session != s.ID() {
			t.Errorf("record of session %q, want %q: %+v", r.Session, s.ID(), r)
		}
		got = append(got, line{r.Client, r.Server, r.Method, r.Name + " " + string(r.Outcome)})
	}
	// A relayed request ends before the call that caused it.
	want := []line{
		{"alice", "f", "tools/call", "echo ok"},
		{"alice", "f", "sampling/createMessage", " ok"},
		{"alice", "f", "tools/call", "sample ok"},
		{"alice", "f", "elicitation/create", " declined"},
		{"alice", "f", "tools/call", "elicit ok"},
		{"alice", "f", "roots/list", " ok"},
		{"alice", "f", "tools/call", "roots ok"},
		{"alice", "plughost", "tools/call", "mcp_f_nope unknown"},
		{"alice", "f", "resources/read", "test://static ok"},
		{"alice", "f", "resources/read", "test://**** rpc_error"}, // the one resource server gets it
		{"alice", "f", "prompts/get", "greet ok"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s\nfile:\n%s", diff, file)
	}
	if len(act.Records) != len(want) || act.Records[0].Method != "prompts/get" {
		t.Errorf("Activity should list the same records newest first: %+v", act.Records)
	}
	if r := recs[0]; r.BytesIn == 0 || r.BytesOut == 0 || len(r.ArgsSHA256) != 16 || r.DurationMS <= 0 || r.Time.IsZero() {
		t.Errorf("echo's record lacks sizes, hash, duration or time: %+v", r)
	}
}
