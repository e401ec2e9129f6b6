package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testwait"
)

// TestScreenshots regenerates docs/screenshots/*.png (each tab at 1280 and
// 390 px wide) when PLUGHOST_SCREENSHOTS=1:
//
//	PLUGHOST_SCREENSHOTS=1 go test ./dashboard/ -run TestScreenshots
func TestScreenshots(t *testing.T) {
	out := screenshotDir(t)
	servers, calls := demoServers(t, t.TempDir())
	s := startServe(t, servers)
	exerciseDemo(t, s, servers, calls)
	for _, w := range []struct {
		name          string
		width, height int
	}{{"1280", 1280, 860}, {"390", 390, 844}} {
		b := newBrowser(t, w.width, w.height)
		b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
		b.waitJS(t, "servers listed", `document.querySelectorAll('.server-card').length >= 3`)
		b.waitJS(t, "all connected or failed", `![...document.querySelectorAll('.server-card')].some((c) => c.dataset.state === 'connecting')`)
		b.run(t, "open the first server", chromedp.Click(chromedp.CSS(`.server-card[data-name="toolbox"] .card-toggle`)))
		b.waitJS(t, "tools shown", `document.querySelectorAll('.server-card[data-name="toolbox"] .tool').length > 0`)
		b.run(t, "search", chromedp.SendKeys(chromedp.CSS(`.search-form input[type="search"]`), "list files in a directory"),
			chromedp.Click(chromedp.CSS(`.search-form button[type="submit"]`)))
		b.waitJS(t, "search results", `document.querySelectorAll('.result-list li').length > 0`)
		shoot(t, b, filepath.Join(out, "servers-"+w.name+".png"))
		b.run(t, "open the add form", chromedp.Click(chromedp.CSS(`#add-server`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog [data-path="command"] input`)))
		setField(t, b, `dialog [data-path="name"] input`, "github")
		setField(t, b, `dialog [data-path="command"] input`, "npx")
		setField(t, b, `dialog [data-path="args"] textarea`, "-y\n@modelcontextprotocol/server-github")
		b.run(t, "add a variable", chromedp.Click(chromedp.CSS(`dialog fieldset.kv button.small`)))
		setField(t, b, `dialog .kv-key`, "GITHUB_PERSONAL_ACCESS_TOKEN")
		setField(t, b, `dialog .kv-value`, "ghp_example")
		setField(t, b, `dialog [data-path="timeouts.call_seconds"] input`, "-5")
		b.run(t, "submit", chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
		b.waitJS(t, "the problem beside the call timeout", `document.querySelector('dialog [data-path="timeouts.call_seconds"] .field-error')?.textContent.length > 0`)
		shootViewport(t, b, filepath.Join(out, "server-form-"+w.name+".png"))
		b.run(t, "close the form", chromedp.Click(chromedp.CSS(`dialog .dialog-head button`)))
		b.run(t, "open the catalog", chromedp.Click(chromedp.CSS(`#tab-catalog`)))
		b.waitJS(t, "presets shown", `document.querySelectorAll('.preset').length > 0`)
		shoot(t, b, filepath.Join(out, "catalog-"+w.name+".png"))
		b.run(t, "open the settings", chromedp.Click(chromedp.CSS(`#tab-settings`)))
		b.waitJS(t, "settings shown", `document.querySelector('.settings-form') !== null && document.querySelector('.cost-table') !== null`)
		shoot(t, b, filepath.Join(out, "settings-"+w.name+".png"))
		b.run(t, "open inspect", chromedp.Click(chromedp.CSS(`#tab-inspect`)))
		b.waitJS(t, "toolbox in the picker", `[...document.querySelectorAll('#inspect-server option')].some((o) => o.value === 'toolbox')`)
		eval[bool](t, b, `(() => { const p = document.getElementById('inspect-server'); p.value = 'toolbox';
			p.dispatchEvent(new Event('change')); return true; })()`)
		b.waitJS(t, "toolbox's tools", `document.querySelectorAll('.inspect-section .inspect-item').length > 0`)
		b.run(t, "open the first tool", chromedp.Click(chromedp.CSS(`.inspect-section .inspect-item > summary`)))
		shoot(t, b, filepath.Join(out, "inspect-"+w.name+".png"))
		b.run(t, "open activity", chromedp.Click(chromedp.CSS(`#tab-activity`)))
		b.waitJS(t, "calls listed", `document.querySelectorAll('#panel-activity tbody tr').length > 0`)
		shoot(t, b, filepath.Join(out, "activity-"+w.name+".png"))
		b.run(t, "open connect", chromedp.Click(chromedp.CSS(`#tab-connect`)))
		b.waitJS(t, "snippets shown", `document.querySelectorAll('#panel-connect pre').length > 0`)
		shoot(t, b, filepath.Join(out, "connect-"+w.name+".png"))
	}
}

// TestScreenshotsApproval regenerates docs/screenshots/approval-*.png: a
// rug pull's tool waiting for approval, with its diff and findings (make
// screenshots runs it with TestScreenshots).
func TestScreenshotsApproval(t *testing.T) {
	out := screenshotDir(t)
	// "testserver" from PATH: the picture shows no temporary directory.
	s := startServe(t, map[string]any{"forecast": map[string]any{"enabled": true, "command": "testserver",
		"args": []string{"-name", "forecast", "-rug-pull", "300ms"}}})
	if !testwait.Until(30*time.Second, func() bool { return len(s.quarantined(t, "forecast")) == 1 }) {
		t.Fatal("the rug pull's tool was never quarantined")
	}
	for _, w := range []struct {
		name          string
		width, height int
	}{{"1280", 1280, 860}, {"390", 390, 844}} {
		b := newBrowser(t, w.width, w.height)
		b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
		b.run(t, "open the waiting tool", chromedp.Click(chromedp.CSS(card("forecast")+" .trust-badge")))
		b.waitJS(t, "the diff shown", `document.querySelector('`+card("forecast")+` .held .diff') !== null`)
		shoot(t, b, filepath.Join(out, "approval-"+w.name+".png"))
	}
}

// screenshotDir returns where screenshots go (docs/screenshots, or
// $PLUGHOST_SCREENSHOTS_DIR), or skips unless PLUGHOST_SCREENSHOTS=1.
func screenshotDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("PLUGHOST_SCREENSHOTS") != "1" {
		t.Skip("set PLUGHOST_SCREENSHOTS=1 to regenerate docs/screenshots")
	}
	out := filepath.Join("..", "docs", "screenshots")
	if dir := os.Getenv("PLUGHOST_SCREENSHOTS_DIR"); dir != "" {
		out = dir
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// shootViewport saves a screenshot of what the window shows (a modal
// dialog is laid out against the window, not the page).
func shootViewport(t *testing.T, b *browser, path string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // let the last frame paint (not an assertion)
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// shoot saves a screenshot of the whole page.
func shoot(t *testing.T, b *browser, path string) {
	t.Helper()
	// A sticky bar would be painted mid-page in a full-page capture.
	eval[bool](t, b, `(document.querySelector('.topbar').style.position = 'static', window.scrollTo(0, 0), true)`)
	time.Sleep(300 * time.Millisecond) // let the last frame paint (not an assertion)
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}
