package config

import (
	"os"
	"strings"
	"testing"

	"github.com/plughost/plughost/internal/wine"
)

// TestModeWarning opens the user file to other users or keeps it to its
// owner (setAccess: mode bits on Unix, an ACL on Windows) and checks the
// warning and its fix for this system.
func TestModeWarning(t *testing.T) {
	withEnv := `{"tools":{"mcp":{"servers":{"gh":{"enabled":true,"command":"x","env":{"T":"s3cret"}}}}}}`
	for _, c := range []struct {
		name    string
		content string
		mode    os.FileMode
		warn    bool
	}{
		{"0644 with an env value", withEnv, 0o644, true},
		{"0640 with a header", `{"tools":{"mcp":{"servers":{"r":{"enabled":true,"url":"https://h/mcp","headers":{"A":"b"}}}}}}`, 0o640, true},
		{"0644 with a url password", `{"tools":{"mcp":{"servers":{"r":{"enabled":true,"url":"https://u:pw@h/mcp"}}}}}`, 0o644, true},
		{"0644 with a url query", `{"tools":{"mcp":{"servers":{"r":{"enabled":true,"url":"https://h/mcp?key=k"}}}}}`, 0o644, true},
		{"0644 with an oauth client secret", `{"tools":{"mcp":{"servers":{"r":{"enabled":true,"url":"https://h/mcp","oauth":{"client_secret":"cs"}}}}}}`, 0o644, true},
		{"0600 with an env value", withEnv, 0o600, false},
		{"0644 without secrets", `{"tools":{"mcp":{"servers":{"fs":{"enabled":true,"command":"x"}}}}}`, 0o644, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t)
			writeFile(t, e.user, c.content)
			setAccess(t, e.user, c.mode)
			ld := mustLoad(t, e.opts())
			got := strings.Join(ld.Warnings, "\n")
			if strings.Contains(got, "s3cret") {
				t.Errorf("the warning shows the secret: %q", got)
			}
			// Under wine every file shows as readable by \Everyone, so the
			// exposed cases check the warning's Windows wording there, not
			// the ACL setAccess set, and the restricted one cannot pass.
			if !c.warn && c.mode&0o077 == 0 && wine.Running() {
				t.Skip("SKIP the check that a file kept to its owner draws no warning: wine derives a file's ACL from its Unix mode bits (which it creates 0644, so \\Everyone may read) and keeps none set on it")
			}
			if c.warn != (got != "") {
				t.Fatalf("warnings = %q, want a warning: %v", got, c.warn)
			}
			if c.warn && (!strings.Contains(got, e.user) || !strings.Contains(got, wantFix(e.user))) {
				t.Errorf("warning %q does not name the file and %q", got, wantFix(e.user))
			}
		})
	}
}
