package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The one server-name rule: what it accepts, and for what it refuses a
// message saying what is wrong and a name that would do.
func TestServerNameRule(t *testing.T) {
	for _, name := range []string{"a", "gh", "my.server", "my-server_2", "GitHub", "0day", strings.Repeat("x", ServerNameMaxLen)} {
		if msg := CheckServerName(name); msg != "" {
			t.Errorf("CheckServerName(%q) = %q; want it accepted", name, msg)
		}
	}
	rule := `use only letters, digits, "_", "-" and "." (ASCII), starting with a letter or digit, at most 64 characters`
	tests := []struct{ name, want string }{
		{"", `the server name is empty; give the server a name: ` + rule},
		{"../../x", `the server name "../../x" starts with "."; rename the server (e.g. "x"): ` + rule},
		{"my server!", `the server name "my server!" contains " "; rename the server (e.g. "my-server"): ` + rule},
		{"-x", `the server name "-x" starts with "-"; rename the server (e.g. "x"): ` + rule},
		{"a/b", `the server name "a/b" contains "/"; rename the server (e.g. "a-b"): ` + rule},
		{"ünï", `the server name "ünï" starts with "ü"; rename the server (e.g. "n"): ` + rule},
		{"a\nb", `the server name "a\nb" contains "\n"; rename the server (e.g. "a-b"): ` + rule},
		{strings.Repeat("y", 10000), `the server name "` + strings.Repeat("y", 37) + `..." is 10000 characters long; rename the server (e.g. "` + strings.Repeat("y", 64) + `"): ` + rule},
		{"...", `the server name "..." starts with "."; rename the server (e.g. "server"): ` + rule},
	}
	for _, tt := range tests {
		if got := CheckServerName(tt.name); got != tt.want {
			t.Errorf("CheckServerName(%.20q):\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// ServerNamePattern (what the dashboard's form checks) and CheckServerName
// agree on every name of the table above and on random-ish ones.
func TestServerNamePatternAgrees(t *testing.T) {
	re := regexp.MustCompile(`^(?:` + ServerNamePattern + `)$`)
	for _, name := range []string{"", "a", "my.server", "my server!", "../../x", "-x", "_x", "x_", "a.b-c_d", "ünï",
		strings.Repeat("z", ServerNameMaxLen), strings.Repeat("z", ServerNameMaxLen+1), "A9", "9A", ".", "x\n"} {
		if re.MatchString(name) != (CheckServerName(name) == "") {
			t.Errorf("%q: pattern says %v, CheckServerName says %q", name, re.MatchString(name), CheckServerName(name))
		}
	}
}

// A server whose name breaks the rule is reported with the rule, as a
// problem of that server alone: it does not start, it does not vanish, and
// the other servers are untouched.
func TestInvalidServerNameIsReported(t *testing.T) {
	ld := loadUser(t, `{"tools":{"mcp":{"servers":{"my server!":{"enabled":true,"command":"c"},"ok":{"enabled":true,"command":"c"}}}}}`)
	p := ld.Validate(ValidateOptions{})
	if len(p.Fatal) > 0 || len(p.Servers["ok"]) > 0 {
		t.Errorf("problems beyond the bad name: %v", messages(p.All()))
	}
	got := messages(p.Servers["my server!"])
	want := []string{`tools.mcp.servers["my server!"]: the server name "my server!" contains " "; rename the server (e.g. "my-server"): ` +
		`use only letters, digits, "_", "-" and "." (ASCII), starting with a letter or digit, at most 64 characters`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if _, ok := ld.Config.MCP.Servers["my server!"]; !ok {
		t.Error("the server with the bad name vanished from the config")
	}
}
