package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi/contracttest"
	"github.com/plughost/plughost/plugins/stdio/stdiotransport"
)

// testServer is the project's test MCP server, built once in TestMain.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "logging-contract-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver")
	if msg, err := exec.Command("go", "build", "-o", testServer, "../../host/internal/testserver").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build testserver: %v\n%s", err, msg)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestContract runs the suite every transport must pass against the logging
// transport in process; the host's integration tests run the built plugin.
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
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
