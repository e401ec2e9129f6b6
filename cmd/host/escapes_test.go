//go:build unix

package main_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// rawControls lists the bytes of s a terminal would act on: C0 controls but
// newline and tab, DEL, C1 controls (U+0080–U+009F) and bytes that are not
// UTF-8 (a lone 0x9B is CSI to an 8-bit terminal).
func rawControls(s string) []string {
	var found []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			found = append(found, fmt.Sprintf("byte %#x at %d", s[i], i))
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
			found = append(found, fmt.Sprintf("%U at %d", r, i))
		}
		i += size
	}
	return found
}

// noRawControls fails the test if r's output holds a raw control byte.
func noRawControls(t *testing.T, what string, r result) {
	t.Helper()
	if found := rawControls(r.stdout + r.stderr); len(found) > 0 {
		t.Errorf("plughost %s prints raw control characters (%s):\n%q", what, strings.Join(found, ", "), r.String())
	}
}

// escapesConfig configures a server that writes terminal escapes into its
// stderr, its name, a tool's description, result and error (esc), and one
// whose failure quotes them (escfail).
func escapesConfig() map[string]any {
	return mcpConfig(map[string]any{
		"enabled": true,
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
		"servers": map[string]any{
			"esc":     testserver("-escapes", "-name", "srv\x1b]0;name-title\x07"),
			"escfail": testserver("-escapes", "-fail-start"),
		},
	})
}

// A server's text reaches the terminal neutralised: its stderr tail, its
// last error, its name, its tools' descriptions, its errors and the results
// of `call` show terminal escapes as text (\x1b[31m…), never as the bytes a
// terminal acts on; --json output stays JSON with them escaped.
func TestServerTextIsNeutralised(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, escapesConfig())
	const shown = `\x1b[31mRED` // how the colour code must read
	for _, tc := range []struct {
		args []string
		want string // on stdout or stderr, "" for no check
	}{
		{[]string{"mcp", "show", "esc", "--wait", "30s"}, shown},
		{[]string{"mcp", "show", "escfail"}, ""},
		{[]string{"mcp", "list"}, ""},
		{[]string{"mcp", "test", "escfail"}, shown},
		{[]string{"tools"}, shown},
		{[]string{"search", "query", "terminal escapes"}, shown},
		{[]string{"call", "mcp_esc_escapes"}, shown},
		{[]string{"call", "mcp_esc_escapes_error"}, shown},
		{[]string{"mcp", "show", "esc", "--json"}, ""},
		{[]string{"mcp", "list", "--json"}, ""},
		{[]string{"tools", "--json"}, ""},
		{[]string{"call", "mcp_esc_escapes", "--json"}, ""},
	} {
		what := strings.Join(tc.args, " ")
		r := c.run(t, tc.args...)
		noRawControls(t, what, r)
		if tc.want != "" && !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("plughost %s should show the server's text with its escapes written out (%s):\n%s", what, tc.want, r)
		}
	}
}

// serve's log — its state lines quoting a server's last error, and the
// log lines at debug level — shows a server's escapes as text too.
func TestServeLogIsNeutralised(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, escapesConfig(), "--log-level", "debug")
	g.stderr.waitFor(t, 30*time.Second, "escfail's error quoting its stderr", func(s string) bool {
		return strings.Contains(s, "escfail") && strings.Contains(s, "RED")
	})
	if found := rawControls(g.stderr.String()); len(found) > 0 {
		t.Errorf("the serve log prints raw control characters (%s):\n%q", strings.Join(found, ", "), g.stderr.String())
	}
}
