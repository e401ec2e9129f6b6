package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testbin"
)

// TestClientScenariosCLI runs the suite's auth client scenarios with
// plughost as the client through its command line alone (the adapter in
// ./cliclient: `mcp add` with the oauth flags, `mcp login`, `tools`, and
// `call` on a terminal, logging in again when call offers it). All 14 must
// pass with a non-zero check count and no warning, as through the library.
func TestClientScenariosCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite (Node) and plughost processes: heavy integration test, skipped under -short")
	}
	cli, nodeBin, err := suite()
	if err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: the MCP conformance suite is unavailable: %v ***\n\n", t.Name(), err)
		t.Skipf("the MCP conformance suite is unavailable: %v", err)
	}
	if _, err := exec.LookPath("script"); err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: script(1) (util-linux), which gives plughost call a terminal, is missing ***\n\n", t.Name())
		t.Skip("script(1) is missing")
	}
	set, err := testbin.Build(map[string]string{
		"cliclient":                  "./internal/conformance/cliclient",
		"plughost":                   "./cmd/host",
		"plugins/mcp-transport-http": "./plugins/http",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(set.Dir)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results, log, runErr := runClientSuite(ctx, t, cli, nodeBin, set.Path("cliclient"), "--suite", "auth")
	t.Logf("auth client scenarios through the plughost command (conformance suite exit: %v):\n%s", runErr, table(results))
	wantPassed(t, results, authScenarios, log)
}
