package supervisor

import (
	"testing"

	"github.com/plughost/plughost/pluginapi"
)

// Servers of one key join one process while it may be shared; once a
// process of that key said it cannot be, each server starts its own at
// once, without waiting for another's start.
func TestPluginPoolJoin(t *testing.T) {
	p := NewPluginPool(nil)
	key := keyOf(pluginapi.ClientConfig{Path: "/bin/mcp-transport-stdio", Env: []string{"PATH=/bin"}})
	first, starter := p.join(key)
	second, joiner := p.join(key)
	if !starter || joiner || first != second || first.refs != 2 {
		t.Fatalf("shareable key: starter %v, joiner %v, same process %v, refs %d; want the second to join the first", starter, joiner, first == second, first.refs)
	}
	p.alone[key] = true
	a, startsA := p.join(key)
	b, startsB := p.join(key)
	if !startsA || !startsB || a == b || a == first || a.refs != 1 || b.refs != 1 {
		t.Fatalf("key that cannot be shared: starters %v %v, distinct %v; want a process of its own each", startsA, startsB, a != b)
	}
	if p.procs[key] != first {
		t.Errorf("a process of a server's own went into the pool")
	}
	other := keyOf(pluginapi.ClientConfig{Path: "/bin/mcp-transport-stdio", Env: []string{"PATH=/usr/bin"}})
	if other == key {
		t.Errorf("another plugin environment gave the same key")
	}
}
