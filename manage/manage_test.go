package manage_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/manage"
)

// newManager returns a Manager of a config file in a fresh home, with no
// system layers leaking in from the machine.
func newManager(t *testing.T, content string) (*manage.Manager, string) {
	t.Helper()
	home := t.TempDir()
	path := filepath.Join(home, ".plughost", "config.json")
	if content != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return manage.New(manage.Options{Home: home, Environ: []string{"HOME=" + home}}), path
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The first server of a file turns the integration on; the entry is
// written with its secret in clear (it is the file), the result says what
// happened and never shows the secret.
func TestAddServerFirstEnables(t *testing.T) {
	m, path := newManager(t, "")
	srv := config.Server{Enabled: true, Command: "sh", Env: map[string]secret.String{"TOKEN": "s3cret"}}
	res, err := m.AddServer("gh", srv, manage.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || !res.EnabledMCP || res.Replaced || res.File != path {
		t.Errorf("result %+v", res)
	}
	got := read(t, path)
	for _, want := range []string{`"enabled": true`, `"gh"`, `"TOKEN": "s3cret"`} {
		if !strings.Contains(got, want) {
			t.Errorf("file lacks %s:\n%s", want, got)
		}
	}
	ownertest.Private(t, path)
	// The second server does not touch tools.mcp.enabled.
	res, err = m.AddServer("fs", config.Server{Enabled: true, Command: "sh"}, manage.AddOptions{})
	if err != nil || res.EnabledMCP || res.Created || res.Backup != path+".bak" {
		t.Errorf("second add: %+v, %v", res, err)
	}
}

func TestAddServerExisting(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{"a":{"enabled":true,"command":"sh"}}}}}`)
	a := config.Server{Enabled: true, Command: "true"}
	var ee *manage.ExistsError
	if _, err := m.AddServer("a", a, manage.AddOptions{}); !errors.As(err, &ee) || ee.Name != "a" || ee.File != path {
		t.Fatalf("add over an existing name: %v; want an *ExistsError", err)
	}
	asked := ""
	_, err := m.AddServer("a", a, manage.AddOptions{Confirm: func(name, file string) bool { asked = name + "@" + file; return false }})
	if !errors.As(err, &ee) || asked != "a@"+path {
		t.Fatalf("declined confirmation: %v (asked %q)", err, asked)
	}
	if strings.Contains(read(t, path), `"true"`) {
		t.Fatal("a refused replacement was written")
	}
	res, err := m.AddServer("a", a, manage.AddOptions{Confirm: func(string, string) bool { return true }})
	if err != nil || !res.Replaced || !strings.Contains(read(t, path), `"command":"true"`) {
		t.Fatalf("confirmed replacement: %+v, %v\n%s", res, err, read(t, path))
	}
}

// A write from a stale view (IfVersion) or over a change made since the
// transaction read the file is refused: nothing is overwritten.
func TestConcurrentChangeRefused(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{}}}}`)
	tx, err := m.Begin()
	if err != nil {
		t.Fatal(err)
	}
	stale := tx.Version()
	if _, err := m.AddServer("other", config.Server{Enabled: true, Command: "sh"}, manage.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	var ce *manage.ConflictError
	if _, err := m.AddServer("mine", config.Server{Enabled: true, Command: "sh"}, manage.AddOptions{WriteOptions: manage.WriteOptions{IfVersion: stale}}); !errors.As(err, &ce) {
		t.Errorf("add with a stale version: %v; want a *ConflictError", err)
	}
	if err := tx.SetServer("mine", config.Server{Enabled: true, Command: "sh"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); !errors.As(err, &ce) {
		t.Errorf("commit over a newer file: %v; want a *ConflictError", err)
	}
	if got := read(t, path); strings.Contains(got, "mine") || !strings.Contains(got, "other") {
		t.Errorf("file after the refused writes:\n%s", got)
	}
}

func TestAddServerInvalid(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{}}}}`)
	before := read(t, path)
	_, err := m.AddServer("r", config.Server{Enabled: true, URL: "ftp://x", Env: map[string]secret.String{"K": "v"}}, manage.AddOptions{})
	var inv *manage.InvalidError
	if !errors.As(err, &inv) || len(inv.Problems) == 0 {
		t.Fatalf("invalid server: %v; want an *InvalidError with problems", err)
	}
	paths := map[string]bool{}
	for _, p := range inv.Problems {
		paths[p.Path] = true
	}
	if !paths["tools.mcp.servers.r.url"] || !paths["tools.mcp.servers.r.env"] {
		t.Errorf("problems %v lack the url and env paths", inv.Problems)
	}
	if read(t, path) != before {
		t.Error("an invalid edit was written")
	}
}

func TestRemoveServer(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{"a":{"enabled":true,"command":"sh"},"b":{"enabled":true,"command":"sh"}}}}}`)
	var nf *manage.NotFoundError
	if _, err := m.RemoveServer("zz", manage.WriteOptions{}); !errors.As(err, &nf) || strings.Join(nf.Configured, ",") != "a,b" {
		t.Fatalf("remove of an unknown name: %v", err)
	}
	if _, err := m.RemoveServer("a", manage.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); strings.Contains(got, `"a"`) || !strings.Contains(got, `"b"`) {
		t.Errorf("after removing a:\n%s", got)
	}
	empty, _ := newManager(t, "")
	if _, err := empty.RemoveServer("a", manage.WriteOptions{}); !errors.As(err, &nf) || nf.FileExists {
		t.Errorf("remove with no file: %v", err)
	}
}

func TestImport(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"servers":{"fs":{"enabled":true,"command":"sh"}}}}}`)
	claude := []byte(`{"mcpServers":{"fs":{"command":"node"},"gh":{"command":"gh-mcp","env":{"T":"x"}}}}`)
	res, err := m.Import(claude, "", manage.ImportOptions{})
	var ee *manage.ExistsError
	if !errors.As(err, &ee) || strings.Join(res.Clashes, ",") != "fs" {
		t.Fatalf("import over an existing name: %v, clashes %v", err, res.Clashes)
	}
	if strings.Contains(read(t, path), "gh-mcp") {
		t.Fatal("a refused import was (partly) written")
	}
	res, err = m.Import(claude, "", manage.ImportOptions{Replace: true})
	if err != nil || res.Format != "claude" || strings.Join(res.Names, ",") != "fs,gh" || res.EnabledMCP {
		t.Fatalf("import with Replace: %+v, %v", res, err)
	}
	if got := read(t, path); !strings.Contains(got, `"command":"node"`) || !strings.Contains(got, "gh-mcp") {
		t.Errorf("file after import:\n%s", got)
	}
}

func TestNotEditable(t *testing.T) {
	m, _ := newManager(t, `{"tools": {"mcp": `)
	var ne *manage.NotEditableError
	if _, err := m.AddServer("a", config.Server{Enabled: true, Command: "sh"}, manage.AddOptions{}); !errors.As(err, &ne) || !ne.Invalid {
		t.Errorf("add to a file that is not JSON: %v; want a *NotEditableError", err)
	}
}

func TestLoadDemoFallback(t *testing.T) {
	home := t.TempDir()
	m := manage.New(manage.Options{Home: home, Environ: []string{"HOME=" + home}, DemoCommand: []string{"/bin/plughost", "demo-server"}})
	l, err := m.Load()
	if err != nil {
		t.Fatal(err)
	}
	demo, ok := l.Config.MCP.Servers["demo"]
	if !l.Demo || !l.Config.MCP.Enabled || !ok || demo.Command != "/bin/plughost" || strings.Join(demo.Args, " ") != "demo-server" {
		t.Errorf("no user config: Demo %v, config %+v", l.Demo, l.Config.MCP)
	}
	// An explicit file, even a missing one, is never replaced by the demo.
	explicit := manage.New(manage.Options{Home: home, UserFile: filepath.Join(home, "nope.json"), DemoCommand: []string{"x"}})
	if _, err := explicit.Load(); err == nil {
		t.Error("a missing explicit config file loaded (as the demo?)")
	}
	// Without a demo command there is no fallback.
	plain, _ := newManager(t, "")
	if l, err := plain.Load(); err != nil || l.Demo || len(l.Config.MCP.Servers) != 0 {
		t.Errorf("no demo command: %+v, %v", l, err)
	}
}

// Reload applies the file to a running host; a file with a global problem
// is refused and the host keeps its config.
func TestReload(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":false}}}`)
	l, err := m.Load()
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l.Loaded, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"tools":{"mcp":{"enabled":false,"max_inline_text_chars":1000}}}`)
	res, err := m.Reload(h)
	if err != nil || strings.Join(res.Settings, ",") != "tools.mcp.max_inline_text_chars" || h.Config().MCP.MaxInlineTextChars != 1000 {
		t.Fatalf("reload: %+v, %v", res, err)
	}
	write(`{"tools":{"mcp":{"enabled":false,"max_inline_text_chars":10}}}`)
	var invalid *host.InvalidConfigError
	if _, err := m.Reload(h); !errors.As(err, &invalid) {
		t.Fatalf("reload of an invalid file: %v", err)
	}
	if h.Config().MCP.MaxInlineTextChars != 1000 || h.LastApply().OK {
		t.Errorf("after a refused reload: budget %d, last apply %+v", h.Config().MCP.MaxInlineTextChars, h.LastApply())
	}
}

// A FileWatch reports a rename over the file (how editors and plughost
// write) once, after the writes settle; other files in the directory do not
// count.
func TestFileWatch(t *testing.T) {
	m, path := newManager(t, `{}`)
	w, err := m.WatchFile(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 10)
	go w.Run(t.Context(), func() { changed <- struct{}{} })
	write := func(name, content string) {
		tmp := filepath.Join(filepath.Dir(path), "."+name+".tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(filepath.Dir(path), name)); err != nil {
			t.Fatal(err)
		}
	}
	quiet := func(what string) {
		select {
		case <-changed:
			t.Errorf("%s was reported", what)
		case <-time.After(300 * time.Millisecond):
		}
	}
	write("other.json", `{}`)
	quiet("a change of another file")
	for i := 1; i <= 5; i++ { // a burst: one report
		write("config.json", `{"n":`+string(rune('0'+i))+`}`)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the burst was not reported")
	}
	quiet("a burst of writes more than once")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the removal was not reported")
	}
}

// Writers without a version that change different things at once — servers
// added, a server disabled, two settings — all succeed, and every change is
// in the file at the end: a write overtaken by another is made again on
// the new file.
func TestConcurrentWritesWithoutVersion(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{"old":{"enabled":true,"command":"sh"}}}}}`)
	const writers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+2)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				if _, err := m.AddServer(name, config.Server{Enabled: true, Command: "sh"}, manage.AddOptions{}); err != nil {
					errs <- fmt.Errorf("add %s: %w", name, err)
				}
			}
		})
	}
	wg.Go(func() {
		if _, err := m.SetEnabled("old", false, manage.WriteOptions{}); err != nil {
			errs <- fmt.Errorf("disable old: %w", err)
		}
	})
	wg.Go(func() {
		if _, err := m.UpdateSettings(json.RawMessage(`{"discovery":{"ttl":9}}`), manage.WriteOptions{}); err != nil {
			errs <- fmt.Errorf("set ttl: %w", err)
		}
		if _, err := m.UpdateSettings(json.RawMessage(`{"max_inline_text_chars":4000}`), manage.WriteOptions{}); err != nil {
			errs <- fmt.Errorf("set max_inline_text_chars: %w", err)
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	l, err := m.Load()
	if err != nil {
		t.Fatal(err)
	}
	mcp := l.Config.MCP
	for w := range writers {
		for i := range each {
			if _, ok := mcp.Servers[fmt.Sprintf("w%d-%d", w, i)]; !ok {
				t.Errorf("w%d-%d is not in the file", w, i)
			}
		}
	}
	if mcp.Servers["old"].Enabled || mcp.Discovery.TTL != 9 || mcp.MaxInlineTextChars != 4000 {
		t.Errorf("a change is missing: old %+v, ttl %d, inline %d\n%s", mcp.Servers["old"], mcp.Discovery.TTL, mcp.MaxInlineTextChars, read(t, path))
	}
}

// A write without a version that was overtaken is made again on the new
// file when the change in between touched something else; when it touched
// the same server, that is a conflict: nothing is written, the other
// change stays, and the error names the server's JSON path.
func TestConflictIsTheSameKey(t *testing.T) {
	const start = `{"tools":{"mcp":{"enabled":true,"servers":{"a":{"enabled":true,"command":"sh"},"b":{"enabled":true,"command":"sh"}}}}}`
	// handEdit returns a confirmation that edits the file as an editor
	// would (no lock) while the add waits for the answer, then says yes.
	handEdit := func(path, from, to string, asked *int) func(string, string) bool {
		return func(string, string) bool {
			*asked++
			if err := os.WriteFile(path, []byte(strings.Replace(read(t, path), from, to, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	replacement := config.Server{Enabled: true, Command: "true"}

	m, path := newManager(t, start)
	asked := 0
	if _, err := m.AddServer("a", replacement, manage.AddOptions{Confirm: handEdit(path, `"b":{"enabled":true`, `"b":{"enabled":false`, &asked)}); err != nil {
		t.Fatalf("replace a while b is edited: %v", err)
	}
	if got := read(t, path); !strings.Contains(got, `"b":{"enabled":false`) || !strings.Contains(got, `"command":"true"`) || asked != 1 {
		t.Errorf("after replacing a while b was edited (asked %d times):\n%s", asked, got)
	}

	m, path = newManager(t, start)
	asked = 0
	_, err := m.AddServer("a", replacement, manage.AddOptions{Confirm: handEdit(path, `"a":{"enabled":true`, `"a":{"enabled":false`, &asked)})
	var ce *manage.ConflictError
	if !errors.As(err, &ce) || ce.Key != "tools.mcp.servers.a" || !strings.Contains(err.Error(), "tools.mcp.servers.a was changed by someone else") {
		t.Fatalf("replace a while a is edited: %v; want a conflict on tools.mcp.servers.a", err)
	}
	if got := read(t, path); !strings.Contains(got, `"a":{"enabled":false`) || strings.Contains(got, `"true"`) {
		t.Errorf("after the conflict:\n%s", got)
	}
}
