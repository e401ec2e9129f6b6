//go:build unix && !linux

package stdiotransport

// alive reports whether the group still has a member (zombies included).
func (g group) alive() bool { return g.anyMember() }
