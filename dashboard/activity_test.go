package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testwait"
)

// The Activity tab lists calls made while it is open, without a reload; a
// call that did not end ok says so in words; the filters narrow the rows;
// a server's name opens its card on the Servers tab.
func TestDashboardActivity(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	q := testServer(nil, "-name", "q")
	q["trust"] = "approve"
	s := startServe(t, map[string]any{"a": testServer(nil), "b": testServer(nil, "-name", "b"), "q": q})
	s.waitStates(t, "a", "b", "q")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "a's card", `document.querySelector('`+card("a")+`') !== null`)
	b.run(t, "open the activity", chromedp.Click(chromedp.CSS("#tab-activity")))
	b.waitJS(t, "the activity tab's empty state", `document.querySelector('#panel-activity').textContent.includes('No calls yet')`)

	for _, path := range []string{"/api/tools/mcp_a_echo/call", "/api/tools/mcp_b_noop/call", "/api/tools/mcp_a_nope/call"} {
		s.api(t, "POST", path, `{"text":"hi"}`)
	}
	rows := `[...document.querySelectorAll('#panel-activity tbody tr')]`
	b.waitJS(t, "three calls listed", rows+`.length === 3`)
	texts := eval[[]string](t, b, rows+`.map((r) => r.textContent)`)
	if !strings.Contains(texts[0], "nope") || !strings.Contains(texts[0], "unknown") || !strings.Contains(texts[0], "✕") {
		t.Errorf("the unknown tool's row does not say how it ended: %q", texts[0])
	}
	if !strings.Contains(texts[2], "echo") || !strings.Contains(texts[2], "admin") || !strings.Contains(texts[2], "ok") {
		t.Errorf("echo's row: %q", texts[2])
	}

	// A poll that brings nothing new leaves the keyboard focus where it is.
	eval[bool](t, b, `(() => { document.querySelector('#panel-activity .server-link').focus(); return true; })()`)
	b.run(t, "wait past two polls", chromedp.Sleep(7*time.Second))
	if !eval[bool](t, b, `document.activeElement === document.querySelector('#panel-activity .server-link')`) {
		t.Error("a poll took the keyboard focus off a server link in the table")
	}

	setField(t, b, "#activity-outcome", "!ok")
	b.waitJS(t, "only the failed call", rows+`.length === 1 && `+rows+`[0].textContent.includes('nope')`)
	setField(t, b, "#activity-outcome", "")
	setField(t, b, "#activity-server", "b")
	b.waitJS(t, "only b's call", rows+`.length === 1 && `+rows+`[0].textContent.includes('noop')`)
	setField(t, b, "#activity-server", "")
	setField(t, b, "#activity-text", "ECHO")
	b.waitJS(t, "only echo", rows+`.length === 1 && `+rows+`[0].textContent.includes('echo')`)
	if got := eval[string](t, b, `document.getElementById('activity-count').textContent`); !strings.HasPrefix(got, "1 of 3") {
		t.Errorf("the count reads %q", got)
	}

	b.run(t, "click through to a", chromedp.Click(chromedp.CSS(`#panel-activity .server-link[data-server="a"]`)))
	b.waitJS(t, "a's card open on the Servers tab", `!document.getElementById('panel-servers').hidden &&
		document.getElementById('panel-activity').hidden &&
		document.querySelector('`+card("a")+` [aria-expanded]').getAttribute('aria-expanded') === 'true'`)

	// An approval is listed as one, under its own filter.
	if !testwait.Until(30*time.Second, func() bool { return len(s.quarantined(t, "q")) > 0 }) {
		t.Fatal("q's tools never waited for approval")
	}
	if code, body := s.api(t, "POST", "/api/servers/q/approve", `{"all":true,"via":"dashboard"}`); code != 200 {
		t.Fatalf("approve: %d %s", code, body)
	}
	b.run(t, "back to the activity", chromedp.Click(chromedp.CSS("#tab-activity")))
	setField(t, b, "#activity-text", "")
	setField(t, b, "#activity-outcome", "approve")
	b.waitJS(t, "the approvals", rows+`.length > 0 && `+rows+`.every((r) => r.textContent.includes('Approval') && r.textContent.includes('approved') && r.textContent.includes('dashboard'))`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
