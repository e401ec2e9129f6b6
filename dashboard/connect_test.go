package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Connect tab shows each client's configuration without the token
// until asked; a snippet's Copy button copies it with the token; a named
// client is created (its token shown once, the field at fault named when
// the form is wrong) and revoked.
func TestDashboardConnectClient(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"a": testServer(nil)})
	s.waitStates(t, "a")
	tok := s.token(t)
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "a's card", `document.querySelector('`+card("a")+`') !== null`)
	// The page's clipboard is stubbed to record what is copied.
	eval[bool](t, b, `(() => { window.copied = []; navigator.clipboard.writeText = (t) => { window.copied.push(t); return Promise.resolve(); }; return true; })()`)
	b.run(t, "open Connect", chromedp.Click(chromedp.CSS("#tab-connect")))
	claude := `#panel-connect .snippet[data-client="claude-code"]`
	b.waitJS(t, "the Claude Code snippet", `document.querySelector('`+claude+` pre') !== null`)
	if page := eval[string](t, b, `document.getElementById('panel-connect').textContent`); strings.Contains(page, tok) {
		t.Fatal("the token is on the page before Show token")
	}
	b.run(t, "show the token", chromedp.Click(chromedp.CSS("#connect-show-token")))
	want := `claude mcp add --transport http plughost ` + s.base + `/mcp --header "Authorization: Bearer ` + tok + `"`
	b.waitJS(t, "the snippet with the token", `document.querySelector('`+claude+` pre').textContent === `+jsString(want))
	b.run(t, "copy the Claude Code snippet", chromedp.Click(chromedp.CSS(claude+" .copy")))
	b.waitJS(t, "the snippet copied", `window.copied.length === 1 && document.querySelector('`+claude+` .copy').textContent === 'Copied'`)
	if got := eval[string](t, b, `window.copied[0]`); got != want {
		t.Errorf("copied %q, want %q", got, want)
	}

	// An empty name is refused beside Name.
	form := `#panel-connect .client-form`
	b.run(t, "create without a name", chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
	b.waitJS(t, "the error beside Name", `document.querySelector('`+form+` [data-path="name"] .field-error').textContent.includes('1 to 64 characters')`)

	setField(t, b, form+` [data-path="name"] input`, "ci-bot")
	b.run(t, "create ci-bot", chromedp.Click(chromedp.CSS(form+` input[value="a"]`)), chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
	b.waitJS(t, "ci-bot's token shown once", `document.getElementById('client-token')?.value.length > 20 &&
		document.querySelector('#panel-connect tr[data-client="ci-bot"]') !== null`)
	clientTok := eval[string](t, b, `document.getElementById('client-token').value`)
	if cfg := s.readConfig(t); !strings.Contains(cfg, `"ci-bot"`) || strings.Contains(cfg, clientTok) {
		t.Errorf("the config should hold ci-bot's digest, not its token:\n%s", cfg)
	}
	if code, _ := s.api(t, "GET", "/api/clients", ""); code != 200 {
		t.Errorf("GET /api/clients: %d", code)
	}

	b.run(t, "revoke ci-bot", chromedp.Click(chromedp.CSS(`#panel-connect tr[data-client="ci-bot"] button`)))
	b.waitJS(t, "the confirmation", `document.querySelector('dialog[open] button[value="ok"]') !== null`)
	b.run(t, "confirm", chromedp.Click(chromedp.CSS(`dialog[open] button[value="ok"]`)))
	b.waitJS(t, "ci-bot gone", `document.querySelector('#panel-connect tr[data-client="ci-bot"]') === null &&
		document.getElementById('panel-connect').textContent.includes('No named clients')`)
	if cfg := s.readConfig(t); strings.Contains(cfg, `"ci-bot"`) {
		t.Errorf("ci-bot is still in the config:\n%s", cfg)
	}
	// At 390 px wide, neither new tab scrolls sideways.
	b.run(t, "narrow the window", chromedp.EmulateViewport(390, 844))
	s.api(t, "POST", "/api/tools/mcp_a_echo/call", `{"text":"hi"}`)
	for _, tab := range []string{"activity", "connect"} {
		b.run(t, "open "+tab, chromedp.Click(chromedp.CSS("#tab-"+tab)))
		b.waitJS(t, tab+" filled", `document.querySelector('#panel-`+tab+` pre, #panel-`+tab+` tbody tr') !== null`)
		if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("the %s tab is %d px wide at 390 px", tab, w)
		}
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
