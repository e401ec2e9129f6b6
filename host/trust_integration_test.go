//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/host/trust"
)

// weatherPoisoned reports whether a definition (canonical JSON) carries the
// rug pull's poisoned description.
func weatherPoisoned(def json.RawMessage) bool { return strings.Contains(string(def), "id_rsa") }

// quarantinedTool returns server's quarantined tool, if it is.
func quarantinedTool(h *host.Host, server, tool string) (host.QuarantinedTool, bool) {
	for _, q := range h.Quarantined(server) {
		if q.Tool == tool {
			return q, true
		}
	}
	return host.QuarantinedTool{}, false
}

// refusal calls name and returns the error of a call that could not be
// made.
func refusal(t *testing.T, s *host.Session, name string, args any) error {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Call(ctx, name, raw)
	return err
}

// checkQuarantined checks, through the Go API, that tool (agent-facing
// name) of server is quarantined everywhere a client could meet it: not
// listed, not searchable, a call refused naming how to approve it.
func checkQuarantined(t *testing.T, h *host.Host, s *host.Session, server, tool, name string) {
	t.Helper()
	if slices.Contains(toolNames(t, s), name) {
		t.Errorf("%s is listed while quarantined", name)
	}
	res, err := h.Search("weather forecast city", 10, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Tool.Name == name {
			t.Errorf("%s is found by a search while quarantined", name)
		}
	}
	err = refusal(t, s, name, map[string]any{"city": "Oslo"})
	var held *host.QuarantinedToolError
	if !errors.As(err, &held) || held.Server != server || held.Tool != tool {
		t.Fatalf("call of quarantined %s: %v, want a *host.QuarantinedToolError", name, err)
	}
	for _, want := range []string{"quarantined pending approval", "plughost mcp trust " + server + " --tool " + tool, "/api/servers/" + server + "/approve"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
}

// A server changes a tool's description after its first list and says so
// with list_changed (a rug pull): the tool is quarantined — not listed,
// not searchable, a call refused with how to approve — while the server's
// other tools keep working; the diff shows the approved and the new
// description; once approved, the new definition is pinned and usable.
func TestRugPullIsQuarantinedUntilApproved(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"w": server("-rug-pull", "300ms")})
	s := h.NewSession()
	// echo is called without a pause from before the change until weather
	// is approved: not one call may fail.
	stop := make(chan struct{})
	var echoes, failed atomic.Int64
	var lastErr atomic.Value
	done := make(chan struct{})
	go func() {
		defer close(done)
		echo := h.NewSession()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := echo.Call(context.Background(), "mcp_w_echo", json.RawMessage(`{"text":"x"}`))
			echoes.Add(1)
			if err != nil || res.IsError {
				failed.Add(1)
				lastErr.Store(fmt.Sprint(err, res))
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
		if failed.Load() > 0 || echoes.Load() < 10 {
			t.Errorf("%d of %d calls of the untouched echo failed (last: %v); want none of at least 10", failed.Load(), echoes.Load(), lastErr.Load())
		}
	}()
	waitFor(t, h, "weather to be quarantined", func() bool {
		_, ok := quarantinedTool(h, "w", "weather")
		return ok
	})
	q, _ := quarantinedTool(h, "w", "weather")
	if q.Name != "mcp_w_weather" || !slices.Equal(q.Reasons, []string{quarantine.ReasonChanged}) {
		t.Errorf("quarantined weather: name %q, reasons %v; want mcp_w_weather, [changed]", q.Name, q.Reasons)
	}
	if q.Pinned == nil || weatherPoisoned(q.Pinned.Definition) || !weatherPoisoned(q.Current) || q.Pinned.By != "first list" {
		t.Errorf("the diff does not hold the approved (first) and the current (poisoned) definition: pinned %+v, current %s", q.Pinned, q.Current)
	}
	if len(q.Findings) == 0 || len(h.Findings("w")["weather"]) == 0 {
		t.Errorf("the scan found nothing in the poisoned description: %+v", q.Findings)
	}
	if rows := h.ServerListings(); len(rows) != 1 || rows[0].Waiting != 1 {
		t.Errorf("listing counts %+v, want 1 waiting", rows)
	}
	checkQuarantined(t, h, s, "w", "weather", "mcp_w_weather")
	if got := text(t, call(t, s, "mcp_w_echo", map[string]any{"text": "during"})); got != "during" {
		t.Fatalf("an untouched tool stopped working: echo answered %q", got)
	}

	if _, err := h.Approve(t.Context(), "w", []string{"echo"}, "test"); err == nil || !strings.Contains(err.Error(), "not waiting for approval; waiting: weather") {
		t.Errorf("approving a tool that waits for nothing: %v", err)
	}
	approved, err := h.Approve(t.Context(), "w", []string{"weather"}, "test")
	if err != nil || !slices.Equal(approved, []string{"weather"}) {
		t.Fatalf("Approve: %v %v", approved, err)
	}
	if !slices.Contains(toolNames(t, s), "mcp_w_weather") {
		t.Error("approved weather is not listed")
	}
	if got := text(t, call(t, s, "mcp_w_weather", map[string]any{"city": "Oslo"})); got != "sunny in Oslo" {
		t.Errorf("approved weather answered %q", got)
	}
	for _, tl := range h.ServerTools("w") {
		if tl.Name == "mcp_w_weather" && !strings.Contains(tl.Description, "id_rsa") {
			t.Errorf("the listed definition is not the approved one: %q", tl.Description)
		}
	}
	if rows := h.ServerListings(); rows[0].Waiting != 0 || rows[0].Flagged != 1 {
		t.Errorf("after approval: %d waiting, %d flagged; want 0 and 1", rows[0].Waiting, rows[0].Flagged)
	}
	if _, err := h.Approve(t.Context(), "w", nil, "test"); err == nil {
		t.Error("approving all of a server that has nothing waiting succeeded")
	}
}

// hostAt starts a host on servers whose home (so pins file) is home.
func hostAt(t *testing.T, home string, servers map[string]any, mutate ...func(map[string]any)) *host.Host {
	t.Helper()
	mcpCfg := map[string]any{"enabled": true, "servers": servers}
	for _, f := range mutate {
		f(mcpCfg)
	}
	opts := host.Options{ConfigDir: home, Environ: testEnviron(), PluginDirs: []string{bins.PluginDir()}, Version: "test"}
	h, err := host.NewFromLoaded(loaded(t, home, mcpCfg), opts)
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		h.Close()
		t.Fatalf("servers did not settle: %v", err)
	}
	return h
}

// A definition changed across a restart (no list_changed: the server just
// serves another one when it starts again) is quarantined by the next
// host, which reads the pins the first one wrote; an approval is kept in
// the pins file (0600) for the host after.
func TestChangedAfterRestartIsQuarantined(t *testing.T) {
	integration(t)
	home := t.TempDir()
	marker := filepath.Join(home, "started")
	servers := map[string]any{"r": server("-rug-pull-after", marker)}

	h1 := hostAt(t, home, servers)
	if !slices.Contains(toolNames(t, h1.NewSession()), "mcp_r_weather") {
		t.Fatal("weather is not listed at the first start")
	}
	h1.Close()
	pins := filepath.Join(home, ".plughost", "pins.json")
	if fi, err := os.Stat(pins); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pins file %s: %v, mode %v; want 0600", pins, err, fi)
	}

	h2 := hostAt(t, home, servers)
	s := h2.NewSession()
	checkQuarantined(t, h2, s, "r", "weather", "mcp_r_weather")
	if got := text(t, call(t, s, "mcp_r_echo", map[string]any{"text": "ok"})); got != "ok" {
		t.Errorf("echo beside a quarantined tool: %q", got)
	}
	if _, err := h2.Approve(t.Context(), "r", nil, "test"); err != nil {
		t.Fatal(err)
	}
	h2.Close()

	h3 := hostAt(t, home, servers)
	defer h3.Close()
	if got := h3.Quarantined("r"); len(got) != 0 {
		t.Errorf("an approval did not survive a restart: %+v", got)
	}
	if got := text(t, call(t, h3.NewSession(), "mcp_r_weather", map[string]any{"city": "Rome"})); got != "sunny in Rome" {
		t.Errorf("weather after the approval and a restart: %q", got)
	}
	store, err := trust.OpenFile(pins)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := store.Load(t.Context(), "r")
	if err != nil || !ok || rec.Tools["weather"].By != "test" || !weatherPoisoned(rec.Tools["weather"].Definition) {
		t.Errorf("pins of r: %+v %v %v; want weather approved by test", rec, ok, err)
	}
}

// trust "approve" holds every tool of a new server until approved; trust
// "off" passes a changed definition; trust_scan "quarantine" holds a
// flagged tool from the first list on.
func TestTrustModes(t *testing.T) {
	integration(t)
	poisoned := filepath.Join(t.TempDir(), "started") // there already: weather is poisoned from the first list on
	if err := os.WriteFile(poisoned, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHost(t, map[string]any{
		"ask":  withKeys(server(), map[string]any{"trust": "approve"}),
		"off":  withKeys(server("-rug-pull", "100ms"), map[string]any{"trust": "off"}),
		"scan": withKeys(server("-rug-pull-after", poisoned), map[string]any{"trust_scan": "quarantine"}),
	})
	s := h.NewSession()
	names := toolNames(t, s)
	if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp_ask_") }) {
		t.Errorf("tools of an unapproved server are listed: %v", names)
	}
	for _, q := range h.Quarantined("ask") {
		if !slices.Equal(q.Reasons, []string{quarantine.ReasonServerNotApproved}) || q.Pinned != nil {
			t.Errorf("%s: reasons %v, pinned %v", q.Tool, q.Reasons, q.Pinned)
		}
	}
	err := refusal(t, s, "mcp_ask_echo", map[string]any{"text": "x"})
	if !strings.Contains(fmt1(err), "has not been approved yet") {
		t.Errorf("call of an unapproved server's tool: %v", err)
	}
	if _, err := h.Approve(t.Context(), "ask", []string{"echo"}, "test"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, call(t, s, "mcp_ask_echo", map[string]any{"text": "x"})); got != "x" {
		t.Errorf("approved echo: %q", got)
	}
	if q, ok := quarantinedTool(h, "ask", "noop"); !ok || !slices.Equal(q.Reasons, []string{quarantine.ReasonNew}) {
		t.Errorf("after approving one tool the others are %+v; want reason new", q)
	}

	waitFor(t, h, "off's weather to change", func() bool {
		for _, tl := range h.ServerTools("off") {
			if tl.ServerTool == "weather" && strings.Contains(tl.Description, "id_rsa") {
				return true
			}
		}
		return false
	})
	if got := h.Quarantined("off"); len(got) != 0 {
		t.Errorf("trust off quarantined %+v", got)
	}

	q, ok := quarantinedTool(h, "scan", "weather")
	if !ok || !slices.Equal(q.Reasons, []string{quarantine.ReasonNew, quarantine.ReasonFlagged}) || len(q.Findings) == 0 {
		t.Errorf("a flagged tool of a new server with trust_scan quarantine: %+v, %v; want held as new and flagged, with findings", q, ok)
	}
	if got := h.Quarantined("scan"); len(got) != 1 {
		t.Errorf("scan holds %d tools, want only weather: %+v", len(got), got)
	}
	if got := text(t, call(t, s, "mcp_scan_echo", map[string]any{"text": "y"})); got != "y" {
		t.Errorf("a clean tool beside a flagged one: %q", got)
	}
	if _, err := h.Approve(t.Context(), "scan", []string{"weather"}, "test"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, call(t, s, "mcp_scan_weather", map[string]any{"city": "Lima"})); got != "sunny in Lima" {
		t.Errorf("an approved flagged tool: %q", got)
	}
}

// withKeys returns entry with keys added.
func withKeys(entry, keys map[string]any) map[string]any {
	for k, v := range keys {
		entry[k] = v
	}
	return entry
}

func fmt1(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
