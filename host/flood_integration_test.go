package host_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/syncbuf"
)

// floodNotifications is how many list_changed notifications the flood test
// waits for: the period the test observes is defined by this count, not by
// a clock.
const floodNotifications = 2000

// A server announcing tools/list_changed every millisecond gets a bounded
// number of re-lists and log lines: the host coalesces the notifications,
// paces the re-lists of a server that keeps changing, and collapses
// repeated log lines. Before, each notification cost one tools/list, one
// re-index and one log line.
func TestListChangedFlood(t *testing.T) {
	integration(t)
	var out syncbuf.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Info})
	h := startHostOpts(t, host.Options{Logger: logger}, map[string]any{"flood": server("-flood", "1ms")})
	s := h.NewSession()
	var stats struct{ Notifications, Lists int64 }
	for stats.Notifications < floodNotifications {
		if err := json.Unmarshal([]byte(text(t, call(t, s, "mcp_flood_flood_stats", map[string]any{}))), &stats); err != nil {
			t.Fatal(err)
		}
	}
	lines := out.Lines()
	t.Logf("%d notifications: %d tools/list, %d log lines", stats.Notifications, stats.Lists, len(lines))
	// Paced re-lists: 1 at connect, then at most one per gap (200 ms
	// doubling to 5 s). 2,000 notifications take at least 2 s, and on a slow
	// machine longer, but never 50× longer than the re-lists they allow.
	if limit := 1 + stats.Notifications/50; stats.Lists > limit {
		t.Errorf("%d tools/list for %d notifications, want at most %d", stats.Lists, stats.Notifications, limit)
	}
	if limit := 10 + int(stats.Notifications/50); len(lines) > limit {
		t.Errorf("%d log lines for %d notifications, want at most %d:\n%s", len(lines), stats.Notifications, limit, strings.Join(lines[:min(len(lines), 40)], "\n"))
	}
	if n := len(h.ServerTools("flood")); n == 0 {
		t.Errorf("the flooding server lost its tools")
	}
}
