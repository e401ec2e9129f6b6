package dashboard_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// offServers adds n disabled servers to servers (names after "alpha").
func offServers(servers map[string]any, n int) map[string]any {
	for i := range n {
		servers[fmt.Sprintf("off-%03d", i)] = map[string]any{"enabled": false, "command": "true"}
	}
	return servers
}

// With more servers than a page, the dashboard counts all of them, lists
// the first 500 (as table rows) and lists the rest on "Show more"; a
// running server whose entry turns invalid shows the problem on its row
// as current, while it stays connected. Before, the dashboard took every
// server in one answer (17.5 MB for 40,000), and the typo stopped the
// server.
func TestDashboardPagesAndKeptEntry(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, offServers(map[string]any{"alpha": testServer(nil)}, 600))
	s.waitStates(t, "alpha")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "alpha connected", `document.querySelector('`+row("alpha")+`')?.dataset.state === 'connected'`)
	b.waitJS(t, "the first page listed and counted", `document.querySelectorAll('.server-row').length === 500 &&
		document.getElementById('servers-summary').textContent === '601 configured · 1 connected · 11 tools · the first 500 listed' &&
		!document.getElementById('more-servers').hidden &&
		document.getElementById('more-servers').textContent === 'Show 101 more servers'`)
	b.run(t, "show more", chromedp.Click(chromedp.CSS(`#more-servers`)))
	b.waitJS(t, "every server listed", `document.querySelectorAll('.server-row').length === 601 &&
		document.getElementById('more-servers').hidden &&
		document.getElementById('servers-summary').textContent === '601 configured · 1 connected · 11 tools'`)

	typo := testServer(nil)
	typo["enabled"] = "yes"
	s.writeConfig(t, offServers(map[string]any{"alpha": typo}, 600))
	b.waitJS(t, "alpha still connected, its row saying why its entry is not applied", `(() => {
		const c = document.querySelector('`+row("alpha")+`'); const e = c?.querySelector('.row-why');
		return c?.dataset.state === 'connected' && !e.hidden && !e.classList.contains('past') &&
			e.textContent.startsWith('config entry invalid, still running previous settings: tools.mcp.servers.alpha.enabled: '); })()`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
