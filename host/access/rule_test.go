package access

import "testing"

func TestRule(t *testing.T) {
	r := Limited([]string{"a", "b"}, []string{"mcp_a_*", "mcp_b_read*"}, []string{"mcp_a_delete*"})
	for _, c := range []struct {
		name         string
		server, tool string
		want         bool
	}{
		{"included", "a", "mcp_a_echo", true},
		{"excluded wins", "a", "mcp_a_delete_all", false},
		{"not included", "b", "mcp_b_write", false},
		{"included by second glob", "b", "mcp_b_read_file", true},
		{"server out of scope", "c", "mcp_c_echo", false},
		{"name of another server", "a", "mcp_c_echo", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := r.Allows(c.server, c.tool); got != c.want {
				t.Errorf("Allows(%q, %q) = %v, want %v", c.server, c.tool, got, c.want)
			}
		})
	}
	if !Everything().Allows("x", "anything") || Everything().IsLimited() {
		t.Error("Everything must allow everything")
	}
	if Limited(nil, nil, nil).AllowsServer("a") {
		t.Error("a client with no servers must see none")
	}
}

func TestFilter(t *testing.T) {
	f := Filter{Exclude: []string{"delete_*"}}
	if f.Keeps("delete_repo") || !f.Keeps("create_repo") {
		t.Error("exclude glob not applied")
	}
	f = Filter{Include: []string{"get_*", "list_*"}, Exclude: []string{"list_secrets"}}
	for tool, want := range map[string]bool{"get_x": true, "list_x": true, "list_secrets": false, "put_x": false} {
		if f.Keeps(tool) != want {
			t.Errorf("Keeps(%q) = %v, want %v", tool, !want, want)
		}
	}
	if !(Filter{}).Keeps("x") || !(Filter{}).IsZero() {
		t.Error("the zero filter must keep everything")
	}
	if Keeps([]string{"[bad"}, nil, "[bad") {
		t.Error("a malformed glob must match nothing")
	}
}
