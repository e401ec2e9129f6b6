// Package proctree reads the process tree from /proc (Linux): the
// descendants of a process, which of a set still run, and what one holds
// (open descriptors, resident memory). The reliability suite and the
// shutdown tests use it to prove that no process a host started survives it.
package proctree

import "fmt"

// Proc is one process as /proc showed it.
type Proc struct {
	// PID and PPID are its id and its parent's.
	PID, PPID int
	// PGID is its process group.
	PGID int
	// Start is its start time (clock ticks since boot): with PID it
	// identifies the process even after the pid is reused.
	Start uint64
	// State is the state letter (R, S, Z …).
	State byte
	// Name is the base name of argv[0].
	Name string
}

// String is "name (pid N)".
func (p Proc) String() string { return fmt.Sprintf("%s (pid %d)", p.Name, p.PID) }
