//go:build unix

package stdiotransport

import "syscall"

// anyMember reports whether the group has any member, zombies included.
func (g group) anyMember() bool { return syscall.Kill(-g.pgid, 0) == nil }
