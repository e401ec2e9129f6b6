package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A `plughost dashboard` link pasted into a tab that is already open (only
// the fragment changes: no reload) logs in; an empty server name sent to
// the API is answered beside Name, not at the foot of the form.
func TestDashboardPastedLinkAndEmptyName(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 1280, 900)
	s := startServe(t, map[string]any{"a": testServer(nil)})
	s.waitStates(t, "a")
	b.run(t, "open the login link", chromedp.Navigate(s.loginURL(t)))
	b.waitJS(t, "a's card", `document.querySelector('`+card("a")+`') !== null`)
	b.run(t, "log out", chromedp.Click(chromedp.CSS("#logout")))
	b.waitJS(t, "the login form", `!document.getElementById('login').hidden`)
	eval[bool](t, b, `(() => { window.sameDocument = true; location.href = `+jsString(s.loginURL(t))+`; return true; })()`)
	b.waitJS(t, "logged in again without a reload", `window.sameDocument === true && document.getElementById('login').hidden &&
		!document.querySelector('.tabs').hidden && !location.hash.includes('code=')`)

	// The form checks the name before sending; the API's answer to an
	// empty name, when one gets through, goes beside Name too.
	b.run(t, "open the add form", chromedp.Click(chromedp.CSS("#add-server")),
		chromedp.WaitVisible(chromedp.CSS(`dialog [data-path="name"] input`)))
	eval[bool](t, b, `(() => { document.querySelector('dialog [data-path="name"] input').removeAttribute('pattern'); return true; })()`)
	setField(t, b, `dialog [data-path="command"] input`, "node")
	b.run(t, "add without a name", chromedp.Click(chromedp.CSS(`dialog button[type="submit"]`)))
	b.waitJS(t, "the error beside Name", `document.querySelector('dialog [data-path="name"] .field-error')?.textContent.length > 0`)
	if foot := eval[string](t, b, `document.querySelector('dialog .form-error')?.textContent || ''`); strings.Contains(foot, "send {") {
		t.Errorf("the foot of the form shows %q", foot)
	}
	code, body := s.api(t, "POST", "/api/servers", `{"name":"","server":{"command":"node"}}`)
	if code != 422 || !strings.Contains(body, `"path": "name"`) || strings.Contains(body, "send {") {
		t.Errorf("POST /api/servers with an empty name: %d %s", code, body)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
