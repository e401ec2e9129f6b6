package host

import (
	"context"
	"slices"

	"github.com/plughost/plughost/pluginapi"
)

// SetFreeMemoryHook makes h run f where it would return memory to the
// operating system (runtime.GC, debug.FreeOSMemory). Call it before Start.
func SetFreeMemoryHook(h *Host, f func()) { h.freeOS = f }

// MemoryReturnsAsked is how many times h asked for a memory return after a
// large call.
func MemoryReturnsAsked(h *Host) int64 { return h.returns.Load() }

// SetDiagnosticsHook makes h ask f, instead of the servers' plugins, for
// the diagnostics its server rows carry. Call it before ServerRows.
func SetDiagnosticsHook(h *Host, f func(ctx context.Context, name string) (pluginapi.Diagnostics, bool)) {
	h.diagnose = f
}

// ServerState names what h keeps by the name of server beyond its config:
// "applied" (its log level), "catalog", "elicitation", "flight",
// "level turn", "subscription" and "task" of the relay, and "last done"
// (the server a new one of that name waits for). Sorted, each once.
func ServerState(h *Host, server string) []string {
	h.applyMu.Lock()
	_, done := h.lastDone[server]
	h.applyMu.Unlock()
	r := h.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	_, applied := r.applied[server]
	_, catalog := r.catalogs[server]
	_, turn := r.levelTurns[server]
	has := map[string]bool{"last done": done, "applied": applied, "catalog": catalog, "level turn": turn,
		"flight": len(r.flights[server]) > 0}
	for k := range r.subs {
		has["subscription"] = has["subscription"] || k.server == server
	}
	for k := range r.tasks {
		has["task"] = has["task"] || k.server == server
	}
	for k := range r.elicits {
		has["elicitation"] = has["elicitation"] || k.server == server
	}
	var out []string
	for what, ok := range has {
		if ok {
			out = append(out, what)
		}
	}
	slices.Sort(out)
	return out
}
