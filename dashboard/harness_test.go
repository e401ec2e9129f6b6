package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
)

// bins holds plughost, its plugins and the test server, built once.
var bins testbin.Set

func TestMain(m *testing.M) {
	code := testbin.Main(m, &bins, func() (testbin.Set, error) {
		return testbin.Build(map[string]string{
			"plughost":                    "./cmd/host",
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"plugins/mcp-transport-http":  "./plugins/http",
			"testserver":                  "./internal/testserver",
		})
	})
	stopChromium()
	os.Exit(code)
}

// chromium returns Debian's chromium (make test installs it), or skips the
// test loudly.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: builds plughost and drives chromium: heavy integration test, skipped under -short")
	}
	for _, name := range []string{os.Getenv("PLUGHOST_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	fmt.Fprintf(os.Stderr, "\n*** SKIP %s: chromium is not installed (make test installs it: apt-get install -y chromium) ***\n\n", t.Name())
	t.Skip("chromium is not installed (make test installs it: apt-get install -y chromium)")
	return ""
}

// lockedBuffer is a bytes.Buffer safe for a process writing while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serve is one running `plughost serve` in a temporary HOME.
type serve struct {
	home, config, base string
	stdout, stderr     *lockedBuffer
	// stop ends serve (as Ctrl-C does) and waits for it.
	stop func()
}

// startServe writes servers as the user config (0600) and runs serve on a
// free loopback port until the test ends.
func startServe(t *testing.T, servers map[string]any) *serve {
	t.Helper()
	s := &serve{home: t.TempDir(), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	s.config = filepath.Join(s.home, ".plughost", "config.json")
	s.writeConfig(t, servers)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bins.Path("plughost"), "serve", "--listen", "127.0.0.1:0")
	cmd.Env = s.environ()
	cmd.Dir = s.home
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.stop = sync.OnceFunc(func() {
		cancel()
		_ = cmd.Wait()
	})
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("serve stderr:\n%s", s.stderr)
		}
	})
	re := regexp.MustCompile(`dashboard at (http://127\.0\.0\.1:\d+)/`)
	var m []string
	if !testwait.Until(30*time.Second, func() bool { m = re.FindStringSubmatch(s.stderr.String()); return m != nil }) {
		t.Fatalf("serve did not announce the dashboard within 30s; stderr:\n%s", s.stderr)
	}
	s.base = m[1]
	return s
}

// environ is serve's whole environment; the built binaries are on PATH
// (so a server's command may be just "plughost").
func (s *serve) environ() []string {
	return []string{"PATH=" + bins.Dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + s.home}
}

// writeConfig replaces the user config file (as an editor would).
func (s *serve) writeConfig(t *testing.T, servers map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "discovery": map[string]any{"enabled": true, "use_bm25": true}, "servers": servers,
	}}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(s.config), 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := s.config + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, s.config); err != nil {
		t.Fatal(err)
	}
}

// readConfig returns the user config file's text.
func (s *serve) readConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loginURL runs `plughost dashboard --no-open` and returns the link it prints.
func (s *serve) loginURL(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bins.Path("plughost"), "dashboard", "--no-open")
	cmd.Env, cmd.Dir = s.environ(), s.home
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plughost dashboard: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`http://\S+/#code=[0-9a-f]+`).FindString(string(out))
	if m == "" {
		t.Fatalf("plughost dashboard printed no login link:\n%s", out)
	}
	return m
}

// token returns serve's bearer token.
func (s *serve) token(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.home, ".plughost", "gateway.token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// api sends one request to serve's API with the token and returns the
// status and body.
func (s *serve) api(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token(t))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitStates waits until every named server has left "connecting" (and
// "not probed") and returns the states.
func (s *serve) waitStates(t *testing.T, names ...string) map[string]string {
	t.Helper()
	var states map[string]string
	settled := func() bool {
		_, body := s.api(t, "GET", "/api/servers", "")
		var list struct {
			Servers []struct{ Name, State string }
		}
		_ = json.Unmarshal([]byte(body), &list)
		states = map[string]string{}
		for _, srv := range list.Servers {
			states[srv.Name] = srv.State
		}
		for _, n := range names {
			if st := states[n]; st == "" || st == "connecting" || st == "not probed" {
				return false
			}
		}
		return true
	}
	if !testwait.Until(30*time.Second, settled) {
		t.Fatalf("servers %v still starting after 30s: %v", names, states)
	}
	return states
}

// testServer is the config of a stdio test server.
func testServer(env map[string]string, args ...string) map[string]any {
	srv := map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": args}
	if env != nil {
		srv["env"] = env
	}
	return srv
}

// browser is one headless chromium tab that records every response body
// the page receives (including the event stream, chunk by chunk) and every
// console error.
type browser struct {
	ctx context.Context
	mu  sync.Mutex
	// bodies are the response bodies by URL, in arrival order.
	bodies []response
	errs   []string
	wg     sync.WaitGroup
}

type response struct{ url, body string }

// sharedChromium is the package's one chromium process, started by the
// first browser test and stopped by TestMain: each test opens its own
// browser context in it (see newBrowser) instead of starting a browser.
var sharedChromium struct {
	once sync.Once
	ctx  context.Context // the browser's first tab; its children share the process
	stop func()
	err  error
}

// chromiumContext returns the shared chromium's context, starting chromium
// on first use (or skips the test loudly when there is none).
func chromiumContext(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	c := &sharedChromium
	c.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe),
			chromedp.NoSandbox, // tests run as root in containers
			chromedp.WindowSize(1280, 900),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.Flag("force-color-profile", "srgb"),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		c.ctx, c.stop = ctx, func() { cancelCtx(); cancelAlloc() }
		c.err = chromedp.Do(ctx) // starts the browser
	})
	if c.err != nil {
		t.Fatalf("start chromium: %v", c.err)
	}
	return c.ctx
}

// stopChromium stops the shared chromium, if a test started it.
func stopChromium() {
	if sharedChromium.stop != nil {
		sharedChromium.stop()
	}
}

// newBrowser opens a tab at width×height (CSS pixels) in a new browser
// context of the shared chromium: a profile of its own, as fresh as a new
// browser's (no cookies, storage or cache of another test), and a window of
// its own (so the tab is visible, never throttled as a background tab).
// With a serve of its own too, a browser test shares nothing mutable with
// another, and runs in parallel with the others.
func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	ctx, cancelCtx := chromedp.NewContext(chromiumContext(t), chromedp.WithNewBrowserContext())
	b := &browser{ctx: ctx}
	t.Cleanup(func() {
		cancelCtx()
		b.wg.Wait()
	})
	// The window cannot be narrower than 500 px: emulate the viewport.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("open a tab in chromium: %v", err)
	}
	urls := map[network.RequestID]string{}
	err := chromedp.Listen(ctx, func(ev any) {
		// Runs in the tab's read loop: record, and leave commands to goroutines.
		switch ev := ev.(type) {
		case *network.EventResponseReceived:
			b.mu.Lock()
			urls[ev.RequestID] = ev.Response.URL
			b.mu.Unlock()
			if strings.HasPrefix(ev.Response.MimeType, "text/event-stream") {
				b.wg.Go(func() {
					res, err := chromedp.Call(ctx, network.StreamResourceContent, network.StreamResourceContentParams{RequestID: ev.RequestID})
					if err == nil && len(res.BufferedData) > 0 {
						b.add(ev.Response.URL, string(res.BufferedData))
					}
				})
			}
		case *network.EventDataReceived:
			if len(ev.Data) > 0 {
				b.mu.Lock()
				u := urls[ev.RequestID]
				b.mu.Unlock()
				b.add(u, string(ev.Data))
			}
		case *network.EventLoadingFinished:
			b.mu.Lock()
			u := urls[ev.RequestID]
			b.mu.Unlock()
			b.wg.Go(func() {
				res, err := chromedp.Call(ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: ev.RequestID})
				if err == nil {
					b.add(u, string(res.Body))
				}
			})
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.addErr(msg)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.addErr(strings.Join(parts, " "))
			}
		}
	})
	if err != nil {
		t.Fatalf("listen to chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enable network events: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable runtime events: %v", err)
	}
	return b
}

func (b *browser) addErr(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = append(b.errs, msg)
}

func (b *browser) add(url, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bodies = append(b.bodies, response{url, body})
}

// responses returns the bodies received so far.
func (b *browser) responses() []response {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]response(nil), b.bodies...)
}

// consoleErrors returns the page's uncaught exceptions and console errors.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// run runs actions with a deadline, failing the test with what was attempted.
func (b *browser) run(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		html, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: %v\nconsole errors: %q\npage:\n%s", what, err, b.consoleErrors(), html)
	}
}

// waitJS polls a JavaScript expression until it is true.
func (b *browser) waitJS(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	for {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("timed out waiting for %s (%s)\npage text:\n%s\nconsole errors: %q", what, expr, text, b.consoleErrors())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dom returns the page's whole DOM plus every form control's current value
// (which the markup does not show).
func (b *browser) dom(t *testing.T) string {
	t.Helper()
	return eval[string](t, b, `document.documentElement.outerHTML + "\n" +
		[...document.querySelectorAll('input, textarea, select')].map((e) => e.value).join("\n")`)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v\nconsole errors: %q", expr, err, b.consoleErrors())
	}
	return v
}
