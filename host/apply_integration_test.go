//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// reloadable starts a host on mcpCfg whose later configs (apply) share its
// home, so that only what a test changes differs.
func reloadable(t *testing.T, mcpCfg map[string]any) (*host.Host, func(map[string]any) (host.ApplyResult, error)) {
	t.Helper()
	dir := t.TempDir()
	h, err := host.NewFromLoaded(loaded(t, dir, mcpCfg), host.Options{
		ConfigDir: dir, Environ: testEnviron(), PluginDirs: []string{bins.PluginDir()}, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(t.Context())
	t.Cleanup(func() { h.Close() })
	waitFor(t, h, "servers settled", func() bool { return h.WaitSettled(doneContext()) == nil })
	apply := func(next map[string]any) (host.ApplyResult, error) { return h.ApplyLoaded(loaded(t, dir, next)) }
	return h, apply
}

// baseConfig is the config the reload tests start from: discovery on, a
// pinned, b and c deferred.
func baseConfig() map[string]any {
	pinned := server()
	pinned["deferred"] = false
	return map[string]any{
		"enabled":   true,
		"discovery": map[string]any{"enabled": true, "ttl": 5},
		"restart":   map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
		"servers":   map[string]any{"a": pinned, "b": server(), "c": server()},
	}
}

// doneContext is a context that has ended: WaitSettled then reports at
// once whether anything is still connecting.
func doneContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func pid(h *host.Host, name string) int { return state(h, name).ServerPID }

func connected(h *host.Host, names ...string) func() bool {
	return func() bool {
		for _, n := range names {
			if st := state(h, n); st.State != supervisor.StateConnected || st.ServerPID == 0 {
				return false
			}
		}
		return true
	}
}

// Apply restarts only the server whose settings changed, starts the new one
// and stops the removed one; the untouched server keeps its process and a
// session keeps its unlock.
func TestApplyChangesOnlyWhatChanged(t *testing.T) {
	integration(t)
	h, apply := reloadable(t, baseConfig())
	s := h.NewSession()
	call(t, s, "mcp_b_echo", map[string]any{"text": "unlock"}) // a hidden tool called by name is unlocked
	if !slices.Contains(toolNames(t, s), "mcp_b_echo") {
		t.Fatalf("mcp_b_echo not unlocked: %v", toolNames(t, s))
	}
	before := map[string]int{"a": pid(h, "a"), "b": pid(h, "b"), "c": pid(h, "c")}

	next := baseConfig()
	servers := next["servers"].(map[string]any)
	servers["a"].(map[string]any)["args"] = []string{"-name", "a2"}               // connection changed: restart
	servers["b"].(map[string]any)["timeouts"] = map[string]any{"call_seconds": 7} // a limit: no restart
	delete(servers, "c")                                                          // removed
	servers["c2"] = server("-tools", "2")                                         // added
	next["timeouts"] = map[string]any{"call_seconds": 60}
	next["max_inline_text_chars"] = 4096
	res, err := apply(next)
	if err != nil {
		t.Fatal(err)
	}
	want := host.ApplyResult{
		Added: []string{"c2"}, Removed: []string{"c"}, Restarted: []string{"a"}, Unchanged: []string{"b"},
		Settings: []string{"tools.mcp.max_inline_text_chars", "tools.mcp.timeouts"},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
	waitFor(t, h, "a and c2 connected", connected(h, "a", "c2"))
	if got := pid(h, "b"); got != before["b"] {
		t.Errorf("b (only a timeout changed) was restarted: pid %d → %d", before["b"], got)
	}
	if got := pid(h, "a"); got == before["a"] {
		t.Errorf("a (args changed) kept its process %d", got)
	}
	if st, ok := h.Status("c"); ok {
		t.Errorf("removed server c still has a status: %+v", st)
	}
	waitFor(t, h, "c's process gone and its tools removed", func() bool {
		_, listed := h.Registry().Lookup("mcp_c_echo")
		return !alive(before["c"]) && !listed
	})
	if alive(before["a"]) {
		t.Errorf("a's old process %d is still running", before["a"])
	}
	if _, ok := h.Registry().Lookup("mcp_c2_tool_1"); !ok {
		t.Errorf("the added server's tools are missing: %v", toolNames(t, h.NewSession()))
	}
	if !slices.Contains(toolNames(t, s), "mcp_b_echo") {
		t.Errorf("the session lost its unlock of mcp_b_echo across the reload: %v", toolNames(t, s))
	}
	if got := h.Config().MCP.MaxInlineTextChars; got != 4096 {
		t.Errorf("config not replaced: max_inline_text_chars %d", got)
	}
	if !h.LastApply().OK {
		t.Errorf("LastApply = %+v, want OK", h.LastApply())
	}
}

// A config with a global problem is refused whole: the previous one keeps
// running, and LastApply says why with the JSON path.
func TestApplyRefusesInvalidConfig(t *testing.T) {
	integration(t)
	h, apply := reloadable(t, map[string]any{"enabled": true, "servers": map[string]any{"a": server()}})
	was := pid(h, "a")
	bad := map[string]any{
		"enabled":   true,
		"discovery": map[string]any{"enabled": true, "use_bm25": false, "use_regex": false},
		"servers":   map[string]any{"a": server("-name", "other"), "b": server()},
	}
	_, err := apply(bad)
	var invalid *host.InvalidConfigError
	var ve *config.ValidationError
	if !errors.As(err, &invalid) || !errors.As(err, &ve) || ve.Path != "tools.mcp.discovery.use_bm25" {
		t.Fatalf("Apply = %v; want an *InvalidConfigError naming tools.mcp.discovery", err)
	}
	st := h.LastApply()
	if st.OK || len(st.Problems) != 1 || st.Problems[0].Path != "tools.mcp.discovery.use_bm25" || !strings.Contains(st.Error, "both search tools are off") {
		t.Errorf("LastApply = %+v; want the refusal with its path", st)
	}
	if _, ok := h.Status("b"); ok || pid(h, "a") != was || h.Config().MCP.Discovery.Enabled {
		t.Errorf("the refused config was (partly) applied: statuses %+v", h.Statuses())
	}
	// A bad server entry is not a global problem: the rest applies, the
	// entry is invalid, and "enabled": "yes" is reported, not read as off.
	withBad := map[string]any{"enabled": true, "servers": map[string]any{
		"a": server(), "b": map[string]any{"enabled": "yes", "command": bins.Path("testserver")},
	}}
	if _, err := apply(withBad); err != nil {
		t.Fatal(err)
	}
	b, _ := h.Status("b")
	if b.State != supervisor.StateInvalid || !strings.Contains(b.LastError, "tools.mcp.servers.b.enabled") {
		t.Errorf(`"enabled": "yes" gave %+v; want invalid, naming the field`, b)
	}
	if pid(h, "a") != was {
		t.Errorf("a was restarted by an unrelated change")
	}
}

// Discovery switched on and off by a reload applies to existing sessions
// at once; servers are not restarted for it.
func TestApplyDiscoveryToggle(t *testing.T) {
	integration(t)
	h, apply := reloadable(t, map[string]any{"enabled": true, "servers": map[string]any{"a": server()}})
	was := pid(h, "a")
	s := h.NewSession()
	if slices.Contains(toolNames(t, s), "tool_search_tool_bm25") {
		t.Fatal("search tool listed with discovery off")
	}
	on := map[string]any{"enabled": true, "discovery": map[string]any{"enabled": true}, "servers": map[string]any{"a": server()}}
	if _, err := apply(on); err != nil {
		t.Fatal(err)
	}
	names := toolNames(t, s)
	if !slices.Contains(names, "tool_search_tool_bm25") || slices.Contains(names, "mcp_a_echo") {
		t.Errorf("after discovery on, the session lists %v; want the search tool and a's tools hidden", names)
	}
	if out := search(t, s, "tool_search_tool_bm25", "query", "returns text unchanged echo"); !strings.Contains(out, "mcp_a_echo") {
		t.Errorf("search after the reload did not find mcp_a_echo (was the index built?):\n%s", out)
	}
	off := map[string]any{"enabled": true, "servers": map[string]any{"a": server()}}
	if _, err := apply(off); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(t, s); slices.Contains(names, "tool_search_tool_bm25") || !slices.Contains(names, "mcp_a_noop") {
		t.Errorf("after discovery off, the session lists %v", names)
	}
	if pid(h, "a") != was {
		t.Errorf("a was restarted for a discovery change")
	}
	// The integration switched off stops every server.
	if _, err := apply(map[string]any{"enabled": false, "servers": map[string]any{"a": server()}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, "a stopped and its tools gone", func() bool { return h.Registry().Len() == 0 && !alive(was) })
	if st := state(h, "a"); st.State != supervisor.StateDisabled {
		t.Errorf("a with the integration off: %+v", st)
	}
}

// A new call timeout applies to the next call of a server that keeps
// running, and a new inline budget to the next result.
func TestApplyLimitsToNextCall(t *testing.T) {
	integration(t)
	h, apply := reloadable(t, map[string]any{"enabled": true, "servers": map[string]any{"a": server()}})
	was := pid(h, "a")
	short := server()
	short["timeouts"] = map[string]any{"call_seconds": 0.3}
	if _, err := apply(map[string]any{"enabled": true, "max_inline_text_chars": 300, "servers": map[string]any{"a": short}}); err != nil {
		t.Fatal(err)
	}
	s := h.NewSession()
	_, err := s.Call(t.Context(), "mcp_a_sleep", json.RawMessage(`{"seconds": 5}`))
	if err == nil || !strings.Contains(err.Error(), "no result within 300ms") {
		t.Errorf("call after the reload: %v; want the new 300ms timeout", err)
	}
	if got := text(t, call(t, s, "mcp_a_big", map[string]any{"chars": 5000})); !strings.Contains(got, "TRUNCATED") || len(got) > 1000 {
		t.Errorf("a 5000-char result with a budget of 300 came back as %d chars", len(got))
	}
	if pid(h, "a") != was {
		t.Error("a was restarted for a limit change")
	}
}

// The secrets of a config applied later are masked too (and those of the
// config before stay masked).
func TestApplyMasksNewSecrets(t *testing.T) {
	withEnv := func(v string) map[string]any {
		return map[string]any{"enabled": false, "servers": map[string]any{
			"a": map[string]any{"enabled": true, "command": "x", "env": map[string]string{"TOKEN": v}}}}
	}
	dir := t.TempDir()
	h, err := host.NewFromLoaded(loaded(t, dir, withEnv("first-secret-123")), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.ApplyLoaded(loaded(t, dir, withEnv("second-secret-456"))); err != nil {
		t.Fatal(err)
	}
	if got := h.Masker().Mask("first-secret-123 second-secret-456"); got != "**** ****" {
		t.Errorf("Mask = %q; want both secrets masked", got)
	}
}

// A running server whose entry a reload finds invalid keeps running its
// previous settings — same process, its tools answer — and says so in its
// status, with each problem's JSON path; fixing the entry clears it. A
// new server with an invalid entry is invalid, as at start-up. Before, the
// typo stopped the running server ("invalid config").
func TestApplyKeepsRunningServerOnInvalidEntry(t *testing.T) {
	integration(t)
	cfg := map[string]any{"enabled": true, "servers": map[string]any{"a": server("-name", "first")}}
	h, apply := reloadable(t, cfg)
	was := pid(h, "a")

	typo := server("-name", "second")
	typo["enabled"] = "yes"
	bad := map[string]any{"enabled": true, "servers": map[string]any{
		"a": typo, "new": map[string]any{"enabled": "yes", "command": bins.Path("testserver")},
	}}
	res, err := apply(bad)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.KeptPrevious, []string{"a"}) || slices.Contains(res.Removed, "a") {
		t.Errorf("Apply result %+v; want a kept on its previous settings, not removed", res)
	}
	a := state(h, "a")
	want := host.KeptEntryMessage + `tools.mcp.servers.a.enabled: `
	if a.State != supervisor.StateConnected || a.ServerPID != was || !strings.HasPrefix(a.LastError, want) || !strings.HasPrefix(a.ConfigError, want) {
		t.Fatalf("after the typo a is %+v; want connected, pid %d, last error starting %q", a, was, want)
	}
	if d := host.DescribeState(a); !strings.HasPrefix(d, "connected") || !strings.Contains(d, want) {
		t.Errorf("description %q; want connected and the problem", d)
	}
	if got := text(t, call(t, h.NewSession(), "mcp_a_echo", map[string]any{"text": "still"})); got != "still" {
		t.Errorf("a's tool answered %q", got)
	}
	if got := h.Config().MCP.Servers["a"].Args; !slices.Equal(got, []string{"-name", "first"}) {
		t.Errorf("the config shows a's args %v; want the previous ones it runs", got)
	}
	if n, _ := h.Status("new"); n.State != supervisor.StateInvalid || !strings.Contains(n.LastError, "tools.mcp.servers.new.enabled") {
		t.Errorf("a new server with an invalid entry is %+v; want invalid, naming the field", n)
	}

	// Another reload with the typo still in: still kept, still said.
	if _, err := apply(bad); err != nil {
		t.Fatal(err)
	}
	if a := state(h, "a"); a.ServerPID != was || !strings.HasPrefix(a.ConfigError, want) {
		t.Errorf("after a second reload a is %+v; want still kept with the problem", a)
	}

	// Fixed: the new settings apply (a restarts with them), the problem goes.
	fixed := map[string]any{"enabled": true, "servers": map[string]any{"a": server("-name", "second")}}
	if res, err := apply(fixed); err != nil || !slices.Equal(res.Restarted, []string{"a"}) || len(res.KeptPrevious) != 0 {
		t.Fatalf("Apply of the fixed entry = %+v, %v; want a restarted", res, err)
	}
	waitFor(t, h, "a back with its new settings", connected(h, "a"))
	if a := state(h, "a"); a.ConfigError != "" || a.ServerName != "second" {
		t.Errorf("after the fix a is %+v; want no config error, the new name", a)
	}
}

// Applying a config of thousands of servers hands the memory its loading
// left behind back to the operating system (with
// ReturnMemoryAfterLargeResults, as the plughost binary sets): a reload of
// 40,000 servers kept serve at ≈ 550 MB of RSS for ≈ 90 MB of live heap.
func TestApplyLargeConfigReturnsMemory(t *testing.T) {
	dir := t.TempDir()
	small := map[string]any{"enabled": true, "servers": map[string]any{"a": map[string]any{"enabled": false, "command": "true"}}}
	h, err := host.NewFromLoaded(loaded(t, dir, small), host.Options{ConfigDir: dir, ReturnMemoryAfterLargeResults: true})
	if err != nil {
		t.Fatal(err)
	}
	freed := make(chan struct{}, 1)
	host.SetFreeMemoryHook(h, func() { freed <- struct{}{} })
	h.Start(t.Context())
	t.Cleanup(func() { h.Close() })
	if _, err := h.ApplyLoaded(loaded(t, dir, small)); err != nil {
		t.Fatal(err)
	}
	if n := host.MemoryReturnsAsked(h); n != 0 {
		t.Errorf("a config of one server asked for %d memory returns", n)
	}
	servers := map[string]any{}
	for i := range 1000 {
		servers[fmt.Sprintf("s%04d", i)] = map[string]any{"enabled": false, "command": "true"}
	}
	if _, err := h.ApplyLoaded(loaded(t, dir, map[string]any{"enabled": true, "servers": servers})); err != nil {
		t.Fatal(err)
	}
	select {
	case <-freed:
	case <-time.After(30 * time.Second):
		t.Fatal("applying 1,000 servers returned no memory")
	}
}

// A server kept on its previous entry keeps all of it, discovery included:
// pinned visible before, it stays visible though the invalid new entry
// says "deferred": true.
func TestApplyKeptServerKeepsItsDiscoverySettings(t *testing.T) {
	integration(t)
	h, apply := reloadable(t, baseConfig()) // a pinned, b and c deferred
	typo := server()
	typo["enabled"], typo["deferred"] = "yes", true
	next := baseConfig()
	next["servers"].(map[string]any)["a"] = typo
	if res, err := apply(next); err != nil || !slices.Equal(res.KeptPrevious, []string{"a"}) {
		t.Fatalf("Apply = %+v, %v; want a kept", res, err)
	}
	if names := toolNames(t, h.NewSession()); !slices.Contains(names, "mcp_a_echo") || slices.Contains(names, "mcp_b_echo") {
		t.Errorf("tools seen %v; want a's (pinned, as it runs) and not b's (deferred)", names)
	}
}
