package host

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plughost/plughost/host/supervisor"
)

// StateLog turns servers' statuses into the lines of a state log (serve's
// stderr): one line per server whose state changed since the last call,
// "<name> <DescribeState>" — or, when more than Max changed at once (a
// reload of thousands of servers), one line per new state with how many
// servers reached it and the first names. It is used by one goroutine.
type StateLog struct {
	// Max is how many changes are listed one per line (0: 20).
	Max  int
	last map[string]supervisor.State
}

// Lines returns the lines for statuses (every configured server's, as
// Statuses gives them).
func (l *StateLog) Lines(statuses []supervisor.Status) []string {
	if l.last == nil {
		l.last = map[string]supervisor.State{}
	}
	var changed []supervisor.Status
	for _, st := range statuses {
		if l.last[st.Name] != st.State {
			l.last[st.Name] = st.State
			changed = append(changed, st)
		}
	}
	if len(l.last) > len(statuses) {
		l.forgetRemoved(statuses)
	}
	limit := l.Max
	if limit <= 0 {
		limit = 20
	}
	if len(changed) <= limit {
		out := make([]string, len(changed))
		for i, st := range changed {
			out[i] = fmt.Sprintf("%-20s %s", st.Name, DescribeState(st))
		}
		return out
	}
	return summarizeStates(changed)
}

// forgetRemoved drops the servers no longer configured.
func (l *StateLog) forgetRemoved(statuses []supervisor.Status) {
	now := make(map[string]bool, len(statuses))
	for _, st := range statuses {
		now[st.Name] = true
	}
	maps.DeleteFunc(l.last, func(name string, _ supervisor.State) bool { return !now[name] })
}

// summarizeStates is one line per state: "<n> servers <state> (a, b, c …)".
func summarizeStates(changed []supervisor.Status) []string {
	byState := map[supervisor.State][]string{}
	for _, st := range changed {
		byState[st.State] = append(byState[st.State], st.Name)
	}
	var out []string
	for _, state := range slices.Sorted(maps.Keys(byState)) {
		names := byState[state]
		shown := names[:min(len(names), 3)]
		more := ""
		if len(names) > len(shown) {
			more = " …"
		}
		out = append(out, fmt.Sprintf("%d servers %s (%s%s)", len(names), state, strings.Join(shown, ", "), more))
	}
	return out
}
