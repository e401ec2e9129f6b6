//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
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

// A server writing notifications of four kinds (list_changed, progress,
// log, resources/updated) in a tight loop is read at the flood limit's
// rate: its status says it is throttled, what it manages to send is bounded
// by the rate, and once it has been over the rate for the grace period it
// is disconnected for flooding and restarted with backoff. The server
// beside it answers throughout. Before, the host read every message as
// fast as the server wrote it — most of a core — and the server's status
// showed nothing.
func TestNotificationFloodIsThrottledThenDisconnected(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"flood": server("-notify-flood"), "steady": server()})
	s := h.NewSession()
	waitFor(t, h, "the flooding server's status to say it is throttled", func() bool {
		return strings.Contains(host.DescribeState(state(h, "flood")), "throttled since")
	})

	// What the server wrote over a window of at least 2 s: the rate's worth,
	// plus what the pipe, the read buffer and the dispatch queue hold.
	limit := supervisor.DefaultFloodLimit
	began := time.Now()
	first, ok := floodSent(t, s)
	last, elapsed := first, time.Duration(0)
	for ok && elapsed < 2*time.Second {
		last, ok = floodSent(t, s)
		elapsed = time.Since(began)
	}
	if ok {
		const buffered = 5000
		if most := int64(limit.Rate*elapsed.Seconds()) + buffered; last-first > most {
			t.Errorf("the server wrote %d notifications in %s; the host should read at most %d (%g/s + buffers)", last-first, elapsed, most, limit.Rate)
		}
		t.Logf("%d notifications written in %s while throttled", last-first, elapsed.Round(time.Millisecond))
	}

	waitFor(t, h, "the flooding server to be disconnected", func() bool {
		return strings.Contains(state(h, "flood").LastError, "disconnected for flooding")
	})
	st := state(h, "flood")
	if want := "more than 1000 notifications and requests per second for 10s"; !strings.Contains(st.LastError, want) {
		t.Errorf("last error %q; want it to name the limit (%q)", st.LastError, want)
	}
	if got := text(t, call(t, s, "mcp_steady_echo", map[string]any{"text": "still here"})); got != "still here" {
		t.Errorf("the server beside the flood answered %q", got)
	}
}

// floodSent calls flood_stats and returns how many notifications the
// server wrote; false when the call failed (the server was disconnected
// meanwhile).
func floodSent(t *testing.T, s *host.Session) (int64, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Call(ctx, "mcp_flood_flood_stats", json.RawMessage(`{}`))
	if err != nil || res.IsError {
		return 0, false
	}
	var stats struct{ Notifications int64 }
	if err := json.Unmarshal([]byte(text(t, res)), &stats); err != nil {
		t.Fatal(err)
	}
	return stats.Notifications, true
}
