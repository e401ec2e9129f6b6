package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodDigest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestClientsLoad(t *testing.T) {
	l := loadUser(t, `{"tools":{"mcp":{"servers":{"a":{"enabled":true,"command":"x","exclude_tools":["delete_*"]}},
		"gateway":{"clients":{"ci":{"token_sha256":"`+goodDigest+`","servers":["a"],"include_tools":["mcp_a_*"]}}}}}}`)
	if p := l.Validate(ValidateOptions{}); len(p.All()) > 0 {
		t.Fatalf("unexpected problems: %v", p.All())
	}
	c := l.Config.MCP.Gateway.Clients["ci"]
	if diff := cmp.Diff(Client{TokenSHA256: goodDigest, Servers: []string{"a"}, IncludeTools: []string{"mcp_a_*"}}, c); diff != "" {
		t.Errorf("client (-want +got):\n%s", diff)
	}
	if got := l.Config.MCP.Servers["a"].ExcludeTools; !cmp.Equal(got, []string{"delete_*"}) {
		t.Errorf("server exclude_tools = %v", got)
	}
	out, err := json.Marshal(l.Config)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), goodDigest) {
		t.Errorf("the token digest is shown unmasked: %s", out)
	}
}

func TestClientsValidate(t *testing.T) {
	for _, c := range []struct {
		name, clients, server string
		want                  []string
	}{
		{"bad digest", `{"ci":{"token_sha256":"abc","servers":["a"]}}`, ``,
			[]string{"tools.mcp.gateway.clients.ci.token_sha256: must be the 64 hex digits", "plughost mcp client rotate ci"}},
		{"no servers", `{"ci":{"token_sha256":"` + goodDigest + `","servers":[]}}`, ``,
			[]string{"tools.mcp.gateway.clients.ci.servers: must list at least one server"}},
		{"bad glob", `{"ci":{"token_sha256":"` + goodDigest + `","servers":["a"],"exclude_tools":["[x"]}}`, ``,
			[]string{"tools.mcp.gateway.clients.ci.exclude_tools[0]: glob \"[x\" is malformed"}},
		{"bad name", `{"c i":{"token_sha256":"` + goodDigest + `","servers":["a"]}}`, ``,
			[]string{`client name "c i" has the character ' '`}},
		{"reserved name", `{"Admin":{"token_sha256":"` + goodDigest + `","servers":["a"]}}`, ``,
			[]string{`tools.mcp.gateway.clients.Admin: "Admin" is reserved`}},
		{"dot-dot name", `{"..":{"token_sha256":"` + goodDigest + `","servers":["a"]}}`, ``,
			[]string{`".." cannot be a client name`}},
		{"bad server glob", `{}`, `,"include_tools":["get_*", ""]`,
			[]string{"tools.mcp.servers.a.include_tools[1]: empty glob"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := loadUser(t, `{"tools":{"mcp":{"servers":{"a":{"enabled":true,"command":"x"`+c.server+`}},"gateway":{"clients":`+c.clients+`}}}}`)
			var msgs []string
			for _, p := range l.Validate(ValidateOptions{}).All() {
				msgs = append(msgs, p.Error())
			}
			all := strings.Join(msgs, "\n")
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("problems %q do not contain %q", all, w)
				}
			}
		})
	}
}
