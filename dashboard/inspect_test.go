package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testwait"
)

// openInspect logs in and shows server's tools, resources and prompts in
// the Inspect tab.
func openInspect(t *testing.T, b *browser, s *serve, server string) {
	t.Helper()
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the tabs", `!document.querySelector('.tabs').hidden`)
	b.run(t, "open Inspect", chromedp.Click(chromedp.CSS("#tab-inspect")))
	b.waitJS(t, "the server in the picker", `[...document.querySelectorAll('#inspect-server option')].some((o) => o.value === `+jsString(server)+`)`)
	eval[bool](t, b, `(() => { const p = document.getElementById('inspect-server'); p.value = `+jsString(server)+`;
		p.dispatchEvent(new Event('change')); return true; })()`)
	b.waitJS(t, "the lists", `document.querySelectorAll('.inspect-section .inspect-item').length > 0 &&
		![...document.querySelectorAll('.inspect-section')].some((s) => s.textContent.includes('Loading…'))`)
}

// itemOf is the CSS selector of a list entry of the Inspect tab.
func itemOf(name string) string { return `.inspect-item[data-name=` + jsString(name) + `]` }

// textOf returns the text of the first element matching sel ("" if none).
func textOf(t *testing.T, b *browser, sel string) string {
	return eval[string](t, b, `(document.querySelector(`+jsString(sel)+`) || {}).textContent || ''`)
}

// Running tools from their forms: a required field left empty and a
// number under its minimum are refused beside the field; echo's result
// shows as the agent sees it and raw; a tool's error reads as one; a tool
// removed since the list was shown is refused with the API's message; a
// long call is cancelled at the server by Cancel.
func TestDashboardInspectRunsTools(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"a": testServer(nil)})
	s.waitStates(t, "a")
	openInspect(t, b, s, "a")

	if got := textOf(t, b, `.inspect-section[aria-label="Prompts"] p`); got != "This server offers no prompts." {
		t.Errorf("the prompts of a server without any: %q", got)
	}

	echo := itemOf("echo")
	b.run(t, "open echo", chromedp.Click(chromedp.CSS(echo+" > summary")))
	b.run(t, "run echo without text", chromedp.Click(chromedp.CSS(echo+" button[type=submit]")))
	if got := textOf(t, b, echo+" .field-error"); got != "Required." {
		t.Errorf("echo's empty text: error %q", got)
	}
	b.run(t, "fill and run echo", chromedp.SendKeys(chromedp.CSS(echo+` input[name="text"]`), "hello <b>inspector</b>"),
		chromedp.Click(chromedp.CSS(echo+" button[type=submit]")))
	b.waitJS(t, "echo's result", `(document.querySelector('`+echo+` .shaped .mcp-text') || {}).textContent === 'hello <b>inspector</b>'`)
	if n := eval[int](t, b, `document.querySelectorAll('`+echo+` .shaped b').length`); n != 0 {
		t.Error("the result was parsed as markup")
	}
	if st := textOf(t, b, echo+" .test-out"); !strings.HasPrefix(st, "Done in") {
		t.Errorf("echo's status %q", st)
	}
	if raw := textOf(t, b, echo+" .raw pre"); !strings.Contains(raw, `"content"`) {
		t.Errorf("echo's raw JSON %q", raw)
	}

	big := itemOf("big")
	b.run(t, "open big", chromedp.Click(chromedp.CSS(big+" > summary")))
	b.run(t, "run big under its minimum", chromedp.SendKeys(chromedp.CSS(big+` input[name="chars"]`), "-5"),
		chromedp.Click(chromedp.CSS(big+" button[type=submit]")))
	if got := textOf(t, b, big+" .field-error"); got != "At least 0." {
		t.Errorf("big's chars -5: error %q", got)
	}
	if n := eval[int](t, b, `document.querySelectorAll('`+big+` select[name="notify"] option').length`); n != 3 {
		t.Errorf("big's optional boolean has %d choices, want unset, true, false", n)
	}

	rm := itemOf("remove_tool")
	b.run(t, "run remove_tool on no tool", chromedp.Click(chromedp.CSS(rm+" > summary")),
		chromedp.SendKeys(chromedp.CSS(rm+` input[name="name"]`), "nope"),
		chromedp.Click(chromedp.CSS(rm+" button[type=submit]")))
	b.waitJS(t, "remove_tool's error", `(document.querySelector('`+rm+` .test-out') || {}).textContent.includes('isError')`)
	if got := textOf(t, b, rm+" .shaped.is-error .mcp-text"); got != "no tool nope" {
		t.Errorf("remove_tool's error result %q", got)
	}

	// A tool gone since the list was shown: the refusal and its message.
	noop := itemOf("noop")
	b.run(t, "open noop", chromedp.Click(chromedp.CSS(noop+" > summary")))
	b.run(t, "remove noop", chromedp.SetValue(chromedp.CSS(rm+` input[name="name"]`), "noop"),
		chromedp.Click(chromedp.CSS(rm+" button[type=submit]")))
	if !testwait.Until(20*time.Second, func() bool {
		_, body := s.api(t, "GET", "/api/servers/a/tools", "")
		return !strings.Contains(body, `"mcp_a_noop"`)
	}) {
		t.Fatal("noop was never removed")
	}
	b.run(t, "run noop", chromedp.Click(chromedp.CSS(noop+" button[type=submit]")))
	b.waitJS(t, "noop's refusal", `(document.querySelector('`+noop+` .test-out') || {}).textContent.startsWith('Refused (unknown tool): ')`)

	sleep := itemOf("sleep")
	b.run(t, "start a long sleep", chromedp.Click(chromedp.CSS(sleep+" > summary")),
		chromedp.SendKeys(chromedp.CSS(sleep+` input[name="seconds"]`), "60"),
		chromedp.Click(chromedp.CSS(sleep+" button[type=submit]")))
	stderr := func() string { _, body := s.api(t, "GET", "/api/servers/a", ""); return body }
	if !testwait.Until(20*time.Second, func() bool { return strings.Contains(stderr(), "sleeping") }) {
		t.Fatal("the sleep never started")
	}
	b.run(t, "cancel it", chromedp.Click(chromedp.CSS(sleep+" .actions button[type=button]")))
	b.waitJS(t, "the cancelled status", `(document.querySelector('`+sleep+` .test-out') || {}).textContent.startsWith('Cancelled')`)
	if !testwait.Until(20*time.Second, func() bool { return strings.Contains(stderr(), "cancelled") }) {
		t.Error("the server never saw the cancellation")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// Reading a resource and a template's, with the template's completions,
// and getting a prompt with its argument completed.
func TestDashboardInspectResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"a": testServer(nil, "-faithful")})
	s.waitStates(t, "a")
	openInspect(t, b, s, "a")

	static := itemOf("test://static")
	b.run(t, "read test://static", chromedp.Click(chromedp.CSS(static+" > summary")))
	b.waitJS(t, "its text", `(document.querySelector('`+static+` .resource-content .mcp-text') || {}).textContent === 'static text of testserver'`)

	items := itemOf("test://items/{id}")
	b.run(t, "open the template", chromedp.Click(chromedp.CSS(items+" > summary")),
		chromedp.Click(chromedp.CSS(items+` input[name="id"]`)))
	b.waitJS(t, "the id's completions", `[...document.querySelectorAll('`+items+` datalist option')].map((o) => o.value).join() === '1,2,3'`)
	b.run(t, "read item 2", chromedp.SendKeys(chromedp.CSS(items+` input[name="id"]`), "2"),
		chromedp.Click(chromedp.CSS(items+" button[type=submit]")))
	b.waitJS(t, "item 2", `(document.querySelector('`+items+` .resource-content .mcp-text') || {}).textContent === 'item 2 of testserver'`)

	greet := itemOf("greet")
	b.run(t, "open greet", chromedp.Click(chromedp.CSS(greet+" > summary")))
	b.run(t, "get greet without who", chromedp.Click(chromedp.CSS(greet+" button[type=submit]")))
	if got := textOf(t, b, greet+" .field-error"); got != "Required." {
		t.Errorf("greet without who: error %q", got)
	}
	b.run(t, "type b", chromedp.SendKeys(chromedp.CSS(greet+` input[name="who"]`), "b"))
	b.waitJS(t, "who's completions", `[...document.querySelectorAll('`+greet+` datalist option')].map((o) => o.value).join() === 'bob'`)
	b.run(t, "get greet for bob", chromedp.SendKeys(chromedp.CSS(greet+` input[name="who"]`), "ob"),
		chromedp.Click(chromedp.CSS(greet+" button[type=submit]")))
	b.waitJS(t, "the greeting", `(document.querySelector('`+greet+` .prompt-message .mcp-text') || {}).textContent === 'Hello, bob, from testserver'`)
	if role := textOf(t, b, greet+" .prompt-message .chip"); role != "user" {
		t.Errorf("the message's role %q", role)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// onePixelPNG is a 1×1 PNG, base64.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

// A server's image shows as a data: URI the CSP lets load; an SVG, or
// data that is not base64, is not shown.
func TestDashboardInspectImages(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"a": testServer(nil)})
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "the tabs", `!document.querySelector('.tabs').hidden`)
	eval[bool](t, b, `(() => { import('./js/mcpcontent.js').then((m) => {
		const box = document.createElement('div');
		box.id = 'images';
		box.append(m.contentBlock({type: 'image', mimeType: 'image/png', data: `+jsString(onePixelPNG)+`}),
			m.contentBlock({type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz48L3N2Zz4='}),
			m.contentBlock({type: 'image', mimeType: 'image/png', data: '"><b>x</b>'}),
			m.resourceContent({uri: 'x', mimeType: 'image/png', blob: `+jsString(onePixelPNG)+`}));
		document.body.append(box);
	}); return true; })()`)
	b.waitJS(t, "the PNGs loaded", `(() => { const imgs = document.querySelectorAll('#images img');
		return imgs.length === 2 && [...imgs].every((i) => i.complete && i.naturalWidth === 1); })()`)
	notes := eval[[]string](t, b, `[...document.querySelectorAll('#images p')].map((p) => p.textContent)`)
	if len(notes) != 2 || !strings.Contains(notes[0], "image/svg+xml (not shown)") || !strings.Contains(notes[1], "not shown") {
		t.Errorf("the SVG and the bad data: %q", notes)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#images b').length`); n != 0 {
		t.Error("image data was parsed as markup")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// At phone width the Inspect tab, a tool's form and its result fit
// without sideways scrolling.
func TestDashboardInspectNarrow(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 390, 844)
	s := startServe(t, map[string]any{"a": testServer(nil, "-faithful")})
	s.waitStates(t, "a")
	openInspect(t, b, s, "a")
	echo := itemOf("echo")
	b.run(t, "run echo", chromedp.Click(chromedp.CSS(echo+" > summary")),
		chromedp.SendKeys(chromedp.CSS(echo+` input[name="text"]`), strings.Repeat("long-word-", 40)),
		chromedp.Click(chromedp.CSS(echo+" button[type=submit]")))
	b.waitJS(t, "echo's result", `document.querySelector('`+echo+` .shaped .mcp-text') !== null`)
	b.run(t, "open a resource", chromedp.Click(chromedp.CSS(itemOf("test://static")+" > summary")))
	b.waitJS(t, "its text", `document.querySelector('`+itemOf("test://static")+` .resource-content') !== null`)
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the page is %d px wide at 390", w)
	}
}
