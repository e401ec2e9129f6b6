package host_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces design.md's import rules: cmd/host → front ends
// (gateway, chat, …) → host → {pluginapi, search}; plugins → pluginapi (+ plugins/internal); search imports
// neither host nor pluginapi; pluginapi imports no project package; nothing
// imports cmd or plugin code.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/plughost/plughost"
	out, err := exec.Command("go", "list", "-json", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/prometheus/") && isCore(rel) {
				t.Errorf("%s imports %s: metrics are exported by the front ends; the core exposes plain counters", rel, imp)
			}
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, mod+"/")
			if reason := forbidden(rel, dep); reason != "" {
				t.Errorf("%s imports %s: %s", rel, dep, reason)
			}
		}
	}
}

// forbidden says why package pkg may not import dep ("" if it may).
func forbidden(pkg, dep string) string {
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	switch {
	case under(dep, "cmd"):
		return "nothing imports the command"
	case under(pkg, "pluginapi") && !under(dep, "pluginapi"):
		return "pluginapi imports no other project package"
	case under(pkg, "search") && !under(dep, "search"):
		return "search knows nothing of MCP, plugins or the host"
	case under(pkg, "plugins") && !under(dep, "plugins") && !under(dep, "pluginapi"):
		return "plugins depend only on pluginapi and plugins/internal"
	case under(pkg, "examples"):
		if !under(dep, "pluginapi") && !under(dep, "plugins") && !under(dep, "examples") {
			return "examples are third-party plugins: they use pluginapi and public plugin packages only"
		}
		return ""
	case under(dep, "plugins") && !under(pkg, "plugins"):
		return "the host talks to plugins only through pluginapi"
	case under(pkg, "chat") && (under(dep, "gateway") || under(dep, "api") || under(dep, "frontdoor") || under(dep, "dashboard")):
		return "chat is a front end of the host: it uses host.Session, never another front end"
	case under(pkg, "host") && !under(dep, "host") && !under(dep, "pluginapi") && !under(dep, "search") && dep != "koanf.d":
		return "host depends only on pluginapi, search and the embedded config layers; it never imports a front end"
	}
	return ""
}

// isCore reports whether pkg is part of the core or the plugin side, which
// never import a front end's dependencies (metrics, HTTP routers).
func isCore(pkg string) bool {
	for _, root := range []string{"host", "search", "pluginapi", "plugins"} {
		if pkg == root || strings.HasPrefix(pkg, root+"/") {
			return true
		}
	}
	return false
}

func TestForbiddenRules(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"cmd/host", "host", true},
		{"host", "pluginapi", true},
		{"host/config", "koanf.d", true},
		{"plugins/stdio", "pluginapi", true},
		{"plugins/sse", "plugins/internal/httppolicy", true},
		{"host", "cmd/host", false},
		{"pluginapi", "host/naming", false},
		{"search", "pluginapi", false},
		{"search", "host", false},
		{"plugins/stdio", "host/config", false},
		{"host", "plugins/stdio/childenv", false},
		{"examples/logging-transport", "plugins/stdio/stdiotransport", true},
		{"examples/logging-transport", "host", false},
		{"gateway", "host", true},
		{"cmd/host", "gateway", true},
		{"internal/bench", "gateway", true},
		{"host", "gateway", false},
		{"host/supervisor", "gateway", false},
		{"host", "internal/demoserver", false},
		{"api", "host/manage", true},
		{"cmd/host", "api", true},
		{"host", "api", false},
		{"host/manage", "api", false},
		{"host/manage", "gateway", false},
		{"chat", "host", true},
		{"cmd/host", "chat", true},
		{"host", "chat", false},
		{"chat", "gateway", false},
		{"chat", "api", false},
	} {
		if got := forbidden(c.pkg, c.dep) == ""; got != c.ok {
			t.Errorf("%s → %s: allowed=%v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
}
