//go:build unix

package host_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces the import rules of docs/architecture.md,
// layer by layer
// from the bottom:
//
//   - lib/ (general libraries) imports nothing of ours but lib/;
//   - pluginapi (the transport contract) imports no project package; search
//     knows nothing of MCP, plugins or the host;
//   - config/ (the config and the server catalog) imports only lib/ and the
//     embedded config layers (koanf.d);
//   - oauth/ (the OAuth client and its logins) imports only lib/ and
//     pluginapi, whose Credentials contract the logins implement;
//   - the core, host/..., imports only the layers above and pluginapi,
//     search; inside it, the sub-packages never import the root package
//     host (only host/storetest, the SessionStore contract suite, does):
//     host/routing, for one, sees the host through routing.Servers;
//   - manage/ (the application layer) imports the core and its layers, never
//     a front end;
//   - front ends (gateway, api, dashboard, frontdoor, chat) sit on top;
//     chat uses no other front end; plugins depend only on pluginapi and
//     plugins/internal; nothing imports cmd or plugin code.
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
	under := func(p string, roots ...string) bool {
		for _, root := range roots {
			if p == root || strings.HasPrefix(p, root+"/") {
				return true
			}
		}
		return false
	}
	switch {
	case under(dep, "cmd"):
		return "nothing imports the command"
	case under(pkg, "lib") && !under(dep, "lib"):
		return "lib/ holds general libraries: they know nothing of plughost"
	case under(pkg, "pluginapi") && !under(dep, "pluginapi"):
		return "pluginapi imports no other project package"
	case under(pkg, "search") && !under(dep, "search"):
		return "search knows nothing of MCP, plugins or the host"
	case under(pkg, "config") && !under(dep, "config", "lib", "koanf.d"):
		return "config/ imports only lib/ and the embedded config layers: the core and the front ends read it, never the reverse"
	case under(pkg, "oauth") && !under(dep, "oauth", "lib", "pluginapi"):
		return "oauth/ is a self-contained OAuth client: it imports only lib/ and pluginapi"
	case under(pkg, "plugins") && !under(dep, "plugins", "pluginapi"):
		return "plugins depend only on pluginapi and plugins/internal"
	case under(pkg, "examples"):
		if !under(dep, "pluginapi", "plugins", "examples") {
			return "examples are third-party plugins: they use pluginapi and public plugin packages only"
		}
		return ""
	case under(dep, "plugins") && !under(pkg, "plugins"):
		return "the host talks to plugins only through pluginapi"
	case under(pkg, "host") && !under(dep, "host", "lib", "config", "oauth", "pluginapi", "search", "koanf.d"):
		return "the core (host/...) depends only on lib/, config/, oauth/, pluginapi and search; it never imports the application layer or a front end"
	case under(pkg, "host") && pkg != "host" && pkg != "host/storetest" && dep == "host":
		return "the root package host builds on its sub-packages, never the reverse"
	case under(pkg, "manage") && !under(dep, "manage", "host", "lib", "config", "oauth", "pluginapi", "search"):
		return "manage/ is the application layer under every front end: it uses the core, never a front end"
	case under(pkg, "chat") && under(dep, "gateway", "api", "frontdoor", "dashboard"):
		return "chat is a front end of the host: it uses host.Session, never another front end"
	}
	return ""
}

// isCore reports whether pkg is part of the core or the plugin side, which
// never import a front end's dependencies (metrics, HTTP routers).
func isCore(pkg string) bool {
	for _, root := range []string{"lib", "config", "oauth", "host", "search", "pluginapi", "plugins"} {
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
		{"config", "koanf.d", true},
		{"plugins/stdio", "pluginapi", true},
		{"plugins/sse", "plugins/internal/httppolicy", true},
		{"host", "cmd/host", false},
		{"pluginapi", "host/naming", false},
		{"search", "pluginapi", false},
		{"search", "host", false},
		{"plugins/stdio", "config", false},
		{"host", "plugins/stdio/childenv", false},
		{"examples/logging-transport", "plugins/stdio/stdiotransport", true},
		{"examples/logging-transport", "host", false},
		{"gateway", "host", true},
		{"cmd/host", "gateway", true},
		{"internal/bench", "gateway", true},
		{"host", "gateway", false},
		{"host/supervisor", "gateway", false},
		{"host", "internal/demoserver", false},
		{"api", "manage", true},
		{"cmd/host", "api", true},
		{"host", "api", false},
		{"manage", "api", false},
		{"manage", "gateway", false},
		{"chat", "host", true},
		{"cmd/host", "chat", true},
		{"host", "chat", false},
		{"chat", "gateway", false},
		{"chat", "api", false},
		{"lib/secret", "lib/rawjson", true},
		{"lib/secret", "config", false},
		{"lib/origin", "host", false},
		{"config", "lib/secret", true},
		{"config/catalog", "config", true},
		{"config", "host/naming", false},
		{"config", "oauth", false},
		{"config/interop", "manage", false},
		{"oauth/tokens", "oauth", true},
		{"oauth/tokens", "lib/secret", true},
		{"oauth/tokens", "pluginapi", true},
		{"oauth", "config", false},
		{"oauth/tokens", "host", false},
		{"host", "lib/rawjson", true},
		{"host/supervisor", "oauth/tokens", true},
		{"host/discovery", "config", true},
		{"host", "manage", false},
		{"host/supervisor", "manage", false},
		{"host", "dashboard", false},
		{"host", "frontdoor", false},
		{"host", "redisstore", false},
		{"host/registry", "host", false},
		{"host/routing", "host", false},
		{"host/routing", "host/supervisor", true},
		{"host", "host/routing", true},
		{"host/storetest", "host", true},
		{"host", "host/registry", true},
		{"manage", "host", true},
		{"manage", "config/catalog", true},
		{"manage", "host/plugindir", true},
		{"manage", "dashboard", false},
		{"manage", "frontdoor", false},
		{"manage", "chat", false},
		{"redisstore", "host", true},
	} {
		if got := forbidden(c.pkg, c.dep) == ""; got != c.ok {
			t.Errorf("%s → %s: allowed=%v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
}
