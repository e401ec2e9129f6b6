package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/internal/testbin"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/pluginapi/contracttest"
	"github.com/plughost/plughost/plugins/stdio/stdiotransport"
)

// binDir holds the plugin binary and the test MCP server, built once.
var binDir string

func TestMain(m *testing.M) {
	set, err := testbin.Build(map[string]string{"mcp-transport-stdio": "./plugins/stdio", "testserver": "./internal/testserver"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build test binaries:", err)
		os.Exit(1)
	}
	binDir = set.Dir
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

func harness(t pluginapi.Transport, direct bool) contracttest.Harness {
	cfg, _ := json.Marshal(map[string]any{"command": filepath.Join(binDir, "testserver")})
	return contracttest.Harness{
		Transport: t,
		Config:    cfg,
		InvalidConfigs: []json.RawMessage{
			json.RawMessage(`{"command": ""}`),
			json.RawMessage(`{"command": "x", "headers": {"A": "b"}}`),
			json.RawMessage(`{"command": "x", "args": "not-a-list"}`),
			json.RawMessage(`not json`),
		},
		WantDirectPipes: direct,
	}
}

// TestContractInProcess runs the suite against the implementation directly.
func TestContractInProcess(t *testing.T) {
	contracttest.Run(t, harness(stdiotransport.New(nil), false))
}

// TestContractOverPlugin runs the suite against the built plugin binary, over
// go-plugin's gRPC: the relay, and the direct-pipes fast path.
func TestContractOverPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin processes: heavy integration test, skipped under -short")
	}
	for _, direct := range []bool{false, true} {
		t.Run(fmt.Sprintf("direct_pipes=%v", direct), func(t *testing.T) {
			client, err := pluginapi.NewClient(pluginapi.ClientConfig{
				Path:   filepath.Join(binDir, "mcp-transport-stdio"),
				Env:    pluginapi.BaseEnviron(os.Environ()),
				Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr}),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer client.Kill()
			d, err := client.Transport().Describe(t.Context())
			if err != nil || !d.HasFeature(pluginapi.FeatureDirectPipes) {
				t.Fatalf("Describe = %+v, %v; want the direct-pipes feature", d, err)
			}
			contracttest.Run(t, harness(client.Transport(), direct))
		})
	}
}
