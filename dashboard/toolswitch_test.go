package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A tool hidden with its "Hide from clients" button (confirmed) leaves the
// server's tools and every client — the config file's exclude_tools holds
// it — and "Show again" brings it back, without restarting the server.
func TestDashboardHideAndShowTool(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"ok": testServer(nil)})
	s.waitStates(t, "ok")
	card := `[data-name="ok"]`
	b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
	b.run(t, "expand ok", chromedp.Click(chromedp.CSS(card+" .card-toggle")))
	b.waitJS(t, "echo listed", `document.querySelector('`+card+` .tool[data-tool="echo"]') !== null`)
	b.run(t, "open echo", chromedp.Click(chromedp.CSS(card+` .tool[data-tool="echo"] summary`)))
	b.run(t, "hide echo", chromedp.Click(chromedp.CSS(card+` .tool[data-tool="echo"] button`)),
		chromedp.Click(chromedp.CSS(`dialog button[value="ok"]`)))
	b.waitJS(t, "echo gone and listed as hidden", `document.querySelector('`+card+` .tool[data-tool="echo"]') === null &&
		[...document.querySelectorAll('`+card+` .hidden-tools code')].some((e) => e.textContent === 'echo')`)
	if cfg := s.readConfig(t); !strings.Contains(cfg, `"exclude_tools"`) || !strings.Contains(cfg, `"echo"`) {
		t.Errorf("the config file does not exclude echo:\n%s", cfg)
	}
	if code, body := s.api(t, "GET", "/api/servers/ok", ""); code != 200 || strings.Contains(body, `"mcp_ok_echo"`) || !strings.Contains(body, `"mcp_ok_noop"`) {
		t.Errorf("the server's tools still hold the hidden echo (or lost the others): %d %s", code, body)
	}
	b.run(t, "show echo again", chromedp.Click(chromedp.CSS(card+` .hidden-tools button`)))
	b.waitJS(t, "echo back", `document.querySelector('`+card+` .tool[data-tool="echo"]') !== null && document.querySelector('`+card+` .hidden-tools') === null`)
}
