package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/plughost/plughost/internal/testbin"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi/contracttest"
	"github.com/plughost/plughost/plugins/stdio/stdiotransport"
)

// testServer is the project's test MCP server, built once in TestMain.
var testServer string

func TestMain(m *testing.M) {
	set, err := testbin.Build(map[string]string{"testserver": "./internal/testserver"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build test binaries:", err)
		os.Exit(1)
	}
	testServer = set.Path("testserver")
	code := m.Run()
	os.RemoveAll(set.Dir)
	os.Exit(code)
}

// TestContract runs the suite every transport must pass against the logging
// transport in process; the host's integration tests run the built plugin.
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes: heavy integration test, skipped under -short")
	}
	cfg, _ := json.Marshal(map[string]any{"command": testServer})
	// Every message is logged (and so formatted), as in the plugin.
	logger := hclog.New(&hclog.LoggerOptions{JSONFormat: true, Output: io.Discard})
	contracttest.Run(t, contracttest.Harness{
		Transport: newTransport(stdiotransport.New(nil), logger),
		Config:    cfg,
		InvalidConfigs: []json.RawMessage{
			json.RawMessage(`{"command": ""}`),
			json.RawMessage(`{"command": "x", "log_level": "debug"}`),
			json.RawMessage(`not json`),
		},
	})
}
