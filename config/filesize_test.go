package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// bigConfig is a valid config file of servers just over n bytes.
func bigConfig(t *testing.T, n int) string {
	t.Helper()
	servers := map[string]any{}
	for size, i := 0, 0; size <= n; i++ {
		entry := map[string]any{"enabled": false, "command": "true", "args": []string{strings.Repeat("x", 200)}}
		servers[fmt.Sprintf("s%06d", i)] = entry
		size += 250
	}
	b, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{"enabled": true, "servers": servers}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A config file over MaxFileBytes is not read: it is a problem of the
// whole config naming the file and the limit — serve refuses to start on
// it and a reload keeps the previous config — whether it is the user file,
// an edit's candidate content or a system layer. It still counts as an
// existing user file (no demo config in its place). Before, any size was
// read: a reload of 40,000 servers took minutes and hundreds of MB.
func TestConfigFileOverTheLimit(t *testing.T) {
	big := bigConfig(t, MaxFileBytes)
	check := func(t *testing.T, ld *Loaded, file string) {
		t.Helper()
		p := ld.Validate(ValidateOptions{})
		if len(p.Fatal) != 1 || !strings.Contains(p.Fatal[0].Msg, file) || !strings.Contains(p.Fatal[0].Msg, "at most 16 MiB") {
			t.Errorf("problems %v; want one naming %s and the 16 MiB limit", messages(p.All()), file)
		}
		if n := len(ld.Config.MCP.Servers); n != 0 {
			t.Errorf("%d servers of the file over the limit were loaded", n)
		}
	}
	t.Run("user file", func(t *testing.T) {
		e := newTestEnv(t)
		writeFile(t, e.user, big)
		ld := mustLoad(t, e.opts())
		check(t, ld, e.user)
		if !ld.UserFileExists {
			t.Errorf("a user file over the limit counts as missing")
		}
	})
	t.Run("candidate", func(t *testing.T) {
		e := newTestEnv(t)
		o := e.opts()
		o.UserData = []byte(big)
		check(t, mustLoad(t, o), e.user)
	})
	t.Run("system layer", func(t *testing.T) {
		e := newTestEnv(t)
		layer := filepath.Join(e.system, "50-big.json")
		writeFile(t, layer, big)
		check(t, mustLoad(t, e.opts()), layer)
	})
	t.Run("at the limit", func(t *testing.T) {
		e := newTestEnv(t)
		writeFile(t, e.user, bigConfig(t, 1<<20))
		if p := mustLoad(t, e.opts()).Validate(ValidateOptions{}); !p.Empty() {
			t.Errorf("a file under the limit has problems: %v", messages(p.All()))
		}
	})
}
