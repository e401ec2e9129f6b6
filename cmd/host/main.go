// Command plughost connects AI agents to MCP servers: it runs every configured
// server behind its own transport plugin, exposes their tools under
// `mcp_<server>_<tool>` names, and manages the configuration.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/plughost/plughost/lib/termsafe"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	err := newRootCommand(os.Stdout, os.Stderr).Execute()
	os.Exit(exitCode(err))
}

// usageError marks a mistake in how the command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// flaggedError says a check ran and found something (exit code 3): mcp
// scan flagged a tool. Its output says what.
type flaggedError struct{ msg string }

func (e *flaggedError) Error() string { return e.msg }

// exitCode maps an error to the documented exit codes: 0 ok, 1 failure, 2
// usage, 3 flagged by mcp scan.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "plughost:", termsafe.Text(err.Error())) // errors quote servers
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	var fe *flaggedError
	if errors.As(err, &fe) {
		return 3
	}
	return 1
}
