package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJoinPath(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"tools", "mcp", "servers", "github", "command"}, "tools.mcp.servers.github.command"},
		{[]string{"tools", "mcp", "servers", "my.server", "command"}, `tools.mcp.servers["my.server"].command`},
		{[]string{"tools", "mcp", "servers", "remote-mcp_2"}, "tools.mcp.servers.remote-mcp_2"},
		{[]string{"tools", "mcp", "servers", "a \"b\""}, `tools.mcp.servers["a \"b\""]`},
		{[]string{"tools", "mcp", "servers", ""}, `tools.mcp.servers[""]`},
		{[]string{"x.y"}, `["x.y"]`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := pathOf(tt.keys...); got != tt.want {
				t.Errorf("pathOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseSet(t *testing.T) {
	tests := []struct {
		item      string
		wantKeys  []string
		wantValue string
		wantErr   bool
	}{
		{item: "tools.mcp.discovery.ttl=3", wantKeys: []string{"tools", "mcp", "discovery", "ttl"}, wantValue: "3"},
		{item: `tools.mcp.servers["my.server"].enabled=true`, wantKeys: []string{"tools", "mcp", "servers", "my.server", "enabled"}, wantValue: "true"},
		{item: `tools.mcp.servers["a=b"].env.X=y=z`, wantKeys: []string{"tools", "mcp", "servers", "a=b", "env", "X"}, wantValue: "y=z"},
		{item: `tools.mcp.servers["q\"]"]=null`, wantKeys: []string{"tools", "mcp", "servers", `q"]`}, wantValue: "null"},
		{item: `tools.mcp.servers.["x.y"].url=`, wantKeys: []string{"tools", "mcp", "servers", "x.y", "url"}, wantValue: ""},
		{item: `tools.mcp.workspace="a b"`, wantKeys: []string{"tools", "mcp", "workspace"}, wantValue: `"a b"`},
		{item: "tools.mcp.enabled", wantErr: true},
		{item: "=1", wantErr: true},
		{item: "", wantErr: true},
		{item: "tools..x=1", wantErr: true},
		{item: "tools.=1", wantErr: true},
		{item: `tools["x]=1`, wantErr: true},
		{item: `tools[x]=1`, wantErr: true},
		{item: `tools["x"]y=1`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.item, func(t *testing.T) {
			keys, value, err := parseSet(tt.item)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantKeys, keys); diff != "" {
				t.Errorf("keys mismatch (-want +got):\n%s", diff)
			}
			if value != tt.wantValue {
				t.Errorf("value = %q, want %q", value, tt.wantValue)
			}
		})
	}
}

// TestSetRoundTripsPaths checks that every path printed in a message can be
// given back to --set.
func TestSetRoundTripsPaths(t *testing.T) {
	for _, name := range []string{"plain", "my.server", "with space", `q"uote`, "ü", "a[0]"} {
		t.Run(name, func(t *testing.T) {
			path := serverPath(name, "enabled")
			keys, value, err := parseSet(path + "=true")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"tools", "mcp", "servers", name, "enabled"}, keys); diff != "" || value != "true" {
				t.Errorf("keys mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
