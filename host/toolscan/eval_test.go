package toolscan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/internal/testbin"
)

// evalTool is one tool of the shared benchmark (../shared/eval/tools.json).
type evalTool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// evalDefinitions returns the benchmark's tools as MCP definitions; it
// skips the test loudly when the data is absent.
func evalDefinitions(tb testing.TB) []json.RawMessage {
	dir, err := testbin.SharedPath("PLUGHOST_EVAL_DIR", "eval")
	var data []byte
	if err == nil {
		data, err = os.ReadFile(filepath.Join(dir, "tools.json"))
	}
	if err != nil {
		tb.Skipf("SKIPPED: no benchmark data: %v", err)
	}
	var tools []evalTool
	if err := json.Unmarshal(data, &tools); err != nil {
		tb.Fatalf("tools.json: %v", err)
	}
	defs := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		def, err := json.Marshal(map[string]any{"server": t.Server, "name": t.Name, "description": t.Description, "inputSchema": t.InputSchema})
		if err != nil {
			tb.Fatal(err)
		}
		defs[i] = def
	}
	return defs
}
