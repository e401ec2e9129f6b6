package chat_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/chat"
	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/fakeopenai"
	"github.com/plughost/plughost/internal/testbin"
)

// bins holds the stdio plugin and the test server, built once.
var bins testbin.Set

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testbin.Main(m, &bins, func() (testbin.Set, error) {
		return testbin.Build(map[string]string{
			"plugins/mcp-transport-stdio": "./plugins/stdio",
			"testserver":                  "./internal/testserver",
		})
	}))
}

// startHost starts a host with the test server as server "test" (real
// plugin and server processes), mcp holding extra tools.mcp settings.
func startHost(t *testing.T, mcp map[string]any, serverArgs ...string) *host.Host {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the stdio plugin and the test server: heavy integration test, skipped under -short")
	}
	dir := t.TempDir()
	cfg := map[string]any{
		"enabled":   true,
		"workspace": filepath.Join(dir, "workspace"),
		"servers": map[string]any{"test": map[string]any{
			"enabled": true, "command": bins.Path("testserver"), "args": serverArgs}},
	}
	for k, v := range mcp {
		cfg[k] = v
	}
	raw, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": cfg}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "config.json"), UserData: raw,
		AllowMissing: true, SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir, PluginDirs: []string{bins.PluginDir()},
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatalf("servers did not settle: %v (%+v)", err, h.Statuses())
	}
	return h
}

// events records a chat's events. Safe for concurrent use.
type events struct {
	mu   sync.Mutex
	list []chat.Event
	// on, if set, sees each event as it comes.
	on func(chat.Event)
}

func (e *events) Observe(ev chat.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	on := e.on
	e.mu.Unlock()
	if on != nil {
		on(ev)
	}
}

// of returns the events of a type.
func (e *events) of(typ string) []chat.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []chat.Event
	for _, ev := range e.list {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// client is a chat client of the scripted server.
func client(s *fakeopenai.Server, stream bool) *chat.Client {
	return &chat.Client{BaseURL: s.URL, Model: "scripted", Stream: stream}
}

// ask runs one message with a bound.
func ask(t *testing.T, a *chat.Agent, text string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return a.Ask(ctx, text)
}

// both runs f once against a streaming endpoint and once against one that
// answers whole.
func both(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{true, false} {
		name := "whole"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}

// offered reports whether a request offered a tool.
func offered(r fakeopenai.Request, name string) bool { return slices.Contains(r.Tools, name) }

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line number ")
		b.WriteString(strings.Repeat("·", 3))
		b.WriteString(" ")
		b.WriteString(itoa(i))
		b.WriteString("\n")
	}
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
