//go:build unix

package main_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runTTY runs plughost on a pseudo-terminal (util-linux script), typing
// input, and returns everything the terminal showed and the exit code.
func (c *cli) runTTY(t *testing.T, env []string, input string, args ...string) (string, int) {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to provide a terminal")
	}
	line := filepath.Join(bins, "plughost")
	for _, a := range args {
		line += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", line, "/dev/null")
	cmd.Env = append(c.environ(), env...)
	cmd.Dir = c.home
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The pipe stays open until plughost exits, so the terminal never
	// reports end of input before the answer is read.
	_, _ = io.WriteString(stdin, input)
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("timed out:\n%s", out.String())
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), 0
}

func TestMCPInteractive(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	if r := c.run(t, "mcp", "add", "a", "--", "node", "first.js"); r.code != 0 {
		t.Fatalf("mcp add: %s", r)
	}

	out, code := c.runTTY(t, nil, "n\n", "mcp", "add", "a", "--", "node", "second.js")
	if code != 1 || !strings.Contains(out, `Server "a" already exists`) || !strings.Contains(out, `left as it was`) {
		t.Errorf("answer n: exit %d\n%s", code, out)
	}
	if got := servers(t, c.userConfig())["a"]["args"]; len(got.([]any)) != 1 || got.([]any)[0] != "first.js" {
		t.Errorf("answer n changed the server: %v", got)
	}
	out, code = c.runTTY(t, nil, "y\n", "mcp", "add", "a", "--", "node", "second.js")
	if code != 0 || !strings.Contains(out, `Replaced server "a"`) {
		t.Errorf("answer y: exit %d\n%s", code, out)
	}
	if got := servers(t, c.userConfig())["a"]["args"].([]any)[0]; got != "second.js" {
		t.Errorf("answer y did not replace the server: %v", got)
	}

	// An invalid edit offers to re-open the editor with the text kept; the
	// second round fixes it.
	count := filepath.Join(t.TempDir(), "rounds")
	ed := editorScript(t, `n=$(cat `+count+` 2>/dev/null || echo 0); echo $((n+1)) > `+count+`
if [ "$n" = 0 ]; then sed -i 's/"enabled": true,/"enabled": "yes",/' "$1"; exit 0; fi
grep -q '"enabled": "yes"' "$1" || exit 5
sed -i 's/"enabled": "yes",/"enabled": true,/; s/second.js/third.js/' "$1"
`)
	out, code = c.runTTY(t, []string{"EDITOR=" + ed}, "\n", "mcp", "edit")
	if code != 0 {
		t.Fatalf("mcp edit: exit %d\n%s", code, out)
	}
	for _, want := range []string{"nothing was written", "Re-open the editor? [Y/n]", "Saved"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(count); strings.TrimSpace(string(b)) != "2" {
		t.Errorf("editor ran %q times, want 2", b)
	}
	if got := servers(t, c.userConfig())["a"]["args"].([]any)[0]; got != "third.js" {
		t.Errorf("the fixed edit was not saved: %v", got)
	}
}
