package registry

import (
	"sort"
	"strings"
)

// Closest returns up to n names of server's tools nearest to name (by edit
// distance over lower-cased names, ties broken by name), for "did you mean"
// messages. It never looks at other servers' tools: a model that mistyped a
// tool of one server must not be steered to another server.
func (s *Snapshot) Closest(server, name string, n int) []string {
	type scored struct {
		name string
		dist int
	}
	want := strings.ToLower(name)
	idx := s.byServer[server]
	all := make([]scored, 0, len(idx))
	for _, i := range idx {
		t := s.sorted[i]
		lower := strings.ToLower(t.Name)
		d := editDistance(want, lower)
		if strings.Contains(lower, want) || strings.Contains(want, strings.ToLower(t.ServerTool)) {
			d = min(d, len(lower)-len(want)) // a substring match is close whatever the length gap
		}
		all = append(all, scored{t.Name, d})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].dist != all[j].dist {
			return all[i].dist < all[j].dist
		}
		return all[i].name < all[j].name
	})
	out := make([]string, 0, n)
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
