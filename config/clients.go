package config

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// Client is one entry of tools.mcp.gateway.clients: a named client of the
// gateway with its own bearer token. It reaches /mcp and the
// /servers/<name>/mcp of its servers, never /api or the dashboard, and sees
// only the tools its lists allow.
type Client struct {
	// TokenSHA256 is the hex sha256 digest of the client's token; the
	// token itself is never stored (`plughost mcp client add` and
	// `rotate` print it once). It is masked wherever it is shown.
	TokenSHA256 secret.String `json:"token_sha256"`
	// Servers are the servers the client may use, by name.
	Servers []string `json:"servers"`
	// IncludeTools, when set, shows the client only the tools whose
	// agent-facing names (mcp_<server>_<tool>) match one of these globs.
	IncludeTools []string `json:"include_tools,omitempty"`
	// ExcludeTools hides from the client the tools whose agent-facing
	// names match one of these globs.
	ExcludeTools []string `json:"exclude_tools,omitempty"`
}

// ClientPath returns the JSON path of a client entry or of a key below it.
func ClientPath(name string, keys ...string) string {
	return pathOf(append([]string{"tools", "mcp", "gateway", "clients", name}, keys...)...)
}

// ReservedClientName is the client name no configured client may take:
// the audit log records the administrator's sessions under it.
const ReservedClientName = "admin"

// CheckClientName returns why name cannot name a client ("" when it can):
// 1 to 64 letters, digits, '.', '_' or '-', and not "admin", which the
// audit log writes for the administrator's sessions.
func CheckClientName(name string) string {
	if strings.EqualFold(name, ReservedClientName) {
		return fmt.Sprintf("%q is reserved: the audit log names the administrator's sessions so; choose another name, e.g. \"ci-bot\"", name)
	}
	if name == "" || len(name) > 64 {
		return "a client name must have 1 to 64 characters; use letters, digits, '.', '_' and '-', e.g. \"ci-bot\""
	}
	if name == "." || name == ".." {
		return fmt.Sprintf("%q cannot be a client name: a client's saved results go to a directory named after it; choose another name, e.g. \"ci-bot\"", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Sprintf("client name %q has the character %q; use letters, digits, '.', '_' and '-', e.g. \"ci-bot\"", trunc(name), r)
		}
	}
	return ""
}

// CheckToolGlob returns why glob is not a valid tool-name glob, or nil.
// Globs use path.Match syntax: * (any run of characters), ? (one
// character), [a-z] (a class).
func CheckToolGlob(glob string) error {
	if strings.TrimSpace(glob) == "" {
		return fmt.Errorf("empty glob; write a pattern such as \"delete_*\" or remove the entry")
	}
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("glob %q is malformed (%v); use * ? and [a-z], e.g. \"delete_*\"", trunc(glob), err)
	}
	return nil
}

func checkClients(p *Problems, clients map[string]Client) {
	for _, name := range slices.Sorted(maps.Keys(clients)) {
		c := clients[name]
		if msg := CheckClientName(name); msg != "" {
			p.fatal(ClientPath(name), msg)
		}
		h := c.TokenSHA256.Reveal()
		if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
			p.fatal(ClientPath(name, "token_sha256"), "must be the 64 hex digits of the sha256 of the client's token; "+
				"run `plughost mcp client rotate "+name+"` to make a new token and store its digest")
		}
		if len(c.Servers) == 0 {
			p.fatal(ClientPath(name, "servers"), "must list at least one server the client may use, e.g. [\"github\"]; "+
				"add them here, or remove the client (plughost mcp client remove "+name+")")
		}
		for i, s := range c.Servers {
			if strings.TrimSpace(s) == "" {
				p.fatal(indexPath(ClientPath(name, "servers"), i), "empty server name; write the name of a configured server or remove the entry")
			}
		}
		checkGlobs(p, ClientPath(name, "include_tools"), c.IncludeTools)
		checkGlobs(p, ClientPath(name, "exclude_tools"), c.ExcludeTools)
	}
}

func checkGlobs(p *Problems, at string, globs []string) {
	for i, g := range globs {
		if err := CheckToolGlob(g); err != nil {
			p.fatal(indexPath(at, i), err.Error())
		}
	}
}

// checkToolFilters checks a server's include_tools and exclude_tools.
func (v serverValidator) checkToolFilters() {
	for key, globs := range map[string][]string{"include_tools": v.s.IncludeTools, "exclude_tools": v.s.ExcludeTools} {
		for i, g := range globs {
			if err := CheckToolGlob(g); err != nil {
				v.p.server(v.name, indexPath(serverPath(v.name, key), i), err.Error())
			}
		}
	}
}

// FileJSON returns the client entry as the user's config file holds it
// (the token digest in clear, empty lists left out), for front ends that
// write it. Never print it; json.Marshal of a Client masks the digest.
func (c Client) FileJSON() (json.RawMessage, error) {
	b, err := marshalText(struct {
		TokenSHA256  string   `json:"token_sha256"`
		Servers      []string `json:"servers"`
		IncludeTools []string `json:"include_tools,omitempty"`
		ExcludeTools []string `json:"exclude_tools,omitempty"`
	}{c.TokenSHA256.Reveal(), c.Servers, c.IncludeTools, c.ExcludeTools})
	if err != nil {
		return nil, fmt.Errorf("encode client entry: %w", err)
	}
	return b, nil
}
