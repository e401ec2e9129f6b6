package discovery

import (
	"sort"
	"sync"

	"github.com/plughost/plughost/host/registry"
)

// Session is one agent conversation's discovery state: the tools it
// unlocked and for how many more turns. Sessions never share unlocks. A
// Session is safe for concurrent use.
//
// Turns: a tool unlocked (by a search, an exact-name call or a refresh)
// with TTL n is visible in the current turn and the n-1 turns after it, so
// it is hidden again after the n-th call of EndTurn.
type Session struct {
	rules *Rules

	mu       sync.Mutex
	unlocked map[string]int // tool name → turns left, counting the current one
}

// NewSession starts a session with nothing unlocked.
func (r *Rules) NewSession() *Session {
	return &Session{rules: r, unlocked: map[string]int{}}
}

// Visible returns the tools of all that this session's model sees, sorted by
// name (stable, so prompt caches survive): every tool with discovery off;
// otherwise the tools of servers that are not deferred and the tools this
// session unlocked. The search tools are not included (see
// Rules.SearchTools).
func (s *Session) Visible(all []registry.Tool) []registry.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]registry.Tool, 0, len(all))
	for _, t := range all {
		if !s.rules.deferred(t) || s.unlocked[t.Name] > 0 {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// EndTurn ages every unlock by one turn and hides the tools whose TTL ran
// out.
func (s *Session) EndTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, left := range s.unlocked {
		if left <= 1 {
			delete(s.unlocked, name)
		} else {
			s.unlocked[name] = left - 1
		}
	}
}

// Used records that the model used the tool name: an unlocked tool gets its
// full TTL again. Other tools are unaffected.
func (s *Session) Used(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.unlocked[name]; ok {
		s.unlocked[name] = s.rules.Settings().TTL
	}
}

// CallAllowed decides whether the model may call the tool name, which must
// be an exact agent-facing name from all. Every tool of all may be called:
// a hidden one is unlocked for TTL turns by the call (the model clearly
// knows it) and unlockedNow is true; an unlocked one gets its TTL refreshed.
// The names of the enabled search tools are allowed too (dispatch them to
// HandleSearch). Any other name gets an *UnknownToolError listing the
// closest names.
func (s *Session) CallAllowed(name string, all []registry.Tool) (unlockedNow bool, err error) {
	tool, ok := find(all, name)
	if !ok {
		if s.rules.IsSearchTool(name) {
			return false, nil
		}
		return false, s.rules.unknownTool(name)
	}
	if !s.rules.deferred(tool) {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, was := s.unlocked[name]
	s.unlocked[name] = s.rules.Settings().TTL
	return !was, nil
}

// unlock makes the named tools visible for TTL turns.
func (s *Session) unlock(names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.unlocked[n] = s.rules.Settings().TTL
	}
}

func find(all []registry.Tool, name string) (registry.Tool, bool) {
	for _, t := range all {
		if t.Name == name {
			return t, true
		}
	}
	return registry.Tool{}, false
}
