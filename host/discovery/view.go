package discovery

import (
	"sort"

	"github.com/plughost/plughost/host/registry"
)

// View is the rules applied to one registry snapshot: the tools every
// session sees, which ones are hidden, and the fingerprint of each list. It
// is computed once per snapshot (O(catalog)) and shared by every session, so
// what a session costs is what it unlocked: Visible and Fingerprint are
// O(what the session sees), lookups O(1). A View is immutable and safe for
// concurrent use.
type View struct {
	rules   *Rules
	snap    *registry.Snapshot
	shown   []registry.Tool // seen by every session, sorted by name
	base    uint64          // fingerprint of shown
	hidden  int             // tools hidden unless unlocked
	servers []string        // servers with hidden tools, sorted
}

// NewView applies the rules to snap. extras are tools every session sees
// besides the servers' (search and paging tools); they need not be sorted.
func (r *Rules) NewView(snap *registry.Snapshot, extras []registry.Tool) *View {
	v := &View{rules: r, snap: snap}
	servers := map[string]bool{}
	shown := make([]registry.Tool, 0, len(extras)+snap.Len())
	shown = append(shown, extras...)
	for _, t := range snap.Sorted() {
		if r.Hidden(t) {
			v.hidden++
			servers[t.Server] = true
			continue
		}
		shown = append(shown, t)
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].Name < shown[j].Name })
	for _, t := range shown {
		v.base += mix(t.Hash)
	}
	v.shown = shown
	for s := range servers {
		v.servers = append(v.servers, s)
	}
	sort.Strings(v.servers)
	return v
}

// Rules returns the rules the view applies.
func (v *View) Rules() *Rules { return v.rules }

// Snapshot returns the snapshot the view was computed from.
func (v *View) Snapshot() *registry.Snapshot { return v.snap }

// Lookup finds a server tool by its agent-facing name.
func (v *View) Lookup(name string) (registry.Tool, bool) { return v.snap.Lookup(name) }

// Visible returns the tools a session in state st sees, sorted by name
// (stable across turns, so prompt caches survive): every tool with discovery
// off; otherwise the extras, the tools of servers that are not deferred and
// the tools st unlocked. The slice may be shared with other sessions: the
// caller must not modify it.
func (v *View) Visible(st Unlocks) []registry.Tool {
	unlocked := v.unlocked(st)
	if len(unlocked) == 0 {
		return v.shown
	}
	sort.Slice(unlocked, func(i, j int) bool { return unlocked[i].Name < unlocked[j].Name })
	out := make([]registry.Tool, 0, len(v.shown)+len(unlocked))
	i, j := 0, 0
	for i < len(v.shown) && j < len(unlocked) {
		if v.shown[i].Name < unlocked[j].Name {
			out = append(out, v.shown[i])
			i++
		} else {
			out = append(out, unlocked[j])
			j++
		}
	}
	out = append(out, v.shown[i:]...)
	return append(out, unlocked[j:]...)
}

// Fingerprint identifies the list Visible(st) returns: it changes exactly
// when a tool appears, disappears or changes its definition (up to a 64-bit
// hash collision). It costs O(what st unlocked).
func (v *View) Fingerprint(st Unlocks) uint64 {
	sum := v.base
	for _, t := range v.unlocked(st) {
		sum += mix(t.Hash)
	}
	return sum
}

// FingerprintFor is Fingerprint of the tools of Visible(st) that keep
// accepts: the list a client limited to some tools sees. It costs
// O(what st sees).
func (v *View) FingerprintFor(st Unlocks, keep func(registry.Tool) bool) uint64 {
	var sum uint64
	for _, t := range v.Visible(st) {
		if keep(t) {
			sum += mix(t.Hash)
		}
	}
	return sum
}

// unlocked returns the hidden tools st unlocked that exist, unsorted.
func (v *View) unlocked(st Unlocks) []registry.Tool {
	var out []registry.Tool
	for name, left := range st.Unlocked {
		if left <= 0 {
			continue
		}
		if t, ok := v.snap.Lookup(name); ok && v.rules.Hidden(t) {
			out = append(out, t)
		}
	}
	return out
}

// Use returns st after the model called tool t by name: a hidden tool is
// unlocked (or renewed) for TTL turns — the model clearly knows it —, and
// unlockedNow says it was not unlocked before. Other tools change nothing.
func (v *View) Use(st Unlocks, t registry.Tool) (next Unlocks, unlockedNow bool) {
	if !v.rules.Hidden(t) {
		return st, false
	}
	return st.Unlock(v.rules.settings.TTL, t.Name), !st.IsUnlocked(t.Name)
}

// Prune returns st without the unlocks of tools that no longer exist or are
// no longer hidden.
func (v *View) Prune(st Unlocks) Unlocks {
	return st.Keep(func(name string) bool {
		t, ok := v.snap.Lookup(name)
		return ok && v.rules.Hidden(t)
	})
}

// mix spreads a hash over 64 bits (splitmix64's finalizer) so that sums of
// hashes of different sets rarely coincide.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
