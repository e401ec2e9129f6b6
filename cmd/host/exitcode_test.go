//go:build unix

package main_test

import (
	"strings"
	"testing"
)

// Exit codes are 0 ok, 1 failure, 2 usage (run on the demo config).
func TestExitCodes(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings
		stderr     []string // substrings
		noDemoNote bool     // usage errors are reported before any config is read
	}{
		{
			name: "ok",
			args: []string{"call", "mcp_demo_echo", `{"text":"ok"}`},
			code: 0, stdout: []string{"ok"},
		},
		{
			name: "unknown tool names the closest ones",
			args: []string{"call", "mcp_demo_ecoh", `{"text":"x"}`},
			code: 1, stderr: []string{`unknown tool "mcp_demo_ecoh"`, "closest names", "mcp_demo_echo"},
		},
		{
			name: "tool error result",
			args: []string{"call", "mcp_demo_calculate", `{"expression":"1/0"}`},
			code: 1, stdout: []string{"division by zero"}, stderr: []string{"mcp_demo_calculate reported an error"},
		},
		{
			name: "invalid JSON arguments",
			args: []string{"call", "mcp_demo_echo", `{"text":`},
			code: 2, stderr: []string{"not valid JSON"}, noDemoNote: true,
		},
		{
			name: "missing argument",
			args: []string{"mcp", "show"},
			code: 2, stderr: []string{"plughost mcp show takes 1 argument(s), got 0"}, noDemoNote: true,
		},
		{
			name: "too many arguments",
			args: []string{"call", "mcp_demo_echo", "{}", "extra"},
			code: 2, stderr: []string{"got 3"}, noDemoNote: true,
		},
		{
			name: "unknown flag",
			args: []string{"mcp", "list", "--bogus"},
			code: 2, stderr: []string{"unknown flag: --bogus"}, noDemoNote: true,
		},
		{
			name: "mcp without subcommand",
			args: []string{"mcp"},
			code: 2, stderr: []string{"mcp needs a subcommand"}, noDemoNote: true,
		},
		{
			name: "unknown subcommand of mcp",
			args: []string{"mcp", "lst"},
			code: 2, noDemoNote: true,
		},
		{
			name: "unknown command",
			args: []string{"tool"},
			code: 2, stderr: []string{`unknown command "tool"`, "tools"}, noDemoNote: true,
		},
		{
			name: "unknown log level",
			args: []string{"--log-level", "loud", "mcp", "list"},
			code: 2, stderr: []string{"--log-level", "loud"}, noDemoNote: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := c.run(t, tt.args...)
			if r.code != tt.code {
				t.Errorf("want exit %d, got %s", tt.code, r)
			}
			wantContains(t, "stdout", r.stdout, tt.stdout...)
			wantContains(t, "stderr", r.stderr, tt.stderr...)
			if tt.noDemoNote && strings.Contains(r.stderr, demoNotice) {
				t.Errorf("a usage error should be reported before the config is loaded:\n%s", r)
			}
		})
	}
}
