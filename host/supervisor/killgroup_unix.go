//go:build unix

package supervisor

import "syscall"

// killServerGroup sends SIGKILL to the process group a stdio plugin put
// its server in (the group's id is the server's pid).
func killServerGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
