//go:build windows

package pluginapi

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// WatchParent calls gone once, and returns, when the process that started
// this one exits, checking every interval until ctx ends. Windows does not
// re-parent orphans (the parent id stays), so a handle to the parent opened
// now is waited on instead; it also keeps the id from being reused. It does
// nothing when the parent cannot be opened.
func WatchParent(ctx context.Context, interval time.Duration, gone func()) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(os.Getppid()))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ev, err := windows.WaitForSingleObject(h, 0); err == nil && ev == windows.WAIT_OBJECT_0 {
			gone()
			return
		}
	}
}
