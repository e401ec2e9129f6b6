//go:build unix

package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

func statuses(n int, state supervisor.State) []supervisor.Status {
	out := make([]supervisor.Status, n)
	for i := range out {
		out[i] = supervisor.Status{Name: fmt.Sprintf("s%05d", i), State: state}
	}
	return out
}

// A few changes are one line each; many at once (a reload of thousands of
// servers) are one line per state. Before, serve printed a line per
// server: 40,081 lines for a reload of 40,000.
func TestStateLogSummarisesManyChanges(t *testing.T) {
	var log host.StateLog
	few := statuses(3, supervisor.StateDisabled)
	if diff := cmp.Diff([]string{
		"s00000               disabled", "s00001               disabled", "s00002               disabled",
	}, log.Lines(few)); diff != "" {
		t.Errorf("three new servers (-want +got):\n%s", diff)
	}
	if lines := log.Lines(few); len(lines) != 0 {
		t.Errorf("nothing changed, yet %q", lines)
	}
	many := statuses(40_000, supervisor.StateDisabled)
	for i := range 100 {
		many[i].State = supervisor.StateConnecting
	}
	want := []string{"100 servers connecting (s00000, s00001, s00002 …)", "39900 servers disabled (s00100, s00101, s00102 …)"}
	if diff := cmp.Diff(want, log.Lines(many)); diff != "" {
		t.Errorf("40,000 servers (-want +got):\n%s", diff)
	}
	many[7].State = supervisor.StateError
	many[7].LastError = "boom"
	if got := log.Lines(many); len(got) != 1 || !strings.HasPrefix(got[0], "s00007") || !strings.Contains(got[0], "error: boom") {
		t.Errorf("one change among 40,000: %q", got)
	}
	// Removed servers are forgotten: one added again is new.
	if lines := log.Lines(few); len(lines) != 3 {
		t.Errorf("after the reload back to 3 servers: %q; want their 3 lines (s00000-2 changed state)", lines)
	}
}
