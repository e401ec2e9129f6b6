//go:build unix

package pluginapi

import (
	"context"
	"os"
	"time"
)

// WatchParent calls gone once, and returns, when the process's parent
// changes — the parent died and the process was re-parented (to init or a
// subreaper) — checking every interval until ctx ends. It does nothing when
// the parent is already init (pid 1): there is then no parent to lose.
// Polling getppid is used rather than Linux's parent-death signal, which is
// tied to the thread that created the process, not to the process.
func WatchParent(ctx context.Context, interval time.Duration, gone func()) {
	parent := os.Getppid()
	if parent <= 1 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if os.Getppid() != parent {
			gone()
			return
		}
	}
}
