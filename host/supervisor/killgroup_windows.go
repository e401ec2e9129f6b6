//go:build windows

package supervisor

// killServerGroup does nothing on Windows: the stdio plugin holds its
// server's process tree in a Job object that kills every process of it
// when its last handle closes, and a dead plugin's handles are closed by
// the system. There is no group id to signal from here.
func killServerGroup(int) {}
