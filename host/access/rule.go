package access

import (
	"path"
	"slices"
)

// Rule decides what one client may see and call. The zero Rule allows
// everything: it is the administrator's (the gateway token) and an
// embedding agent's. A Rule is immutable and safe for concurrent use.
type Rule struct {
	limited bool
	servers []string // sorted
	include []string
	exclude []string
}

// Everything returns the rule of the administrator: every server, every
// tool.
func Everything() Rule { return Rule{} }

// Limited returns the rule of a named client: only servers, and of their
// tools only those whose agent-facing name matches one of include (every
// tool when include is empty) and none of exclude. Globs use path.Match
// syntax (* ? [a-z]); a malformed glob matches nothing (the config
// validator refuses it before it gets here).
func Limited(servers, include, exclude []string) Rule {
	s := slices.Clone(servers)
	slices.Sort(s)
	return Rule{limited: true, servers: slices.Compact(s), include: slices.Clone(include), exclude: slices.Clone(exclude)}
}

// IsLimited reports whether the rule hides anything.
func (r Rule) IsLimited() bool { return r.limited }

// AllowsServer reports whether the client may use server at all.
func (r Rule) AllowsServer(server string) bool {
	if !r.limited {
		return true
	}
	_, ok := slices.BinarySearch(r.servers, server)
	return ok
}

// Allows reports whether the client may see and call the tool of server
// whose agent-facing name is name.
func (r Rule) Allows(server, name string) bool {
	if !r.limited {
		return true
	}
	return r.AllowsServer(server) && Keeps(r.include, r.exclude, name)
}

// Servers returns the servers the rule allows, sorted; nil for an
// unlimited rule (every server).
func (r Rule) Servers() []string {
	if !r.limited {
		return nil
	}
	return slices.Clone(r.servers)
}

// Keeps reports whether name passes include/exclude glob lists: it matches
// one of include (or include is empty) and none of exclude.
func Keeps(include, exclude []string, name string) bool {
	if len(include) > 0 && !matchAny(include, name) {
		return false
	}
	return !matchAny(exclude, name)
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
}

// Filter is a server's own include_tools/exclude_tools: globs on the
// server's tool names that hide tools from everyone. The zero Filter keeps
// every tool.
type Filter struct {
	// Include keeps only the tools matching one of these globs (all when
	// empty).
	Include []string
	// Exclude hides the tools matching one of these globs.
	Exclude []string
}

// IsZero reports whether the filter keeps every tool.
func (f Filter) IsZero() bool { return len(f.Include) == 0 && len(f.Exclude) == 0 }

// Keeps reports whether the server's tool named tool is shown.
func (f Filter) Keeps(tool string) bool { return Keeps(f.Include, f.Exclude, tool) }

// Equal reports whether two filters are the same.
func (f Filter) Equal(o Filter) bool {
	return slices.Equal(f.Include, o.Include) && slices.Equal(f.Exclude, o.Exclude)
}
