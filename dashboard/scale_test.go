package dashboard_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testwait"
)

// manyServers is n running test servers, each offering 11+extra tools.
func manyServers(n, extra int) map[string]any {
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("srv-%03d", i)] = testServer(nil, "-tools", fmt.Sprint(extra))
	}
	return servers
}

// waitConnected waits (up to two minutes: hundreds of processes start on
// a shared machine) until n servers are connected.
func waitConnected(t *testing.T, s *serve, n int) {
	t.Helper()
	connected := 0
	ok := testwait.Until(2*time.Minute, func() bool {
		_, body := s.api(t, "GET", "/api/servers", "")
		var list struct{ Totals struct{ Connected int } }
		_ = json.Unmarshal([]byte(body), &list)
		connected = list.Totals.Connected
		return connected >= n
	})
	if !ok {
		t.Fatalf("%d of %d servers connected after two minutes", connected, n)
	}
}

// loadFigures are what a page load of the Servers tab costs in the browser.
type loadFigures struct {
	FirstRowMs   float64 // from navigation start to the first server row or card
	AllRowsMs    float64 // to every server shown
	LongTasks    int     // long tasks (over 50 ms) until settled
	MaxLongMs    float64
	TotalLongMs  float64
	DOMNodes     int
	HeightPx     int
	APIRequests  int // requests to /api/ from the page, the event stream included
	ShownServers int
}

// perfProbe is run before the page's own scripts: it records long tasks
// and when the first server row or card appears.
const perfProbe = `
window.__perf = {long: [], first: 0, all: 0};
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__perf.long.push(e.duration); })
  .observe({type: 'longtask', buffered: true});
new MutationObserver(() => {
  const n = document.querySelectorAll('.server-card, .server-row').length;
  if (n > 0 && !window.__perf.first) window.__perf.first = performance.now();
  if (n >= window.__perfWant && !window.__perf.all) window.__perf.all = performance.now();
}).observe(document, {childList: true, subtree: true});
`

// measureLoad opens the dashboard on s, waits until want servers are shown
// connected and the page is quiet, and returns the figures.
func measureLoad(t *testing.T, s *serve, want int) loadFigures {
	t.Helper()
	b := newBrowser(t, 1280, 900)
	var mu sync.Mutex
	requests := 0
	chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && strings.Contains(e.Request.URL, "/api/") {
			mu.Lock()
			requests++
			mu.Unlock()
		}
	})
	script := fmt.Sprintf("window.__perfWant = %d;\n%s", want, perfProbe)
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		t.Fatal(err)
	}
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "every server shown connected", fmt.Sprintf(`[...document.querySelectorAll('.server-card, .server-row')].filter((e) => e.dataset.state === 'connected').length >= %d`, want))
	time.Sleep(3 * time.Second) // let details, charts and late tasks land
	f := eval[map[string]float64](t, b, `(() => { const p = window.__perf;
		return {first: p.first, all: p.all, n: p.long.length, max: Math.max(0, ...p.long), total: p.long.reduce((a, b) => a + b, 0),
			nodes: document.getElementsByTagName('*').length, height: document.documentElement.scrollHeight,
			shown: document.querySelectorAll('.server-card, .server-row').length}; })()`)
	mu.Lock()
	defer mu.Unlock()
	return loadFigures{
		FirstRowMs: f["first"], AllRowsMs: f["all"], LongTasks: int(f["n"]), MaxLongMs: f["max"], TotalLongMs: f["total"],
		DOMNodes: int(f["nodes"]), HeightPx: int(f["height"]), APIRequests: requests, ShownServers: int(f["shown"]),
	}
}

// TestDashboardScaleFigures measures the Servers tab's load with 50
// servers offering 2,000 tools and with 200 servers (40 tools each), and
// prints the figures docs/dashboard.md quotes. It is a measurement, not a
// check: run it with PLUGHOST_SCALE=1.
func TestDashboardScaleFigures(t *testing.T) {
	chromium(t)
	if os.Getenv("PLUGHOST_SCALE") == "" {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: a measurement of 250 servers; run it with PLUGHOST_SCALE=1 ***\n\n", t.Name())
		t.Skip("a measurement of 250 servers; run it with PLUGHOST_SCALE=1")
	}
	for _, n := range []int{50, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			servers := manyServers(n, 29)
			s := startServe(t, servers)
			waitConnected(t, s, n)
			f := measureLoad(t, s, n)
			t.Logf("%d servers, %d tools: first rows %.0f ms, all %.0f ms; long tasks %d (max %.0f ms, total %.0f ms); %d DOM nodes; page %d px tall; %d API requests; %d servers shown",
				n, n*40, f.FirstRowMs, f.AllRowsMs, f.LongTasks, f.MaxLongMs, f.TotalLongMs, f.DOMNodes, f.HeightPx, f.APIRequests, f.ShownServers)
		})
	}
}
