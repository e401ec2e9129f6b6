package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/listenurl"
	"github.com/plughost/plughost/internal/testbin"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/pluginapi/contracttest"
)

// binDir holds the sse and http plugins and the test MCP server, built once.
var binDir string

func TestMain(m *testing.M) {
	set, err := testbin.Build(map[string]string{
		"mcp-transport-sse":  "./plugins/sse",
		"mcp-transport-http": "./plugins/http",
		"testserver":         "./internal/testserver",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build test binaries:", err)
		os.Exit(1)
	}
	binDir = set.Dir
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// remoteServer is a test MCP server process serving kind on loopback.
type remoteServer struct {
	URL string
}

// startServer runs the test server with -serve kind and returns its URL. The
// process is killed when the test ends. A server the contract suite crashes
// ("crash" tool) is restarted on demand by the next startServer.
func startServer(t testing.TB, kind string, extra ...string) *remoteServer {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "testserver"), append([]string{"-serve", kind}, extra...)...)
	cmd.Stderr = os.Stderr
	url, stop, err := listenurl.Start(cmd, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return &remoteServer{URL: url}
}

func harness(t *testing.T, tr pluginapi.Transport, kind string) contracttest.Harness {
	srv := startServer(t, kind)
	cfg, _ := json.Marshal(map[string]any{"url": srv.URL, "headers": map[string]string{"X-Api-Key": "k"}})
	return contracttest.Harness{
		Transport: tr,
		Config:    cfg,
		InvalidConfigs: []json.RawMessage{
			json.RawMessage(`{"url": ""}`),
			json.RawMessage(`{"url": "ftp://example.com/mcp"}`),
			json.RawMessage(`{"url": "http://127.0.0.1:1/mcp", "command": "npx"}`),
			json.RawMessage(`{"url": "http://127.0.0.1:1/mcp", "headers": {"X": 1}}`),
		},
	}
}

// TestContract runs the suite for both kinds, in process and over the plugin
// binary (go-plugin gRPC relay).
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server and plugin processes: heavy integration test, skipped under -short")
	}
	for _, kind := range []string{KindSSE, KindHTTP} {
		t.Run(kind+"/in-process", func(t *testing.T) {
			contracttest.Run(t, harness(t, New(kind, nil, nil), kind))
		})
		t.Run(kind+"/plugin", func(t *testing.T) {
			client, err := pluginapi.NewClient(pluginapi.ClientConfig{
				Path:   filepath.Join(binDir, "mcp-transport-"+kind),
				Env:    pluginapi.BaseEnviron(os.Environ()),
				Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr}),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer client.Kill()
			contracttest.Run(t, harness(t, client.Transport(), kind))
		})
	}
}
