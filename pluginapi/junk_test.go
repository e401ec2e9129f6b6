package pluginapi

import (
	"strings"
	"testing"
	"time"
)

func TestJunkGuard(t *testing.T) {
	now := time.Unix(1000, 0)
	t.Run("banner then message", func(t *testing.T) {
		var g JunkGuard
		dl, err := g.Junk([]byte("Server starting on stdio..."), now)
		if err != nil || !dl.Equal(now.Add(JunkGrace)) || !g.Armed() {
			t.Fatalf("first junk line: deadline %v, err %v", dl, err)
		}
		if dl, err := g.Junk([]byte("second banner line"), now); err != nil || !dl.IsZero() {
			t.Fatalf("second junk line: deadline %v, err %v; want no new deadline", dl, err)
		}
		if !g.Message() || g.Armed() {
			t.Fatal("a message must disarm the deadline")
		}
		if dl, err := g.Junk([]byte("log line after the first message"), now); err != nil || !dl.IsZero() {
			t.Fatalf("junk after a message: deadline %v, err %v; want it skipped", dl, err)
		}
	})
	t.Run("no message follows", func(t *testing.T) {
		var g JunkGuard
		g.Junk([]byte("garbage line 1"), now)
		err := g.Expired()
		if KindOf(err) != KindBadOutput || !strings.Contains(err.Error(), `"garbage line 1"`) || !strings.Contains(err.Error(), "within 10s") {
			t.Errorf("expired: %v", err)
		}
	})
	t.Run("more than a banner", func(t *testing.T) {
		var g JunkGuard
		var err error
		for i := 0; i <= junkMaxLines && err == nil; i++ {
			_, err = g.Junk([]byte("line"), now)
		}
		if KindOf(err) != KindBadOutput {
			t.Errorf("after %d junk lines: %v; want KindBadOutput", junkMaxLines+1, err)
		}
	})
}
