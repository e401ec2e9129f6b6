package gateway_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plughost/plughost/host"
)

// pagingCall calls read_file or search_files and returns the result's text
// and isError.
func pagingCall(t *testing.T, c *rawClient, name string, args map[string]any) (string, bool) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return resultText(t, c.request(4, "tools/call", `{"name":"`+name+`","arguments":`+string(raw)+`}`).msg(t))
}

// Two named clients scoped to different servers each get an oversized
// result saved: each pages its own, neither can read or find the other's
// (the refusal is that of a missing file), and the administrator reads
// both.
func TestClientArtifactsApart(t *testing.T) {
	integration(t)
	ws := t.TempDir()
	tokenA, digestA := host.NewClientToken()
	tokenB, digestB := host.NewClientToken()
	h := startHost(t, map[string]any{
		"a": testserver(map[string]any{"deferred": false}, "-faithful", "-name", "a"),
		"b": testserver(map[string]any{"deferred": false}, "-faithful", "-name", "b"),
	}, func(m map[string]any) {
		m["workspace"] = ws
		m["max_inline_text_chars"] = 1000
		m["gateway"] = map[string]any{"clients": map[string]any{
			"ca": map[string]any{"token_sha256": digestA, "servers": []string{"a"}},
			"cb": map[string]any{"token_sha256": digestB, "servers": []string{"b"}},
		}}
	})
	url, _ := serveHTTP(t, h)
	admin := newRaw(t, url)
	admin.initialize()
	ca, cb := newRaw(t, url), newRaw(t, url)
	ca.token, cb.token = tokenA, tokenB
	ca.initialize()
	cb.initialize()

	fileRef := regexp.MustCompile(`\[file:([^\]]+)\]`)
	save := func(c *rawClient, tool, marker string) string {
		t.Helper()
		got := callText(t, c, tool, `{"text":"`+marker+strings.Repeat(" filler", 600)+`"}`)
		m := fileRef.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("%s: no [file:...] reference in %.300q", tool, got)
		}
		return m[1]
	}
	pathA := save(ca, "mcp_a_echo", "secret-of-alpha")
	pathB := save(cb, "mcp_b_echo", "secret-of-bravo")
	for _, c := range []struct {
		name   string
		path   string
		marker string
	}{{"ca", pathA, "secret-of-alpha"}, {"cb", pathB, "secret-of-bravo"}} {
		if want := filepath.Join(ws, ".artifacts", "clients", c.name) + string(filepath.Separator); !strings.HasPrefix(c.path, want) {
			t.Errorf("%s's result saved to %s, want under %s", c.name, c.path, want)
		}
	}

	own := func(c *rawClient, who, path, marker string) {
		t.Helper()
		if text, isErr := pagingCall(t, c, "read_file", map[string]any{"path": path}); isErr || !strings.Contains(text, marker) {
			t.Errorf("%s read_file of its own %s: isError=%v %.300q", who, path, isErr, text)
		}
		if text, isErr := pagingCall(t, c, "search_files", map[string]any{"pattern": marker}); isErr || !strings.Contains(text, path) {
			t.Errorf("%s search_files of its own result: isError=%v %.300q", who, isErr, text)
		}
	}
	own(ca, "ca", pathA, "secret-of-alpha")
	own(cb, "cb", pathB, "secret-of-bravo")

	missing := func(c *rawClient, p string) string {
		t.Helper()
		text, isErr := pagingCall(t, c, "read_file", map[string]any{"path": p})
		if !isErr {
			t.Errorf("read_file %s: %.300q, want an error", p, text)
		}
		return strings.ReplaceAll(text, p, "<path>")
	}
	for _, c := range []struct {
		who        string
		c          *rawClient
		other      string
		otherMark  string
		ownDir     string // a path in the client's own directory
		otherWords []string
	}{
		{"ca", ca, pathB, "secret-of-bravo", pathA, []string{"/clients/cb", "bravo"}},
		{"cb", cb, pathA, "secret-of-alpha", pathB, []string{"/clients/ca", "alpha"}},
	} {
		nothing := missing(c.c, filepath.Join(filepath.Dir(c.ownDir), "no-such-file.txt"))
		for _, p := range []string{
			c.other,
			filepath.Join(filepath.Dir(c.other), "no-such-file.txt"),
			strings.TrimPrefix(c.other, ws+string(filepath.Separator)), // workspace-relative
			filepath.Join(ws, ".artifacts", "mcp"),
			"/etc/passwd",
		} {
			if got := missing(c.c, p); got != nothing {
				t.Errorf("%s read_file of %s: %q\nwant the error of a missing file: %q", c.who, p, got, nothing)
			}
		}
		text, isErr := pagingCall(t, c.c, "search_files", map[string]any{"pattern": c.otherMark})
		if isErr || strings.Contains(text, filepath.Base(c.other)) || !strings.HasPrefix(text, "No line matches") {
			t.Errorf("%s search_files for the other client's content: isError=%v %.300q", c.who, isErr, text)
		}
		text, isErr = pagingCall(t, c.c, "search_files", map[string]any{"pattern": c.otherMark, "path": filepath.Dir(c.other)})
		if !isErr || strings.Contains(text, c.otherMark) {
			t.Errorf("%s search_files in the other client's directory: isError=%v %.300q", c.who, isErr, text)
		}
		text, _ = pagingCall(t, c.c, "search_files", map[string]any{"pattern": "secret-of"})
		for _, w := range c.otherWords {
			if strings.Contains(text, w) {
				t.Errorf("%s search_files names %q: %.300q", c.who, w, text)
			}
		}
	}

	for _, c := range []struct{ path, marker string }{{pathA, "secret-of-alpha"}, {pathB, "secret-of-bravo"}} {
		if text, isErr := pagingCall(t, admin, "read_file", map[string]any{"path": c.path}); isErr || !strings.Contains(text, c.marker) {
			t.Errorf("admin read_file %s: isError=%v %.300q", c.path, isErr, text)
		}
	}
	if text, isErr := pagingCall(t, admin, "search_files", map[string]any{"pattern": "secret-of-"}); isErr ||
		!strings.Contains(text, "secret-of-alpha") || !strings.Contains(text, "secret-of-bravo") {
		t.Errorf("admin search_files: isError=%v %.500q, want both clients' results", isErr, text)
	}
}
