//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plughost/plughost/lib/termsafe"
)

// terminalEscapes runs the CLI against a serve of a server that writes
// terminal escapes (testserver -escapes: a colour code, an OSC title, an
// 8-bit CSI, a bare carriage return) into its stderr, its name, a tool's
// description, result and JSON-RPC error, and of one whose failure quotes
// them, and checks that no output — human or --json, nor the serve log —
// holds a byte a terminal would act on, while the server's text is still
// shown (its escapes written out).
//
// escfail fails once and then waits escapesRetryHold before its restart,
// so every command sees it in error with its last error: during a restart
// it would read "connecting", with no server text to check.
func (s *suite) terminalEscapes() error {
	servers := map[string]any{
		"esc":     s.stdio("-escapes", "-name", "srv\x1b]0;name-title\x07"),
		"escfail": s.stdio("-escapes", "-fail-start"),
	}
	hold := map[string]any{"initial_backoff_seconds": escapesRetryHold.Seconds(), "max_backoff_seconds": escapesRetryHold.Seconds()}
	sv, err := s.startServe("terminal-escapes", serveOptions{servers: servers, mcp: map[string]any{"restart": hold}})
	if err != nil {
		return err
	}
	before, err := sv.waitServers(60*time.Second, "esc up, escfail in error quoting its stderr", func(v map[string]serverListing) bool {
		return v["esc"].State == "connected" && v["escfail"].State == "error" && strings.Contains(v["escfail"].LastError, "RED")
	})
	if err != nil {
		return err
	}
	const shown = `\x1b[31mRED` // the colour code, written out
	runs := []struct {
		args []string
		want bool // the human output shows the server's text
	}{
		{[]string{"mcp", "show", "esc"}, true}, {[]string{"mcp", "show", "escfail"}, true},
		{[]string{"mcp", "list"}, true}, {[]string{"mcp", "test", "escfail"}, true},
		{[]string{"tools"}, true}, {[]string{"search", "query", "terminal escapes"}, true},
		{[]string{"call", "mcp_esc_escapes"}, true}, {[]string{"call", "mcp_esc_escapes_error"}, true},
		{[]string{"mcp", "show", "esc", "--json"}, false}, {[]string{"mcp", "list", "--json"}, false},
		{[]string{"tools", "--json"}, false}, {[]string{"call", "mcp_esc_escapes", "--json"}, false},
	}
	var raw, missing []string
	for i, r := range runs {
		name := strings.Join(r.args, " ")
		out, err := s.cliOutput(sv, filepath.Join(sv.dir, fmt.Sprintf("cli-%02d.out", i)), r.args...)
		if err != nil {
			return err
		}
		if termsafe.Text(out) != out {
			raw = append(raw, name)
		}
		if r.want && !strings.Contains(out, shown) {
			missing = append(missing, name)
		}
	}
	held, err := sv.stillFailed("escfail", before["escfail"])
	if err != nil {
		return err
	}
	s.check("terminal-escapes", "CLI output", "no raw ESC/BEL/CR/C1/8-bit CSI in any output; the server's text shown, escapes written out",
		fmt.Sprintf("%d commands (show, list, test, tools, search, call; text and --json): raw controls in %d%s; text not shown in %d%s; %s",
			len(runs), len(raw), ifNotEmpty(": ", strings.Join(raw, ", ")), len(missing), ifNotEmpty(": ", strings.Join(missing, ", ")), held),
		len(raw) == 0 && len(missing) == 0 && strings.HasPrefix(held, "escfail in error throughout"))
	sv.stop() // the log is complete
	log, err := os.ReadFile(sv.log)
	if err != nil {
		return err
	}
	s.check("terminal-escapes", "serve log", "no raw control characters; escfail's error shown, escapes written out",
		fmt.Sprintf("%d bytes; raw controls: %v; escfail's error with %s: %v", len(log), termsafe.Text(string(log)) != string(log),
			shown, strings.Contains(string(log), shown)),
		termsafe.Text(string(log)) == string(log) && strings.Contains(string(log), shown))
	return nil
}

// escapesRetryHold is escfail's restart backoff in the terminal-escapes
// case: far longer than the case runs.
const escapesRetryHold = time.Hour

// stillFailed says whether the named server is still in the error it was
// in before (same restart count), as the phrase the check prints.
func (sv *serve) stillFailed(name string, before serverListing) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now, err := sv.servers(ctx)
	if err != nil {
		return "", err
	}
	after := now[name]
	if after.State != "error" || after.Restarts != before.Restarts {
		return fmt.Sprintf("%s left its error during the commands (now %s, restarts %d → %d), so they may not have seen it",
			name, after.State, before.Restarts, after.Restarts), nil
	}
	return fmt.Sprintf("%s in error throughout (restarts %d)", name, after.Restarts), nil
}
