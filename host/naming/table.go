package naming

import "slices"

// Table is an immutable two-way mapping built by Assign; safe for concurrent use.
type Table struct {
	byPair map[Pair]string
	byName map[string]Pair
	names  []string
}

// NewTable assigns names to pairs (see Assign) and indexes them both ways.
func NewTable(pairs []Pair) *Table {
	byPair := Assign(pairs)
	t := &Table{
		byPair: byPair,
		byName: make(map[string]Pair, len(byPair)),
		names:  make([]string, 0, len(byPair)),
	}
	for p, n := range byPair {
		t.byName[n] = p
		t.names = append(t.names, n)
	}
	slices.Sort(t.names)
	return t
}

// Name returns the agent-facing name of p and whether p is in the table.
func (t *Table) Name(p Pair) (string, bool) {
	n, ok := t.byPair[p]
	return n, ok
}

// Lookup returns the pair named name and whether there is one.
func (t *Table) Lookup(name string) (Pair, bool) {
	p, ok := t.byName[name]
	return p, ok
}

// Names returns every name in the table, sorted. The caller may modify the slice.
func (t *Table) Names() []string {
	return slices.Clone(t.names)
}
