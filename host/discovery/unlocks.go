package discovery

import "maps"

// Unlocks is what one session unlocked: the tools it unlocked and how
// many turns each stays visible. It is a plain value that encodes to JSON,
// so a session store can keep it anywhere; every transition returns a new
// Unlocks and leaves its receiver untouched, so an Unlocks read from a store can
// be shared without locks.
//
// Turns: a tool unlocked (by a search, an exact-name call or a renewal) with
// TTL n is visible in the current turn and the n-1 turns after it, so it is
// hidden again after the n-th NextTurn.
type Unlocks struct {
	// Unlocked maps an agent-facing tool name to the turns it stays
	// visible, counting the current one.
	Unlocked map[string]int `json:"unlocked,omitempty"`
}

// IsUnlocked reports whether the tool name is unlocked now.
func (s Unlocks) IsUnlocked(name string) bool { return s.Unlocked[name] > 0 }

// Unlock returns the state with names unlocked (or renewed) for ttl turns.
func (s Unlocks) Unlock(ttl int, names ...string) Unlocks {
	if allAt(s.Unlocked, ttl, names) {
		return s
	}
	next := make(map[string]int, len(s.Unlocked)+len(names))
	maps.Copy(next, s.Unlocked)
	for _, n := range names {
		next[n] = ttl
	}
	return Unlocks{Unlocked: next}
}

func allAt(m map[string]int, ttl int, names []string) bool {
	for _, n := range names {
		if left, ok := m[n]; !ok || left != ttl {
			return false
		}
	}
	return true
}

// Renew returns the state with the tool name given its full ttl again if it
// is unlocked; a tool that is not unlocked stays hidden.
func (s Unlocks) Renew(ttl int, name string) Unlocks {
	if left, ok := s.Unlocked[name]; !ok || left == ttl {
		return s
	}
	return s.Unlock(ttl, name)
}

// NextTurn returns the state one turn later: every unlock is a turn older,
// and the tools whose turns ran out are hidden again.
func (s Unlocks) NextTurn() Unlocks {
	if len(s.Unlocked) == 0 {
		return s
	}
	next := make(map[string]int, len(s.Unlocked))
	for name, left := range s.Unlocked {
		if left > 1 {
			next[name] = left - 1
		}
	}
	return Unlocks{Unlocked: next}
}

// Advance returns the state n turns later (NextTurn n times).
func (s Unlocks) Advance(n uint64) Unlocks {
	if n == 0 || len(s.Unlocked) == 0 {
		return s
	}
	next := make(map[string]int, len(s.Unlocked))
	for name, left := range s.Unlocked {
		if uint64(left) > n {
			next[name] = left - int(n)
		}
	}
	return Unlocks{Unlocked: next}
}

// Keep returns the state without the unlocks of tools for which keep
// reports false (tools that no longer exist, or are no longer hidden).
func (s Unlocks) Keep(keep func(name string) bool) Unlocks {
	drop := 0
	for name := range s.Unlocked {
		if !keep(name) {
			drop++
		}
	}
	if drop == 0 {
		return s
	}
	next := make(map[string]int, len(s.Unlocked)-drop)
	for name, left := range s.Unlocked {
		if keep(name) {
			next[name] = left
		}
	}
	return Unlocks{Unlocked: next}
}

// Equal reports whether two states unlock the same tools for the same turns.
func (s Unlocks) Equal(o Unlocks) bool { return maps.Equal(s.Unlocked, o.Unlocked) }
