package dashboard_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testbin"
)

// axeViolation is one rule axe-core found broken, with the elements.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axeSource returns axe-core's script (make testdeps installs it with the
// npm reference servers), or skips the test loudly.
func axeSource(t *testing.T) string {
	t.Helper()
	p, err := testbin.NPMServer("axe-core", "axe.min.js")
	var b []byte
	if err == nil {
		b, err = os.ReadFile(p)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: axe-core is not installed: %v ***\n\n", t.Name(), err)
		t.Skipf("axe-core is not installed: %v", err)
	}
	return string(b)
}

// Every tab of the dashboard, in the light and the dark theme, at 1280 and
// 390 px, has no critical and no serious accessibility violation as
// axe-core (WCAG 2 A and AA rules) finds them.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	axe := axeSource(t)
	s := startServe(t, map[string]any{
		"ok":     testServer(nil),
		"broken": map[string]any{"enabled": true, "command": "plughost-no-such-command"},
	})
	s.waitStates(t, "ok", "broken")
	for _, theme := range []string{"light", "dark"} {
		for _, w := range []struct{ width, height int }{{1280, 860}, {390, 844}} {
			t.Run(fmt.Sprintf("%s-%d", theme, w.width), func(t *testing.T) {
				t.Parallel() // a browser context each; serve is only read
				b := newBrowser(t, w.width, w.height)
				if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}}); err != nil {
					t.Fatal(err)
				}
				b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
				b.waitJS(t, "servers listed", `document.querySelectorAll('.server-card, .server-row').length >= 2`)
				b.run(t, "load axe-core", chromedp.Evaluate[chromedp.Void](axe+"\n;undefined"))
				tabs := eval[[]string](t, b, `[...document.querySelectorAll('[role="tab"]')].map((e) => e.id)`)
				if len(tabs) < 3 {
					t.Fatalf("tabs %v; want the servers, catalog and settings tabs at least", tabs)
				}
				t.Logf("checking %v", tabs)
				for _, tab := range tabs {
					b.run(t, "open "+tab, chromedp.Click(chromedp.CSS("#"+tab)))
					if tab == "tab-servers" { // an expanded server: its detail's headings too
						b.run(t, "expand ok", chromedp.Click(chromedp.CSS(`[data-name="ok"] .card-toggle, [data-name="ok"] .row-toggle`)))
						b.waitJS(t, "ok's detail", `document.querySelectorAll('[data-name="ok"] .tool').length > 0`)
					}
					b.waitJS(t, tab+" shown and loaded", `(() => { const p = document.getElementById(document.getElementById(`+jsString(tab)+`).getAttribute('aria-controls')); return p && !p.hidden && p.children.length > 0 && !/Loading/.test(p.innerText); })()`)
					raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](
						`axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}}).then((r) => JSON.stringify(r.violations))`,
						chromedp.EvalAwaitPromise))
					if err != nil {
						t.Fatalf("axe on %s: %v", tab, err)
					}
					var vs []axeViolation
					if err := json.Unmarshal([]byte(raw), &vs); err != nil {
						t.Fatal(err)
					}
					for _, v := range vs {
						if v.Impact != "critical" && v.Impact != "serious" && v.ID != "heading-order" {
							continue // heading-order is "moderate", but a skipped level is a reported defect
						}
						var where []string
						for _, n := range v.Nodes {
							where = append(where, fmt.Sprint(n.Target)+": "+strings.ReplaceAll(n.Summary, "\n", " "))
						}
						t.Errorf("%s, %s theme, %d px: %s %s (%s) on %d elements:\n  %s", tab, theme, w.width, v.Impact, v.ID, v.Help, len(v.Nodes), strings.Join(where, "\n  "))
					}
				}
			})
		}
	}
}
