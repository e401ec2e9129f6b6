package dashboard_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/internal/testwait"
)

// quarantined returns the server tool names of a server's tools waiting
// for approval, as the API lists them.
func (s *serve) quarantined(t *testing.T, server string) []string {
	t.Helper()
	_, body := s.api(t, "GET", "/api/servers/"+server, "")
	var d struct {
		Quarantined []struct{ Tool string }
	}
	_ = json.Unmarshal([]byte(body), &d)
	var names []string
	for _, q := range d.Quarantined {
		names = append(names, q.Tool)
	}
	return names
}

// A rug pull in the dashboard: the card of the server says a tool waits
// for approval; its detail shows why, the diff of the description with the
// poisoned text on an added line, and the scan's finding; Approve (after
// the confirmation) lists the tool again, still marked as flagged, and
// the pin records the dashboard as who approved. A server with trust
// "approve" shows its tools as never approved; Approve all lists them.
func TestDashboardApprovesQuarantinedTool(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	fresh := testServer(nil, "-name", "fresh")
	fresh["trust"] = "approve"
	s := startServe(t, map[string]any{"w": testServer(nil, "-rug-pull", "300ms"), "fresh": fresh})
	if !testwait.Until(30*time.Second, func() bool { return strings.Join(s.quarantined(t, "w"), ",") == "weather" }) {
		t.Fatalf("weather was never quarantined: %v", s.quarantined(t, "w"))
	}
	if !testwait.Until(30*time.Second, func() bool { return len(s.quarantined(t, "fresh")) > 1 }) {
		t.Fatalf("fresh (trust approve) holds %v", s.quarantined(t, "fresh"))
	}
	w := card("w")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the waiting badge on w's card", `(() => { const el = document.querySelector('`+w+` .trust-badge');
		return el && !el.hidden && el.textContent.includes('1 waiting for approval'); })()`)
	if st := eval[string](t, b, `document.querySelector('`+w+` .badge').textContent`); !strings.HasPrefix(st, "Connected") {
		t.Errorf("the card's status badge reads %q", st)
	}

	// The detail: reasons, who approved before, the diff, the finding.
	held := w + ` .held[data-tool="weather"]`
	b.run(t, "open w from its badge", chromedp.Click(chromedp.CSS(w+" .trust-badge")))
	b.waitJS(t, "weather waiting in the detail", `document.querySelector('`+held+`') !== null`)
	text := eval[string](t, b, `document.querySelector('`+held+`').textContent`)
	for _, want := range []string{"mcp_w_weather", "Its definition changed since it was approved.", "first list", "Scan findings"} {
		if !strings.Contains(text, want) {
			t.Errorf("weather's entry lacks %q:\n%s", want, text)
		}
	}
	lines := func(kind string) []string {
		return eval[[]string](t, b, `[...document.querySelectorAll('`+held+` [data-field="description"] .line.`+kind+`')].map((e) => e.textContent)`)
	}
	if del := lines("del"); len(del) != 1 || del[0] != "- Returns the weather forecast for a city." {
		t.Errorf("removed description lines %q, want the approved description", del)
	}
	if add := lines("add"); len(add) != 1 || !strings.HasPrefix(add[0], "+ ") || !strings.Contains(add[0], "~/.ssh/id_rsa") {
		t.Errorf("added description lines %q, want the poisoned description", add)
	}
	if n := eval[int](t, b, `document.querySelectorAll('`+held+` .findings li').length`); n == 0 {
		t.Error("no scan finding shown for the poisoned description")
	}
	if focused := eval[bool](t, b, `document.activeElement.matches('`+w+` .waiting')`); !focused {
		t.Error("the badge did not take the focus to the waiting section")
	}
	// At 390 px the diff wraps: nothing scrolls sideways.
	b.run(t, "narrow the window", chromedp.EmulateViewport(390, 844))
	if width := eval[int](t, b, `document.documentElement.scrollWidth`); width > 390 {
		t.Errorf("the approval view is %d px wide at 390 px", width)
	}
	b.run(t, "widen the window", chromedp.EmulateViewport(1280, 900))

	// Approve, confirmed: the tool is listed again, flagged, and the badge is gone.
	b.run(t, "approve weather", chromedp.Click(chromedp.CSS(held+" .held-head button")),
		chromedp.Click(chromedp.CSS(`dialog button[value="ok"]`)))
	b.waitJS(t, "weather listed and the badge gone", `(() => { const c = document.querySelector('`+w+`');
		const names = [...c.querySelectorAll('.tool-name')].map((e) => e.textContent);
		return c.querySelector('.trust-badge').hidden && !c.classList.contains('has-waiting') &&
			c.querySelector('.held') === null && c.querySelector('.waiting').hidden && names.includes('mcp_w_weather'); })()`)
	b.waitJS(t, "weather marked as flagged among the tools", `[...document.querySelectorAll('`+w+` .tool')].some((e) =>
		e.querySelector('.tool-name').textContent === 'mcp_w_weather' && e.querySelector('.chip.flag') && e.querySelector('.findings li'))`)
	if q := s.quarantined(t, "w"); len(q) != 0 {
		t.Errorf("still quarantined after the approval: %v", q)
	}
	if p := pins(t, s, "w")["weather"]; p.By != "dashboard" || !strings.Contains(string(p.Definition), "id_rsa") {
		t.Errorf("weather's pin was made by %q with %s, want the poisoned definition approved by the dashboard", p.By, p.Definition)
	}

	// A server never approved: its tools wait with their whole definition
	// as added lines; Approve all lists them all.
	f := card("fresh")
	b.run(t, "open fresh", chromedp.Click(chromedp.CSS(f+" .card-toggle")))
	waiting := len(s.quarantined(t, "fresh"))
	b.waitJS(t, "fresh's tools waiting", `document.querySelectorAll('`+f+` .held').length === `+strconv.Itoa(waiting))
	echo := f + ` .held[data-tool="echo"]`
	if text := eval[string](t, b, `document.querySelector('`+echo+`').textContent`); !strings.Contains(text, "Never approved.") ||
		!strings.Contains(text, `has not been approved yet`) {
		t.Errorf("echo's entry does not say it was never approved:\n%s", text)
	}
	if n := eval[int](t, b, `document.querySelectorAll('`+echo+` .diff .line:not(.add)').length`); n != 0 {
		t.Errorf("a never approved definition has %d lines not marked as added", n)
	}
	b.run(t, "approve all of fresh", chromedp.Click(chromedp.CSS(f+" .waiting-head button")),
		chromedp.Click(chromedp.CSS(`dialog button[value="ok"]`)))
	b.waitJS(t, "fresh's tools listed", `document.querySelectorAll('`+f+` .held').length === 0 &&
		document.querySelectorAll('`+f+` .tool').length === `+strconv.Itoa(waiting))
	if q := s.quarantined(t, "fresh"); len(q) != 0 {
		t.Errorf("fresh still holds %v after Approve all", q)
	}
	if p := pins(t, s, "fresh"); len(p) != waiting || p["echo"].By != "dashboard" {
		t.Errorf("fresh's pins after Approve all: %d, echo by %q; want %d by the dashboard", len(p), p["echo"].By, waiting)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the page logged errors: %q", errs)
	}
}

// pins returns a server's pins from serve's pins file.
func pins(t *testing.T, s *serve, server string) map[string]trust.Pin {
	t.Helper()
	f, err := trust.OpenFile(trust.DefaultPath(s.home))
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := f.Load(t.Context(), server)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Tools
}

// The line diff and the invisible characters' markers, in the browser
// that runs them.
func TestDashboardDiffAndInvisible(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 800, 600)
	s := startServe(t, map[string]any{})
	b.run(t, "open the dashboard", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the page loaded", `document.getElementById('servers-title') !== null`)
	eval[bool](t, b, `(Promise.all([import('./js/diff.js'), import('./js/approval.js')]).then(([d, a]) => {
		const diff = (x, y) => d.lineDiff(x, y).map((e) => e.op + e.text).join('|');
		const shown = (s) => { const p = document.createElement('p'); p.append(...a.visible(s)); return p.textContent; };
		window.checks = {
			same: diff(['a', 'b'], ['a', 'b']),
			replace: diff(['a', 'b', 'c'], ['a', 'x', 'c']),
			insert: diff(['a', 'c'], ['a', 'b', 'c']),
			remove: diff(['a', 'b', 'c'], ['a', 'c']),
			empty: diff([], ['a', 'b']),
			move: diff(['a', 'b', 'c'], ['c', 'a', 'b']),
			zwsp: shown('read\u200Bthis'),
			bidi: shown('\u202Eevil\u202C and \u2066x\u2069'),
			bom: shown('\uFEFFa\u2060b\u200F'),
			tag: shown('a\u{E0041}'),
			plain: shown('tab\there, ünïcödé'),
		};
	}), true)`)
	b.waitJS(t, "the checks ran", `window.checks !== undefined`)
	got := eval[map[string]string](t, b, `window.checks`)
	want := map[string]string{
		"same":    " a| b",
		"replace": " a|-b|+x| c",
		"insert":  " a|+b| c",
		"remove":  " a|-b| c",
		"empty":   "+a|+b",
		"move":    "+c| a| b|-c",
		"zwsp":    "read⟨U+200B⟩this",
		"bidi":    "⟨U+202E⟩evil⟨U+202C⟩ and ⟨U+2066⟩x⟨U+2069⟩",
		"bom":     "⟨U+FEFF⟩a⟨U+2060⟩b⟨U+200F⟩",
		"tag":     "a⟨U+E0041⟩",
		"plain":   "tab\there, ünïcödé",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
}
