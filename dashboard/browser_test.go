package dashboard_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/internal/testoauth"
)

// canary is a secret the test stores through the dashboard and in the
// config file: it must never come back to the browser.
const canary = "canary-7f3e9b21c4d8"

// writeCatalog adds a preset "testkit" (the test server, needing a
// credential) to the user's catalog file, so the install runs offline.
func writeCatalog(t *testing.T, s *serve) {
	t.Helper()
	cat := map[string]any{"presets": []any{map[string]any{
		"id": "testkit", "name": "Test kit", "description": "The project's MCP test server, installed from the catalog.",
		"server": map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": []string{"-name", "testkit"}},
		"credentials": []any{map[string]any{"key": "TESTKIT_TOKEN", "label": "Access token", "kind": "env", "secret": true, "required": true,
			"help": "Any value will do."}},
	}}}
	b, _ := json.Marshal(cat)
	if err := os.WriteFile(filepath.Join(s.home, ".plughost", "catalog.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// setField sets a form control's value as typing would (input and change
// events fire).
func setField(t *testing.T, b *browser, selector, value string) {
	t.Helper()
	eval[bool](t, b, `(() => { const el = document.querySelector(`+jsString(selector)+`);
		if (el.type === 'checkbox') el.checked = `+jsString(value)+` === 'true'; else el.value = `+jsString(value)+`;
		el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
}

// card is the CSS selector of a server's card.
func card(name string) string { return `.server-card[data-name="` + name + `"]` }

// The whole dashboard in a real browser: log in with a code, install a
// preset with a credential and see it connect, edit it (with a validation
// problem shown beside its field), disable it, remove it; a settings
// problem beside its field; a config edit behind the dashboard's back
// shows up live; the secret never reaches the page.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"alpha": testServer(map[string]string{"ALPHA_KEY": canary})})
	writeCatalog(t, s)
	s.waitStates(t, "alpha")

	// Log in: the code is exchanged and leaves the address bar.
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "alpha connected", `document.querySelector('`+card("alpha")+`')?.dataset.state === 'connected'`)
	if loc := eval[string](t, b, `location.href`); strings.Contains(loc, "code=") {
		t.Errorf("the login code stayed in the address bar: %s", loc)
	}
	hist, err := chromedp.Run(b.ctx, chromedp.NavigationEntries())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range hist.Entries {
		if strings.Contains(e.URL, "code=") {
			t.Errorf("the login code is in the history: %s", e.URL)
		}
	}

	// Tabs are keyboard navigable.
	b.run(t, "arrow to the catalog", chromedp.Focus(chromedp.CSS("#tab-servers")), chromedp.KeyEvent(kb.ArrowRight))
	b.waitJS(t, "catalog tab selected and focused", `document.activeElement.id === 'tab-catalog' &&
		document.getElementById('tab-catalog').getAttribute('aria-selected') === 'true' && !document.getElementById('panel-catalog').hidden`)

	// Install a preset with a credential; it appears in Servers and connects.
	sel := `.preset[data-preset="testkit"] button.primary`
	b.run(t, "install testkit", chromedp.Click(chromedp.CSS(sel)),
		chromedp.SendKeys(chromedp.CSS(`dialog [data-path="credentials.TESTKIT_TOKEN"] input`), canary),
		chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
	b.waitJS(t, "testkit connected in the servers tab", `!document.getElementById('panel-servers').hidden &&
		document.querySelector('`+card("testkit")+`')?.dataset.state === 'connected'`)
	if cfg := s.readConfig(t); !strings.Contains(cfg, `"TESTKIT_TOKEN": "`+canary+`"`) {
		t.Fatalf("the credential was not stored in the config file:\n%s", cfg)
	}

	// Test it, and preview a search that finds its tools.
	b.run(t, "test testkit", chromedp.Click(chromedp.CSS(card("testkit")+" .card-toggle")),
		chromedp.Click(chromedp.CSS(card("testkit")+` .actions-bar button:nth-child(3)`)))
	b.waitJS(t, "the test's figures", `/^Ready in .* · 11 tools · definitions .*B$/.test(document.querySelector('`+card("testkit")+` .test-out.ok')?.textContent)`)
	b.run(t, "search", chromedp.SendKeys(chromedp.CSS(`.search-form input[type="search"]`), "echo text unchanged"),
		chromedp.Click(chromedp.CSS(`.search-form button[type="submit"]`)))
	b.waitJS(t, "search results", `[...document.querySelectorAll('.result-list code')].some((e) => e.textContent === 'mcp_testkit_echo')`)

	// Edit: an invalid value is answered beside its field and nothing is written.
	before := s.readConfig(t)
	b.run(t, "open testkit's edit form", chromedp.Click(chromedp.CSS(card("testkit")+` .actions-bar button:first-child`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog [data-path="args"] textarea`)))
	setField(t, b, `dialog [data-path="type"] select`, "http")
	b.run(t, "save without a url", chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
	b.waitJS(t, "the url problem beside the url field", `document.querySelector('dialog [data-path="url"] .field-error')?.textContent.length > 0`)
	if after := s.readConfig(t); after != before {
		t.Errorf("an invalid edit changed the config file:\n%s", after)
	}
	// A valid edit: three more tools; the masked credential keeps its value.
	setField(t, b, `dialog [data-path="type"] select`, "stdio")
	setField(t, b, `dialog [data-path="args"] textarea`, "-name\ntestkit\n-tools\n3")
	// and a tool filter hides echo from everyone.
	setField(t, b, `dialog [data-path="exclude_tools"] textarea`, "echo")
	b.run(t, "save the edit", chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
	b.waitJS(t, "testkit restarted with 3 more tools, echo hidden", `(() => { const c = document.querySelector('`+card("testkit")+`');
		const names = [...c.querySelectorAll('.tool-name')].map((e) => e.textContent);
		return c.dataset.state === 'connected' && names.includes('mcp_testkit_tool_2') && !names.includes('mcp_testkit_echo'); })()`)
	if cfg := s.readConfig(t); !strings.Contains(cfg, `"TESTKIT_TOKEN": "`+canary+`"`) || !strings.Contains(cfg, `"-tools"`) ||
		!regexp.MustCompile(`"exclude_tools":\s*\[\s*"echo"\s*\]`).MatchString(cfg) {
		t.Fatalf("after the edit, the config lost the credential or misses the change:\n%s", cfg)
	}

	// A name the rule refuses is answered beside the name field before
	// anything is sent; the help line is the validator's rule.
	before = s.readConfig(t)
	b.run(t, "open the add form", chromedp.Click(chromedp.CSS("#add-server")),
		chromedp.WaitVisible(chromedp.CSS(`dialog [data-path="name"] input`)))
	if help := eval[string](t, b, `document.querySelector('dialog [data-path="name"] .help').textContent`); !strings.Contains(help, config.ServerNameRule[1:]) {
		t.Errorf("the name's help line %q is not the validator's rule", help)
	}
	setField(t, b, `dialog [data-path="name"] input`, "my server!")
	setField(t, b, `dialog [data-path="command"] input`, "node")
	b.run(t, "add under a bad name", chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
	b.waitJS(t, "the rule beside the name field", `document.querySelector('dialog [data-path="name"] .field-error')?.textContent.includes('starting with a letter or digit')`)
	b.run(t, "close the add form", chromedp.Click(chromedp.CSS(`dialog .dialog-foot button:not([type="submit"])`)))
	if after := s.readConfig(t); after != before {
		t.Errorf("a refused name changed the config file:\n%s", after)
	}
	for _, r := range b.responses() {
		if strings.HasSuffix(r.url, "/api/servers") && strings.Contains(r.body, "my server!") {
			t.Errorf("the refused name was sent: %s", r.body)
		}
	}

	// Disable, then remove with confirmation.
	b.run(t, "disable testkit", chromedp.Click(chromedp.CSS(card("testkit")+` .actions-bar button:nth-child(2)`)))
	b.waitJS(t, "testkit disabled", `document.querySelector('`+card("testkit")+`')?.dataset.state === 'disabled'`)
	b.run(t, "remove testkit", chromedp.Click(chromedp.CSS(card("testkit")+` .actions-bar .danger-ghost`)),
		chromedp.Click(chromedp.CSS(`dialog button[value="ok"]`)))
	b.waitJS(t, "testkit gone", `document.querySelector('`+card("testkit")+`') === null`)
	if cfg := s.readConfig(t); strings.Contains(cfg, "testkit") {
		t.Errorf("testkit is still in the config file:\n%s", cfg)
	}

	// Settings: discovery on without a search tool is refused beside the BM25 field.
	before = s.readConfig(t)
	b.run(t, "open settings", chromedp.Click(chromedp.CSS("#tab-settings")),
		chromedp.WaitVisible(chromedp.CSS(`[data-path="tools.mcp.discovery.use_bm25"] input`)))
	setField(t, b, `[data-path="tools.mcp.discovery.enabled"] input`, "true")
	setField(t, b, `[data-path="tools.mcp.discovery.use_bm25"] input`, "false")
	setField(t, b, `[data-path="tools.mcp.discovery.use_regex"] input`, "false")
	b.run(t, "save settings", chromedp.Click(chromedp.CSS(`.settings-form button[type="submit"]`)))
	b.waitJS(t, "the problem beside use_bm25", `document.querySelector('[data-path="tools.mcp.discovery.use_bm25"] .field-error')?.textContent.includes('use_regex')`)
	if after := s.readConfig(t); after != before {
		t.Errorf("refused settings changed the config file:\n%s", after)
	}

	// A config edit behind the dashboard's back shows up live.
	b.run(t, "back to servers", chromedp.Click(chromedp.CSS("#tab-servers")))
	s.writeConfig(t, map[string]any{"alpha": testServer(map[string]string{"ALPHA_KEY": canary}), "beta": testServer(nil, "-name", "beta")})
	b.waitJS(t, "beta appears and connects", `document.querySelector('`+card("beta")+`')?.dataset.state === 'connected'`)

	// The settings edited before that change are refused, never written over it.
	before = s.readConfig(t)
	b.run(t, "save the stale settings", chromedp.Click(chromedp.CSS("#tab-settings")))
	setField(t, b, `[data-path="tools.mcp.discovery.use_regex"] input`, "true")
	b.run(t, "save", chromedp.Click(chromedp.CSS(`.settings-form button[type="submit"]`)))
	b.waitJS(t, "changed elsewhere", `/changed elsewhere — reload/i.test(document.querySelector('.settings-form .form-error')?.textContent)`)
	if after := s.readConfig(t); after != before {
		t.Errorf("stale settings were written over the file:\n%s", after)
	}
	b.run(t, "back to servers", chromedp.Click(chromedp.CSS("#tab-servers")))

	// The secret never reached the page: not in the DOM, not in any response.
	if strings.Contains(b.dom(t), canary) {
		t.Errorf("the secret is in the page's DOM")
	}
	responses := b.responses()
	sawEvents, sawMasked := false, false
	for _, r := range responses {
		if strings.Contains(r.body, canary) {
			t.Errorf("the secret is in the response of %s", r.url)
		}
		sawEvents = sawEvents || (strings.Contains(r.url, "/api/events") && strings.Contains(r.body, "event: servers"))
		sawMasked = sawMasked || strings.Contains(r.body, `"ALPHA_KEY": "****"`)
	}
	// The capture must see what it checks: the stream, and the masked entry.
	if !sawEvents || !sawMasked {
		t.Errorf("captured %d responses (event stream: %v, alpha's masked env: %v): the capture misses bodies", len(responses), sawEvents, sawMasked)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the page logged errors: %q", errs)
	}

	// At 390 px wide, nothing scrolls sideways on any tab.
	b.run(t, "narrow the window", chromedp.EmulateViewport(390, 844))
	for _, tab := range []string{"servers", "catalog", "settings"} {
		b.run(t, "open "+tab, chromedp.Click(chromedp.CSS("#tab-"+tab)))
		if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("the %s tab is %d px wide at 390 px", tab, w)
		}
	}
}

// The login button of an OAuth server: the authorization server's page
// opens in a new tab, its redirect lands on serve's /oauth/callback, and
// the card turns connected.
func TestDashboardOAuthLogin(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	as := testoauth.Start(t, testoauth.Options{})
	s := startServe(t, map[string]any{"remote": map[string]any{"enabled": true, "type": "http", "url": as.MCP, "oauth": map[string]any{}}})
	if st := s.waitStates(t, "remote")["remote"]; st != "needs login" {
		t.Fatalf("remote is %q before the login, want needs login", st)
	}
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "remote needs login", `document.querySelector('`+card("remote")+` .badge')?.textContent === 'Needs login'`)
	b.run(t, "log in", chromedp.Click(chromedp.CSS(card("remote")+" .card-toggle")),
		chromedp.Click(chromedp.CSS(card("remote")+` .actions-bar button:nth-child(4)`)))
	b.waitJS(t, "remote connected after the login", `document.querySelector('`+card("remote")+`')?.dataset.state === 'connected'`)
	if !strings.Contains(eval[string](t, b, `document.querySelector('`+card("remote")+` .chips').textContent`), "OAuth · logged in") {
		t.Errorf("the card does not say it is logged in")
	}
	if strings.Contains(b.dom(t), "at-1") {
		t.Errorf("the access token is in the DOM")
	}
	for _, r := range b.responses() {
		if strings.Contains(r.body, `"at-1"`) || strings.Contains(r.body, `"rt-1"`) || strings.Contains(r.body, "Bearer at-") {
			t.Errorf("a token is in the response of %s", r.url)
		}
	}
}
