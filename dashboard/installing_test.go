package dashboard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// A server started with a package runner says "Installing" on its first
// start (a stand-in npx that takes 4 s, as a download would), not an
// initialize timeout, and then connects.
func TestDashboardInstallingFirstStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	npx := filepath.Join(dir, "npx")
	if err := os.WriteFile(npx, []byte(fmt.Sprintf("#!/bin/sh\nsleep 4\nexec %q \"$@\"\n", bins.Path("testserver"))), 0o755); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"pkg": map[string]any{"enabled": true, "command": npx, "args": []string{},
		"timeouts": map[string]any{"initialize_seconds": 1}}})
	b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the installing badge", `[...document.querySelectorAll('[data-name="pkg"] .badge')].some((e) => /Installing · first start of a npx package/.test(e.textContent))`)
	b.waitJS(t, "connected after the download", `[...document.querySelectorAll('[data-name="pkg"] .badge')].some((e) => /Connected/.test(e.textContent))`)
}
