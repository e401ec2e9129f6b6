//go:build unix

package host

import (
	"context"
	"encoding/json"
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
// what its router keeps (routing.Router.Kept) and "last done" (the server
// a new one of that name waits for). Sorted, each once.
func ServerState(h *Host, server string) []string {
	h.applyMu.Lock()
	_, done := h.lastDone[server]
	h.applyMu.Unlock()
	out := h.router.Kept(server)
	if done {
		out = append(out, "last done")
	}
	slices.Sort(out)
	return out
}

// TaskPage is the tasks/list answer of size tasks at most holding those
// of all after cursor ("" for the first page).
func TaskPage(all TaskList, cursor string, size int) (json.RawMessage, error) {
	var after *taskCursor
	if cursor != "" {
		c, err := parseTaskCursor(cursor)
		if err != nil {
			return nil, err
		}
		after = &c
	}
	return taskPage(all, after, size), nil
}
