package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxLen is the longest name Assign returns; model APIs reject longer tool names.
const MaxLen = 64

// Prefix starts every name Assign returns.
const Prefix = "mcp_"

// hashLen is the number of hex characters in a disambiguating suffix.
const hashLen = 8

// Pair is one server tool as the server named it.
type Pair struct{ Server, Tool string }

// candidate is a pair on its way to a name. level 0 means the plain name; level 1 the
// plain name cut and suffixed with the hash of the original pair; higher levels are a
// fallback used only when level-1 names of different pairs coincide (see rehashInput).
type candidate struct {
	pair  Pair
	plain string
	level int
}

// Assign returns the agent-facing name for every pair in pairs (duplicates in the input
// are fine). Distinct pairs get distinct names, every name matches
// ^[A-Za-z0-9_-]{1,64}$, and the result depends only on the set of pairs.
//
// Collisions are resolved to a fixed point: every pair whose plain name is ambiguous,
// too long or sanitized starts hashed; then, while two names coincide, the plain members
// of each such group are hashed, or, if all members are already hashed (a 32-bit hash
// collision), all of them move to the next hash level. Each round changes at least one
// name and only looks at groups, never at input order, so the result is deterministic.
func Assign(pairs []Pair) map[Pair]string {
	cands := candidates(pairs)
	names := make([]string, len(cands))
	for {
		for i := range cands {
			names[i] = cands[i].name()
		}
		if !separate(cands, names) {
			break
		}
	}
	out := make(map[Pair]string, len(cands))
	for i, c := range cands {
		out[c.pair] = names[i]
	}
	return out
}

// candidates deduplicates pairs and applies the first-order rules: a pair is hashed from
// the start when sanitizing changed it, its plain name is too long, or another pair
// shares its plain name.
func candidates(pairs []Pair) []candidate {
	seen := make(map[Pair]bool, len(pairs))
	byPlain := make(map[string]int, len(pairs))
	var cands []candidate
	for _, p := range pairs {
		if seen[p] {
			continue
		}
		seen[p] = true
		server, serverChanged := Sanitize(p.Server)
		tool, toolChanged := Sanitize(p.Tool)
		c := candidate{pair: p, plain: Prefix + server + "_" + tool}
		if serverChanged || toolChanged || len(c.plain) > MaxLen {
			c.level = 1
		}
		byPlain[c.plain]++
		cands = append(cands, c)
	}
	for i := range cands {
		if byPlain[cands[i].plain] > 1 {
			cands[i].level = 1
		}
	}
	return cands
}

// separate raises the level of the candidates whose current names coincide, as Assign
// describes, and reports whether it changed anything.
func separate(cands []candidate, names []string) bool {
	groups := make(map[string][]int, len(names))
	for i, n := range names {
		groups[n] = append(groups[n], i)
	}
	changed := false
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		anyPlain := false
		for _, i := range members {
			anyPlain = anyPlain || cands[i].level == 0
		}
		for _, i := range members {
			if !anyPlain || cands[i].level == 0 {
				cands[i].level++
				changed = true
			}
		}
	}
	return changed
}

// name returns the candidate's name at its current level.
func (c candidate) name() string {
	if c.level == 0 {
		return c.plain
	}
	base := c.plain
	if keep := MaxLen - 1 - hashLen; len(base) > keep {
		base = base[:keep] // ASCII after sanitizing, so any byte is a character boundary
	}
	return strings.TrimRight(base, "_") + "_" + c.suffix()
}

// suffix returns the hash suffix for the candidate's level (which must be at least 1).
func (c candidate) suffix() string {
	input := c.pair.Server + "\x00" + c.pair.Tool
	if c.level > 1 {
		input = rehashInput(c.pair, c.level)
	}
	sum := sha256.Sum256([]byte(input))
	return hex.EncodeToString(sum[:hashLen/2])
}

// rehashInput encodes a pair and a level injectively. The level-1 input server+"\x00"+tool
// is not injective when a component contains NUL ("a\x00b"+"c" and "a"+"b\x00c"), so
// retrying with it could collide forever; the length prefix fixes the split point and the
// level, which contains no NUL, is the last NUL-separated field.
func rehashInput(p Pair, level int) string {
	return strconv.Itoa(len(p.Server)) + ":" + p.Server + "\x00" + p.Tool + "\x00" +
		strconv.Itoa(level)
}
