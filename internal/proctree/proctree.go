//go:build linux

package proctree

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Read reads /proc/<pid>; false when there is no such process.
func Read(pid int) (Proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, false
	}
	// "pid (comm) state ppid pgrp …": comm may hold spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+2:])) // f[0] is field 3 (state), f[19] field 22 (starttime)
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	p := Proc{PID: pid, PPID: ppid, PGID: pgid, Start: start, State: f[0][0]}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		p.Name = filepath.Base(string(argv0))
	}
	return p, true
}

// All returns every process.
func All() []Proc {
	entries, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Read(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Descendants returns every live descendant of root (children first).
func Descendants(root int) []Proc {
	children := map[int][]Proc{}
	for _, p := range All() {
		children[p.PPID] = append(children[p.PPID], p)
	}
	var out []Proc
	queue := []int{root}
	for len(queue) > 0 {
		for _, p := range children[queue[0]] {
			if p.State != 'Z' && p.State != 'X' {
				out = append(out, p)
			}
			queue = append(queue, p.PID)
		}
		queue = queue[1:]
	}
	return out
}

// Alive returns the processes of ps that still run: a zombie counts as
// dead, and so does a pid now held by another process (other start time).
func Alive(ps []Proc) []Proc {
	var out []Proc
	for _, p := range ps {
		if now, ok := Read(p.PID); ok && now.Start == p.Start && now.State != 'Z' && now.State != 'X' {
			out = append(out, p)
		}
	}
	return out
}

// Kill sends SIGKILL to the processes of ps that still run (cleanup after
// a failed check).
func Kill(ps []Proc) {
	for _, p := range Alive(ps) {
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
}

// FDs returns how many file descriptors pid has open, or -1.
func FDs(pid int) int {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(entries)
}

// RSS returns the resident memory of pid in bytes (VmRSS), or -1.
func RSS(pid int) int64 { return kib(procField(pid, "status", "VmRSS:")) }

// PSS returns the proportional set size of pid in bytes, or -1: its
// resident memory with every page shared with other processes counted as
// its share (Pss of /proc/<pid>/smaps_rollup). Unlike RSS, the PSS of
// several processes adds up to the memory they hold together, so it is the
// figure to sum over processes running the same executable.
func PSS(pid int) int64 { return kib(procField(pid, "smaps_rollup", "Pss:")) }

// WriteCalls returns how many write system calls pid's threads have made
// so far (syscw of /proc/<pid>/io: write, writev, sendmsg …), or -1.
func WriteCalls(pid int) int64 {
	n, err := strconv.ParseInt(procField(pid, "io", "syscw:"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// procField returns the value of the line of /proc/<pid>/<file> starting
// with key, trimmed ("" when there is no such file or line).
func procField(pid int, file, key string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// kib turns a "<n> kB" field into bytes, or -1.
func kib(field string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(field, " kB"), 10, 64)
	if err != nil {
		return -1
	}
	return n << 10
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// CPU returns the CPU time (user + system) pid has used so far, or -1 when
// there is no such process.
func CPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return -1
	}
	f := strings.Fields(string(b[i+2:])) // f[11], f[12]: fields 14 (utime) and 15 (stime)
	if len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTicks
}
