//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plughost/plughost/host/termsafe"
)

// terminalEscapes runs the CLI against a serve of a server that writes
// terminal escapes (testserver -escapes: a colour code, an OSC title, an
// 8-bit CSI, a bare carriage return) into its stderr, its name, a tool's
// description, result and JSON-RPC error, and of one whose failure quotes
// them, and checks that no output — human or --json, nor the serve log —
// holds a byte a terminal would act on, while the server's text is still
// shown (its escapes written out).
func (s *suite) terminalEscapes() error {
	servers := map[string]any{
		"esc":     s.stdio("-escapes", "-name", "srv\x1b]0;name-title\x07"),
		"escfail": s.stdio("-escapes", "-fail-start"),
	}
	sv, err := s.startServe("terminal-escapes", serveOptions{servers: servers})
	if err != nil {
		return err
	}
	if _, err := sv.waitServers(60*time.Second, "esc up, escfail failed", func(v map[string]serverView) bool {
		return v["esc"].State == "connected" && v["escfail"].LastError != ""
	}); err != nil {
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
	s.check("terminal-escapes", "CLI output", "no raw ESC/BEL/CR/C1/8-bit CSI in any output; the server's text shown, escapes written out",
		fmt.Sprintf("%d commands (show, list, test, tools, search, call; text and --json): raw controls in %d%s; text not shown in %d%s",
			len(runs), len(raw), ifNotEmpty(": ", strings.Join(raw, ", ")), len(missing), ifNotEmpty(": ", strings.Join(missing, ", "))),
		len(raw) == 0 && len(missing) == 0)
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
