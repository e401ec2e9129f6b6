package dashboard_test

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// row is the CSS selector of a server's table row.
func row(name string) string { return `.server-row[data-name="` + name + `"]` }

// rowNames is the page's table rows' server names, in order.
const rowNames = `[...document.querySelectorAll('.server-row')].map((r) => r.dataset.name)`

// apiRequests records the paths (with query) of the page's requests to the API.
type apiRequests struct {
	mu    sync.Mutex
	paths []string
}

func (r *apiRequests) listen(b *browser) {
	chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			if u, err := url.Parse(e.Request.URL); err == nil && strings.HasPrefix(u.Path, "/api/") {
				r.mu.Lock()
				r.paths = append(r.paths, u.RequestURI())
				r.mu.Unlock()
			}
		}
	})
}

func (r *apiRequests) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

// Fifty servers open as a table, with one request for the list and none
// for details; the filter, the problems-only toggle and the sortable
// headers (by mouse and by keyboard) choose the rows; opening a row
// fetches its detail; the cards view, once chosen, stays after a reload.
// A broken server's error shows once, not on every part of its row.
func TestDashboardServersTable(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	servers := offServers(map[string]any{
		"alpha":  testServer(nil),
		"broken": map[string]any{"enabled": true, "command": "no-such-command-on-path"},
	}, 48)
	s := startServe(t, servers)
	s.waitStates(t, "alpha", "broken")
	var reqs apiRequests
	reqs.listen(b)
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the table with 50 rows", `!document.querySelector('.table-wrap').hidden && document.querySelectorAll('.server-row').length === 50 &&
		document.querySelectorAll('.server-card').length === 0`)
	b.waitJS(t, "alpha connected", `document.querySelector('`+row("alpha")+`').dataset.state === 'connected'`)
	var lists, details, events int
	for _, p := range reqs.list() {
		switch {
		case strings.HasPrefix(p, "/api/servers?"):
			lists++
		case strings.HasPrefix(p, "/api/servers/"):
			details++
		case strings.HasPrefix(p, "/api/events"):
			events++
		}
	}
	if lists != 1 || details != 0 || events != 1 {
		t.Errorf("at load: %d list requests, %d detail requests, %d event streams, want 1, 0, 1: %q", lists, details, events, reqs.list())
	}

	// The filter.
	setField(t, b, `.server-toolbar .filter`, "off-01")
	b.waitJS(t, "ten rows match off-01", `(() => { const n = `+rowNames+`;
		return n.length === 10 && n.every((x) => x.startsWith('off-01')); })()`)
	if got := eval[string](t, b, `document.getElementById('servers-shown').textContent`); got != "Showing 10 of 50" {
		t.Errorf("the count reads %q", got)
	}
	setField(t, b, `.server-toolbar .filter`, "zzz")
	b.waitJS(t, "no match said", `document.querySelectorAll('.server-row').length === 0 && !document.querySelector('.nomatch').hidden`)
	setField(t, b, `.server-toolbar .filter`, "")

	// Problems only: the broken server alone. (It retries with a growing
	// backoff, and is "connecting", not a problem, for a moment each time:
	// wait for it to be in error.)
	b.waitJS(t, "the toggle to count broken", `document.querySelector('label[for="problems-only"]').textContent === 'Problems only (1)'`)
	b.run(t, "problems only", chromedp.Click(chromedp.CSS(`#problems-only`)))
	b.waitJS(t, "only broken", `JSON.stringify(`+rowNames+`) === '["broken"]'`)
	b.waitJS(t, "broken's row to say what is wrong", `(() => { const w = document.querySelector('`+row("broken")+` .row-why');
		return w !== null && w.textContent !== ''; })()`)
	why := eval[string](t, b, `document.querySelector('`+row("broken")+` .row-why').textContent`)
	b.run(t, "open broken", chromedp.Click(chromedp.CSS(row("broken")+` .row-toggle`)))
	b.waitJS(t, "broken's detail", `document.querySelector('.detail-row[data-name="broken"] .info') !== null &&
		document.querySelector('.detail-row[data-name="broken"] .info').textContent.includes('Transport')`)
	shown := eval[string](t, b, `document.querySelector('`+row("broken")+`').innerText + document.querySelector('.detail-row[data-name="broken"] .info').innerText`)
	if n := strings.Count(shown, why); n != 1 {
		t.Errorf("broken's error shows %d times in its row and details, want once:\n%s", n, shown)
	}
	b.run(t, "close broken, all servers", chromedp.Click(chromedp.CSS(row("broken")+` .row-toggle`)), chromedp.Click(chromedp.CSS(`#problems-only`)))
	b.waitJS(t, "50 rows again", `document.querySelectorAll('.server-row').length === 50`)

	// Sort: by name descending with the mouse, by state with the keyboard.
	b.run(t, "sort by name", chromedp.Click(chromedp.CSS(`th[data-key="name"] button`)))
	b.waitJS(t, "off-047 first", ``+rowNames+`[0] === 'off-047' && document.querySelector('th[data-key="name"]').getAttribute('aria-sort') === 'descending'`)
	b.run(t, "sort by state with the keyboard", chromedp.Focus(chromedp.CSS(`th[data-key="state"] button`)), chromedp.KeyEvent(kb.Enter))
	b.waitJS(t, "broken first, connected alpha before the disabled", `(() => { const n = `+rowNames+`;
		return n[0] === 'broken' && n[1] === 'alpha' && document.querySelector('th[data-key="state"]').getAttribute('aria-sort') === 'ascending' &&
			document.querySelector('th[data-key="name"]').getAttribute('aria-sort') === 'none'; })()`)

	// A row opens with its detail, fetched then.
	b.run(t, "open alpha", chromedp.Click(chromedp.CSS(row("alpha")+` .row-toggle`)))
	b.waitJS(t, "alpha's tools", `document.querySelector('.detail-row[data-name="alpha"] .tools')?.children.length === 11`)
	if got := eval[string](t, b, `document.querySelector('`+row("alpha")+` .row-toggle').getAttribute('aria-expanded')`); got != "true" {
		t.Errorf("alpha's toggle aria-expanded=%q", got)
	}

	// The cards view, remembered.
	b.run(t, "switch to cards", chromedp.Click(chromedp.CSS(`.view-switch [data-view="cards"]`)))
	b.waitJS(t, "cards", `document.querySelectorAll('.server-card').length === 50 && document.querySelector('.table-wrap').hidden`)
	b.run(t, "reload", chromedp.Reload())
	b.waitJS(t, "still cards", `document.querySelectorAll('.server-card').length === 50 &&
		document.querySelector('.view-switch [data-view="cards"]').getAttribute('aria-pressed') === 'true'`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// When serve stops, the Servers tab greys out, says serve is unreachable
// and marks every state as last seen, not live.
func TestDashboardServeUnreachable(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"alpha": testServer(nil)})
	s.waitStates(t, "alpha")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "alpha connected", `document.querySelector('`+card("alpha")+` .badge').textContent === 'Connected · 11 tools' &&
		document.getElementById('serve-unreachable').hidden`)
	s.stop()
	b.waitJS(t, "the page greyed, saying serve is unreachable", `(() => {
		const b = document.querySelector('`+card("alpha")+` .badge');
		return document.getElementById('panel-servers').classList.contains('stale') &&
			!document.getElementById('serve-unreachable').hidden &&
			document.getElementById('serve-unreachable').textContent.startsWith('serve is unreachable.') &&
			b.classList.contains('off') && b.textContent === 'Connected · 11 tools (last seen)' &&
			document.querySelector('#live .live-text').textContent.startsWith('serve unreachable'); })()`)
}

// A connection being torn down (a crash, a stop) still reads "connected",
// with no tools and no process, until the supervisor records the next
// state: the badge says "Disconnecting…" then, not "Connected · 0 tools".
// The moment is too short to catch from a real crash every time, so the
// test hands the page that row as the event stream would.
func TestDashboardEndingConnectionBadge(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"alpha": testServer(nil)})
	s.waitStates(t, "alpha")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	badge := `document.querySelector('` + card("alpha") + ` .badge').textContent`
	b.waitJS(t, "alpha connected", badge+` === 'Connected · 11 tools'`)
	eval[bool](t, b, `(import('/js/store.js').then((m) => {
		const rows = m.store.servers.map((r) => r.name === 'alpha' ? {...r, tools: 0, plugin_pid: 0, server_pid: 0} : r);
		m.serversEvent({servers: rows, totals: m.store.totals, version: m.store.version}); }), true)`)
	b.waitJS(t, "alpha disconnecting", badge+` === 'Disconnecting…'`)
}

// With discovery off, "Try a search" says what it needs and leads to
// Settings, instead of the search tool's error in red.
func TestDashboardSearchWithDiscoveryOff(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"alpha": testServer(nil)})
	s.waitStates(t, "alpha")
	off, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "servers": map[string]any{"alpha": testServer(nil)},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.config, off, 0o600); err != nil { // discovery off: the default
		t.Fatal(err)
	}
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "alpha visible, discovery off", `document.querySelector('`+card("alpha")+` .chip.deferred') === null &&
		document.querySelector('`+card("alpha")+`').textContent.includes('Visible · discovery off')`)
	b.run(t, "search", chromedp.SendKeys(chromedp.CSS(`.search-form input[type="search"]`), "echo"),
		chromedp.Click(chromedp.CSS(`.search-form button[type="submit"]`)))
	b.waitJS(t, "what search needs", `document.querySelector('.search-off')?.textContent.startsWith('Search is off') &&
		document.querySelector('.search-results .field-error') === null`)
	b.run(t, "go to Settings", chromedp.Click(chromedp.CSS(`.search-off button`)))
	b.waitJS(t, "the Settings tab", `document.getElementById('tab-settings').getAttribute('aria-selected') === 'true' && !document.getElementById('panel-settings').hidden`)
}
