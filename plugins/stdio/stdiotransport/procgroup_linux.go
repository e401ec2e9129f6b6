//go:build linux

package stdiotransport

import (
	"bytes"
	"os"
	"strconv"
)

// alive reports whether a process of the group still runs. Zombies do not
// count: orphans are reparented to pid 1, which in containers often never
// reaps them, and signalling a zombie "succeeds".
func (g group) alive() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return g.anyMember()
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, pgrp, ok := parseStat(stat); ok && pgrp == g.pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat extracts the state and process group from /proc/<pid>/stat:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, err == nil
}
