package stdiotransport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"
)

// helperEnv selects a helper mode when the test binary runs as a server.
const helperEnv = "STDIOTRANSPORT_TEST_HELPER"

// TestMain lets the test binary double as a tiny MCP-ish server: with
// helperEnv set it runs that mode instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper implements the helper modes.
func runHelper(mode string) int {
	switch mode {
	case "env":
		// Print the environment as one JSON line, then echo stdin.
		env := os.Environ()
		sort.Strings(env)
		line, _ := json.Marshal(map[string]any{"env": env})
		fmt.Printf("%s\n", line)
		echo()
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// echo copies stdin lines to stdout.
func echo() {
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	for {
		line, err := r.ReadBytes('\n')
		w.Write(line)
		w.Flush()
		if err != nil {
			return
		}
	}
}
